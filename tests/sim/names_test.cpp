// sim/names.hpp: enum <-> name tables and the nearest-name suggestion.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/names.hpp"

namespace mgsim::sim {
namespace {

enum class Colour { red, green, blue };
constexpr auto kColours =
    name_table<Colour>({{Colour::red, "red"}, {Colour::green, "green"}, {Colour::blue, "blue"}});

TEST_CASE("a name table maps both ways and lists names in table order", "[sim][names]") {
  static_assert(kColours.name(Colour::green) == "green");
  static_assert(kColours.parse("blue") == Colour::blue);
  CHECK(kColours.name(static_cast<Colour>(7)) == "?");  // a value outside the table
  CHECK(!kColours.parse("Blue").has_value());           // names are exact, case included
  CHECK(!kColours.parse("").has_value());
  CHECK(kColours.names() == std::vector<std::string>{"red", "green", "blue"});
}

TEST_CASE("the nearest name is offered only for a likely typo", "[sim][names]") {
  // "gren" is one deletion from "green"; "purple" is 5+ edits from every name, more than a
  // third of its 6 letters (and more than the 2 edits always allowed).
  CHECK(kColours.nearest("gren") == "green");
  CHECK(kColours.nearest("purple").empty());
  const std::vector<std::string> keys = {"bandwidth", "latency"};
  CHECK(did_you_mean("bandwith", keys) == "; did you mean 'bandwidth'?");
  CHECK(did_you_mean("colour", keys).empty());
  CHECK(did_you_mean("anything", {}).empty());
}

}  // namespace
}  // namespace mgsim::sim
