// Bad topology input: each mistake gives one ConfigError naming file:line:column and saying what
// is wrong. Positions are 1-based; the base file below is written in block style so that the
// column of each value is easy to derive: an item key sits at column 5 ("  - " is 4 characters)
// and its value at 5 + len("key: ").
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <boost/range/iterator_range.hpp>

#include "topologies/topology.hpp"

using namespace mgsim;
using Catch::Matchers::Contains;

namespace {

const std::vector<std::string> kBase = {
    "gpu: h200",              // 1
    "vertices:",              // 2
    "  - name: gpu{i}",       // 3
    "    kind: gpu",          // 4
    "    repeat: {i: 2}",     // 5
    "  - name: sw",           // 6
    "    kind: nvswitch",     // 7
    "links:",                 // 8
    "  - from: gpu{i}",       // 9
    "    to: sw",             // 10
    "    repeat: {i: 2}",     // 11
    "    kind: nvlink",       // 12
    "    bandwidth: 25GB/s",  // 13
    "    latency: 1ns",       // 14
};

// The base file with line `n` (1-based) replaced by `text` (n = 0 keeps it whole; "" blanks it).
std::string with_line(int n, const std::string& text) {
  std::string out;
  for (int i = 0; i < static_cast<int>(kBase.size()); ++i)
    out += (i + 1 == n ? text : kBase[i]) + "\n";
  return out;
}

std::string error_of(const std::string& text,
                     const std::map<std::string, std::int64_t>& overrides = {}) {
  try {
    topologies::load_topology_text(text, "t.yaml", overrides);
  } catch (const sim::ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("the base file is valid") {
  const auto topo = topologies::load_topology_text(with_line(0, ""), "t.yaml");
  CHECK(topo.gpu_count() == 2);
}

TEST_CASE("not YAML") {
  // An unclosed flow mapping on line 5: the parser reports where it gave up.
  CHECK_THAT(error_of(with_line(5, "    repeat: {i: 2")),
             Contains("t.yaml:") && Contains("not valid YAML"));
}

TEST_CASE("unknown keys name the nearest valid key") {
  // "kinds" on line 12 is 1 edit from "kind"; the key starts at column 5.
  CHECK_THAT(error_of(with_line(12, "    kinds: nvlink")),
             Contains("t.yaml:12:5: error: unknown key 'kinds' in link; did you mean 'kind'?"));
  CHECK_THAT(error_of("gpu: h200\nvertexes: []\n"),
             Contains("t.yaml:2:1: error: unknown key 'vertexes' in topology; did you mean "
                      "'vertices'?"));
  // A required key that is simply absent (no near miss) is named as missing, at the mapping.
  CHECK_THAT(error_of(with_line(12, "")),
             Contains("t.yaml:9:5: error: link is missing the required key 'kind'"));
  // Unknown kinds too: "nvswich" is 1 edit from "nvswitch"; value at column 11.
  CHECK_THAT(error_of(with_line(7, "    kind: nvswich")),
             Contains("t.yaml:7:11:") &&
                 Contains("unknown vertex kind 'nvswich'; did you mean 'nvswitch'?"));
}

TEST_CASE("wrong types") {
  CHECK_THAT(error_of("gpu: h200\nvertices: 3\n"),
             Contains("t.yaml:2:11:") && Contains("expected a list"));
  // repeat must be a mapping of loop variables; value at column 13.
  CHECK_THAT(error_of(with_line(5, "    repeat: 2")),
             Contains("t.yaml:5:13:") && Contains("expected a mapping for repeat"));
  // lanes must be an integer expression; "many" is an undefined name. Value at column 12.
  CHECK_THAT(error_of(with_line(14, "    latency: 1ns\n    lanes: many")),
             Contains("t.yaml:15:12:") && Contains("undefined name 'many'"));
  CHECK_THAT(error_of(with_line(1, "gpu: [h200]")),
             Contains("t.yaml:1:6:") && Contains("expected a string"));
}

TEST_CASE("bad or missing units") {
  // A bare number is not a bandwidth; value at column 16.
  CHECK_THAT(error_of(with_line(13, "    bandwidth: 25")), Contains("t.yaml:13:16:"));
  CHECK_THAT(error_of(with_line(14, "    latency: 1 parsec")), Contains("t.yaml:14:14:"));
  CHECK_THAT(error_of(with_line(13, "    bandwidth: 25GB")), Contains("t.yaml:13:16:"));
  // Missing bandwidth altogether: an NVLink link of a GPU takes the GPU's rate (its hardware's,
  // resolve_gpu_links); any other link is reported at the link mapping (line 9, column 5).
  CHECK(error_of(with_line(13, "")) == "no error");
  std::string pcie = with_line(13, "");
  pcie.replace(pcie.find("kind: nvlink"), 12, "kind: pcie");
  CHECK_THAT(error_of(pcie), Contains("t.yaml:9:5:") && Contains("needs bandwidth"));
}

TEST_CASE("a GPU's NVLink links without a rate run at the GPU's, and add up to its links") {
  topologies::Topology t = topologies::load_topology_text(with_line(13, ""), "t.yaml");
  CHECK_FALSE(topologies::links_resolved(t));
  topologies::Topology ok = t;
  topologies::resolve_gpu_links(ok, sim::Bandwidth::GBps(26), 1, "h200");
  CHECK(topologies::links_resolved(ok));
  for (const auto& e : boost::make_iterator_range(boost::edges(ok.graph)))
    CHECK(ok.graph[e].bandwidth == sim::Bandwidth::GBps(26));
  // 18 links in the hardware, one lane per GPU in the wiring: named, at the GPU.
  try {
    topologies::resolve_gpu_links(t, sim::Bandwidth::GBps(26), 18, "h200");
    FAIL("no error");
  } catch (const sim::ConfigError& e) {
    CHECK_THAT(std::string(e.what()),
               Contains("t.yaml:3:5:") && Contains("gpu0 has 1 NVLink lanes here and hardware h200 "
                                                   "has 18 links"));
  }
}

TEST_CASE("zero or negative sizes") {
  CHECK_THAT(error_of(with_line(14, "    latency: 1ns\n    lanes: 0")),
             Contains("t.yaml:15:12:") && Contains("lanes must be positive, got 0"));
  CHECK_THAT(error_of(with_line(14, "    latency: 1ns\n    lanes: 1 - 3")),
             Contains("lanes must be positive, got -2"));
  CHECK_THAT(error_of(with_line(13, "    bandwidth: 0GB/s")),
             Contains("t.yaml:13:16:") && Contains("must be positive"));
  CHECK_THAT(error_of(with_line(14, "    latency: -1ns")), Contains("t.yaml:14:14:"));
  // repeat {i: 0}: the count "0" is at column 17.
  CHECK_THAT(error_of(with_line(5, "    repeat: {i: 0}")),
             Contains("t.yaml:5:17:") && Contains("repeat count of 'i' must be positive, got 0"));
}

TEST_CASE("a link to a vertex that does not exist") {
  CHECK_THAT(
      error_of(with_line(10, "    to: sx")),
      Contains("t.yaml:10:9: error: link to 'sx': no vertex has that name; did you mean 'sw'?"));
  // The pattern expands to gpu0, gpu1, gpu2 but only two GPUs exist.
  CHECK_THAT(error_of(with_line(11, "    repeat: {i: 3}")),
             Contains("t.yaml:9:11:") && Contains("link from 'gpu2': no vertex has that name"));
}

TEST_CASE("a GPU that no route reaches") {
  // Four GPUs, links only for gpu0..gpu2: gpu3 (declared by the vertex entry at 3:5) is alone.
  std::string text = with_line(5, "    repeat: {i: 4}");
  text.replace(text.find("repeat: {i: 2}"), 14, "repeat: {i: 3}");
  CHECK_THAT(error_of(text), Contains("t.yaml:3:5: error: gpu3 is not connected to gpu0"));
}

TEST_CASE("GPUs do not forward: a GPU reachable only through another GPU is unreachable") {
  // gpu0 - sw - gpu1 - gpu2 (a link between two GPUs): gpu2 is reached only through gpu1.
  const std::string text =
      with_line(0, "") +
      "  - {from: gpu1, to: gpu2, kind: nvlink, bandwidth: 1GB/s, latency: 1ns}\n";
  std::string three = text;
  three.replace(three.find("repeat: {i: 2}"), 14, "repeat: {i: 3}");
  CHECK_THAT(error_of(three), Contains("gpu2 is not connected to gpu0"));
}

TEST_CASE("duplicates") {
  CHECK_THAT(
      error_of(with_line(6, "  - name: gpu1")),
      Contains("t.yaml:6:11:") && Contains("vertex 'gpu1' is defined twice (first at t.yaml:3:5)"));
  CHECK_THAT(error_of(with_line(0, "") +
                      "  - {from: sw, to: gpu0, kind: nvlink, bandwidth: 1GB/s, latency: 1ns}\n"),
             Contains("t.yaml:15:5:") &&
                 Contains("second link between 'sw' and 'gpu0' (first at t.yaml:9:5)"));
  CHECK_THAT(error_of(with_line(10, "    to: gpu{i}")), Contains("link from 'gpu0' to itself"));
}

TEST_CASE("params: undefined names, unknown overrides") {
  // "n" is not a param: the count at column 17 names it and lists what is defined.
  CHECK_THAT(error_of(with_line(5, "    repeat: {i: n}")), Contains("t.yaml:5:17:") &&
                                                               Contains("undefined name 'n'") &&
                                                               Contains("defined here: nothing"));
  const std::string with_params = "params:\n  count: 2\n" + with_line(5, "    repeat: {i: count}");
  CHECK(topologies::load_topology_text(with_params, "t.yaml", {{"count", 2}}).gpu_count() == 2);
  // -D cont=3: no such param, the params mapping (line 2, column 3) is named, with a suggestion.
  CHECK_THAT(error_of(with_params, {{"cont", 3}}),
             Contains("t.yaml:2:3:") && Contains("no parameter 'cont'; did you mean 'count'?"));
  CHECK_THAT(error_of("params:\n  n: x\n" + with_line(0, "")),
             Contains("t.yaml:2:6:") && Contains("expected an integer"));
  CHECK_THAT(error_of(with_line(5, "    repeat: {i: 2 / 0}")), Contains("division by zero"));
}

TEST_CASE("a topology without GPUs") {
  CHECK_THAT(error_of("gpu: h200\nvertices:\n  - {name: sw, kind: nvswitch}\n"),
             Contains("t.yaml:3:3:") && Contains("no vertex of kind gpu"));
}

TEST_CASE("unknown preset lists the valid ones") {
  try {
    topologies::load_topology("hgx-h200");
    FAIL("no error");
  } catch (const sim::ConfigError& e) {
    CHECK_THAT(std::string(e.what()), Contains("unknown topology preset 'hgx-h200'") &&
                                          Contains("did you mean 'hgx-h200-8'?") &&
                                          Contains("gb200-nvl72") && Contains("nvl576"));
  }
  CHECK_THROWS_AS(topologies::load_topology("/nonexistent/t.yaml"), sim::ConfigError);
}

TEST_CASE("a runaway count is an error, not minutes of work") {
  // A single count past the 1,000,000 instance bound fails before expanding anything.
  CHECK_THAT(error_of(with_line(5, "    repeat: {i: 2000000}")),
             Contains("t.yaml:5:17:") && Contains("more than 1000000"));
  // 600,000 GPUs, each loop alone under the bound, but with their 600,000 links the file
  // expands to 1,200,000: the links' count (line 11, column 17) is named.
  std::string text = with_line(5, "    repeat: {i: 600000}");
  text.replace(text.rfind("repeat: {i: 2}"), 14, "repeat: {i: 600000}");
  CHECK_THAT(error_of(text), Contains("t.yaml:11:17:") && Contains("more than 1000000"));
}
