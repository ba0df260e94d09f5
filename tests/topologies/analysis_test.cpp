// Bisection by max-flow, diameter and DOT output on small hand-made topologies.
#include <catch2/catch.hpp>

#include <sstream>

#include <fmt/format.h>

#include "topologies/analysis.hpp"
#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

using namespace mgsim;
using Catch::Matchers::Contains;

namespace {

// Two leaves of two GPUs each (100 GB/s per GPU link), joined by one 50 GB/s link: a 4:1
// oversubscribed core.
const char* kTwoLeaves = R"(
gpu: h100
vertices:
  - {name: "gpu{i}", kind: gpu, repeat: {i: 4}}
  - {name: "leaf{l}", kind: ib_switch, repeat: {l: 2}}
links:
  - {from: "gpu{i}", to: "leaf{i / 2}", repeat: {i: 4}, kind: ib, bandwidth: 100GB/s, latency: 1ns}
  - {from: leaf0, to: leaf1, kind: ib, bandwidth: 50GB/s, latency: 1ns}
)";

}  // namespace

TEST_CASE("bisection is the min cut, not the sum of injection") {
  const topologies::RoutingGraph routing(topologies::load_topology_text(kTwoLeaves, "l.yaml"));
  // GPUs 0, 1 (leaf0) send to 2, 3 (leaf1): 200 GB/s of injection, but every byte crosses the
  // single 50 GB/s leaf0-leaf1 link, so the cut is 50 GB/s.
  CHECK(topologies::bisection_bandwidth(routing) == sim::Bandwidth::GBps(50));
  // gpu -> leaf0 -> leaf1 -> gpu: 3 hops.
  CHECK(topologies::gpu_diameter(routing).hops == 3);
}

TEST_CASE("routes never cross a GPU even when that is shorter") {
  // gpu0 - gpu1 - gpu2 directly (2 hops through gpu1) versus gpu0 - a - b - gpu2 (3 hops).
  const char* text = R"(
gpu: h100
vertices:
  - {name: "gpu{i}", kind: gpu, repeat: {i: 3}}
  - {name: a, kind: nvswitch}
  - {name: b, kind: nvswitch}
links:
  - {from: "gpu{i}", to: "gpu{i + 1}", repeat: {i: 2}, kind: nvlink, bandwidth: 1GB/s, latency: 1ns}
  - {from: gpu0, to: a, kind: nvlink, bandwidth: 1GB/s, latency: 1ns}
  - {from: a, to: b, kind: nvlink, bandwidth: 1GB/s, latency: 1ns}
  - {from: b, to: gpu2, kind: nvlink, bandwidth: 1GB/s, latency: 1ns}
)";
  const topologies::RoutingGraph routing(topologies::load_topology_text(text, "r.yaml"));
  const std::vector<int> arcs = routing.path(0, 2, 0, nullptr);
  REQUIRE(arcs.size() == 3);
  CHECK(routing.name(routing.arcs()[arcs[0]].to) == "a");
  CHECK(routing.name(routing.arcs()[arcs[1]].to) == "b");
  // Neighbours are still 1 hop.
  CHECK(routing.path(0, 1, 0, nullptr).size() == 1);
}

TEST_CASE("DOT output names every vertex and link") {
  const auto topo = topologies::load_topology_text(kTwoLeaves, "l.yaml");
  std::ostringstream out;
  topologies::write_dot(out, topo);
  const std::string dot = out.str();
  CHECK_THAT(dot, Contains("graph G {") && Contains("label=\"gpu3\" shape=box") &&
                      Contains("label=\"leaf1\" shape=ellipse") && Contains("ib x1 50GB/s"));
  // 6 vertices and 5 links: one "--" per link.
  std::size_t edges = 0;
  for (std::size_t at = dot.find("--"); at != std::string::npos; at = dot.find("--", at + 2))
    ++edges;
  CHECK(edges == 5);
}

TEST_CASE("beyond kExactDiameterGpus the diameter is measured to a sample of destinations") {
  // One switch, and one GPU behind a second switch: the farthest routes (3 hops) end or start
  // there. The sample's destinations include rank 0, the far GPU, so the bound finds them.
  const std::string text =
      fmt::format(R"(
gpu: h100
vertices:
  - {{name: far, kind: gpu}}
  - {{name: "gpu{{i}}", kind: gpu, repeat: {{i: {}}}}}
  - {{name: sw, kind: nvswitch}}
  - {{name: edge, kind: nvswitch}}
links:
  - {{from: "gpu{{i}}", to: sw, repeat: {{i: {}}}, kind: nvlink, bandwidth: 100GB/s, latency: 1ns}}
  - {{from: far, to: edge, kind: nvlink, bandwidth: 100GB/s, latency: 1ns}}
  - {{from: edge, to: sw, kind: nvlink, bandwidth: 100GB/s, latency: 1ns}}
)",
                  topologies::kExactDiameterGpus, topologies::kExactDiameterGpus);
  const topologies::RoutingGraph routing(topologies::load_topology_text(text, "big.yaml"));
  const topologies::Diameter d = topologies::gpu_diameter(routing);
  CHECK_FALSE(d.exact);
  CHECK(d.destinations == topologies::kDiameterSamples);
  CHECK(d.hops == 3);
}
