#include "sim/config.hpp"

#include <catch2/catch.hpp>

#include "tests/support/config_error.hpp"

using namespace mgsim::sim;

using mgsim::testing::error_of;

TEST_CASE("not YAML: the parser's position is reported") {
  const auto msg = error_of([] { Node::load_string("a: [1, 2\nb: 3\n", "t.yaml"); });
  CHECK(msg.rfind("t.yaml:", 0) == 0);
  CHECK(msg.find("not valid YAML") != std::string::npos);
}

TEST_CASE("unknown keys name file, line, column and the nearest valid key") {
  const Node root = Node::load_string("name: x\nbandwith: 450GB/s\n", "link.yaml");
  MapReader r(root, "link");
  r.required("name");
  r.optional("bandwidth");
  const auto msg = error_of([&] { r.finish(); });
  CHECK(msg == "link.yaml:2:1: error: unknown key 'bandwith' in link; did you mean 'bandwidth'?");
}

TEST_CASE("missing keys, duplicate keys, wrong types and bad units") {
  const Node root = Node::load_string("a: 1\nb: fast\nc: [1]\n", "x.yaml");
  MapReader r(root, "thing");
  CHECK(error_of([&] { r.required("zzz"); }).find("missing the required key 'zzz'") !=
        std::string::npos);
  CHECK(error_of([&] { r.required("b").as_bandwidth(); }).rfind("x.yaml:2:4: error:", 0) == 0);
  CHECK(error_of([&] { r.required("c").as_int(); }).find("expected an integer, got a list") !=
        std::string::npos);
  CHECK(error_of([] {
          MapReader(Node::load_string("a: 1\na: 2\n", "d.yaml"), "m");
        }).find("appears twice") != std::string::npos);
  const Node neg = Node::load_string("n: -4\n", "n.yaml");
  CHECK(error_of([&] {
          neg.yaml()["n"];
          MapReader(neg, "m").required("n").as_positive_int("count");
        }).find("count must be positive, got -4") != std::string::npos);
}
