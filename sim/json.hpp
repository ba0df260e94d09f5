// The one JSON writer for every JSON document mgsim prints (--json summaries, the roofline, the
// trace), and JSON string escaping: names come from user files and may hold any character. UTF-8
// passes through unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mgsim::sim {

// Appends `s` escaped for use inside a JSON string literal (without the quotes).
void append_json_escaped(std::string& out, std::string_view s);
// `s` as a JSON string literal, quotes included.
std::string json_quote(std::string_view s);

// Appends one JSON document to a string, separating members and elements itself.
//   spaced:  {"a": 1, "b": [1, 2]}     (the --json summaries)
//   compact: {"a":1,"b":[1,2]}         (the trace, where size matters)
// Usage: w.object().key("a").value(1).key("b").array().value(1).value(2).end().end();
// Numbers are written as given: integers exactly, doubles with a fixed number of decimals (the
// caller chooses, so output is a pure function of the values). REQUIRES: calls form a document
// (a key before every member value, end() matching object()/array()); checked.
class JsonWriter {
 public:
  enum class Style { spaced, compact };
  explicit JsonWriter(std::string& out, Style style = Style::spaced) : out_(out), style_(style) {}

  JsonWriter& object();
  JsonWriter& array();
  JsonWriter& end();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);  // a string, escaped and quoted
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(std::int64_t v);
  JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(double v, int decimals);
  // The shortest text that reads back as `v` (fmt's "{}"). REQUIRES: v is finite.
  JsonWriter& value_shortest(double v);
  JsonWriter& null();
  // A value already written as JSON (e.g. a document from another writer).
  JsonWriter& raw(std::string_view json);

 private:
  void before_value();
  std::string& out_;
  Style style_;
  struct Level {
    bool is_object;
    bool empty = true;
    bool after_key = false;
  };
  std::vector<Level> levels_;
};

}  // namespace mgsim::sim
