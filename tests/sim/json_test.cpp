// sim::JsonWriter: separators, nesting, escaping and the checks on misuse.
#include "sim/json.hpp"

#include <string>

#include <catch2/catch.hpp>

#include "sim/check.hpp"

using mgsim::sim::JsonWriter;

TEST_CASE("the spaced style separates members with ', ' and keys with ': '") {
  std::string out;
  JsonWriter w(out);
  w.object().key("a").value(1).key("b").array().value(1).value("x").null().end();
  w.key("c").object().end().key("d").array().end().end();
  CHECK(out == R"({"a": 1, "b": [1, "x", null], "c": {}, "d": []})");
}

TEST_CASE("the compact style has no spaces, doubles get the decimals asked for") {
  std::string out;
  JsonWriter w(out, JsonWriter::Style::compact);
  // 2/3 to 6 decimals rounds to 0.666667; a raw value is copied as it is.
  w.object().key("v").value(2.0 / 3.0, 6).key("r").raw("[1,2]").end();
  CHECK(out == R"({"v":0.666667,"r":[1,2]})");
}

TEST_CASE("keys and strings from user files are escaped") {
  std::string out;
  JsonWriter(out).object().key("a\"b").value("line\nbreak\x01").end();
  CHECK(out == R"({"a\"b": "line\nbreak\u0001"})");
}

TEST_CASE("a member value without a key, and an end() too many, are internal errors") {
  std::string out;
  JsonWriter w(out);
  w.object();
  CHECK_THROWS_AS(w.value(1), mgsim::sim::InternalError);
  std::string other;
  JsonWriter v(other);
  v.array().end();
  CHECK_THROWS_AS(v.end(), mgsim::sim::InternalError);
}
