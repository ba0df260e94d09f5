#include "sim/json.hpp"

#include <iterator>

#include <fmt/format.h>

#include "sim/check.hpp"

namespace mgsim::sim {

void append_json_escaped(std::string& out, std::string_view s) {
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out += ch;
        }
    }
  }
}

std::string json_quote(std::string_view s) {
  std::string out = "\"";
  append_json_escaped(out, s);
  return out + "\"";
}

void JsonWriter::before_value() {
  if (levels_.empty()) return;
  Level& l = levels_.back();
  if (l.is_object) {
    MGSIM_CHECK(l.after_key, "JSON: an object member needs a key first");
    l.after_key = false;
    return;
  }
  if (!l.empty) out_ += style_ == Style::spaced ? ", " : ",";
  l.empty = false;
}

JsonWriter& JsonWriter::object() {
  before_value();
  out_ += '{';
  levels_.push_back({true});
  return *this;
}

JsonWriter& JsonWriter::array() {
  before_value();
  out_ += '[';
  levels_.push_back({false});
  return *this;
}

JsonWriter& JsonWriter::end() {
  MGSIM_CHECK(!levels_.empty() && !levels_.back().after_key, "JSON: end() without an open value");
  out_ += levels_.back().is_object ? '}' : ']';
  levels_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  MGSIM_CHECK(!levels_.empty() && levels_.back().is_object && !levels_.back().after_key,
              "JSON: key '{}' outside an object", k);
  Level& l = levels_.back();
  if (!l.empty) out_ += style_ == Style::spaced ? ", " : ",";
  l.empty = false;
  l.after_key = true;
  out_ += '"';
  append_json_escaped(out_, k);
  out_ += style_ == Style::spaced ? "\": " : "\":";
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  out_ += '"';
  append_json_escaped(out_, s);
  out_ += '"';
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t v) {
  before_value();
  fmt::format_to(std::back_inserter(out_), "{}", v);
  return *this;
}

JsonWriter& JsonWriter::value(double v, int decimals) {
  before_value();
  fmt::format_to(std::back_inserter(out_), "{:.{}f}", v, decimals);
  return *this;
}

JsonWriter& JsonWriter::value_shortest(double v) {
  before_value();
  fmt::format_to(std::back_inserter(out_), "{}", v);
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  before_value();
  out_ += json;
  return *this;
}

}  // namespace mgsim::sim
