// The loader's generators, params, groups and the integer expression evaluator.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>

#include "sim/engine.hpp"
#include "topologies/expression.hpp"
#include "topologies/fabric.hpp"
#include "topologies/topology.hpp"

using namespace mgsim;

TEST_CASE("expressions: C precedence, comparisons, min/max, truncating division") {
  const sim::Node where = sim::Node::load_string("x: 1", "e.yaml");
  topologies::Scope scope;
  scope.push("n", 7);
  // 1 + 2 * 3 = 7; (1 + 2) * 3 = 9; 7 / 2 = 3 (truncated); -7 / 2 = -3 (toward zero, as C++).
  CHECK(topologies::evaluate("1 + 2 * 3", scope, where) == 7);
  CHECK(topologies::evaluate("(1 + 2) * 3", scope, where) == 9);
  CHECK(topologies::evaluate("n / 2", scope, where) == 3);
  CHECK(topologies::evaluate("-n / 2", scope, where) == -3);
  CHECK(topologies::evaluate("n % 4", scope, where) == 3);
  // Comparisons give 0/1: 4 + (1 == 1) + (1 == 2) = 5, the HGX lane pattern for switch 1.
  CHECK(topologies::evaluate("4 + (1 == 1) + (1 == 2)", scope, where) == 5);
  CHECK(topologies::evaluate("n >= 7 && n < 8 || 0", scope, where) == 1);
  CHECK(topologies::evaluate("!(n != 7)", scope, where) == 1);
  CHECK(topologies::evaluate("min(n, 3) + max(n, 3)", scope, where) == 10);
  CHECK(topologies::expand_pattern("n{n - 1}.gpu{n * 2}", scope, where) == "n6.gpu14");
  CHECK_THROWS_AS(topologies::evaluate("n +", scope, where), sim::ConfigError);
  CHECK_THROWS_AS(topologies::evaluate("9223372036854775807 + 1", scope, where), sim::ConfigError);
  CHECK_THROWS_AS(topologies::expand_pattern("gpu{n", scope, where), sim::ConfigError);
}

TEST_CASE("generators: nested repeat, where filter, node index, rank order") {
  // 2 nodes x 3 GPUs, each node a full mesh of GPU pairs (i < j): 3 links per node.
  const char* text = R"(
gpu: h100
params: {nodes: 2}
vertices:
  - {name: "n{n}.gpu{i}", kind: gpu, repeat: {n: nodes, i: 3}, node: n}
  - {name: "n{n}.sw", kind: nvswitch, repeat: {n: nodes}, node: n}
  - {name: core, kind: ib_switch}
links:
  - {from: "n{n}.gpu{i}", to: "n{n}.gpu{j}", repeat: {n: nodes, i: 3, j: 3}, where: i < j,
     kind: nvlink, lanes: 2, bandwidth_per_lane: 25GB/s, latency: 10ns}
  - {from: "n{n}.gpu{i}", to: "n{n}.sw", repeat: {n: nodes, i: 3}, kind: pcie,
     bandwidth: 63GB/s, latency: 10ns}
  - {from: "n{n}.sw", to: core, repeat: {n: nodes}, kind: ib, bandwidth: 400Gb/s, latency: 10ns}
)";
  const auto topo = topologies::load_topology_text(text, "g.yaml", {{"nodes", 3}});
  // Overridden to 3 nodes: 9 GPUs; links: 3 nodes x (3 mesh + 3 pcie + 1 ib) = 21.
  CHECK(topo.gpu_count() == 9);
  CHECK(boost::num_edges(topo.graph) == 21);
  CHECK(topo.params.at("nodes") == 3);
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  const topologies::Fabric fabric(topo, net);
  // Ranks in file order, innermost loop fastest: rank 4 is n1.gpu1.
  CHECK(fabric.gpu_name(4) == "n1.gpu1");
  CHECK(fabric.node_of(4) == 1);
  // Same node: the direct NVLink (1 hop, 2 x 25 GB/s) beats the 2-hop PCIe path.
  const auto& near = fabric.route(3, 5);
  REQUIRE(near.resources.size() == 1);
  CHECK(net.name(near.resources[0]) == "n1.gpu0->n1.gpu2");
  CHECK(net.capacity(near.resources[0]) == sim::Bandwidth::GBps(50));
  // Across nodes GPUs do not forward, so gpu -> sw -> core -> sw -> gpu: 4 hops x 10 ns.
  const auto& far = fabric.route(0, 8);
  CHECK(far.resources.size() == 4);
  CHECK(far.latency == sim::Duration::ns(40));
  // Injection: 2 mesh links x 50 GB/s + 63 GB/s PCIe = 163 GB/s.
  CHECK(fabric.injection_bandwidth(0) == sim::Bandwidth::GBps(163));
}

TEST_CASE("a rate or latency can be an expression over the params with its unit") {
  // The IB link's rate and both latencies come from params; -T (overrides) changes them.
  const char* text = R"(
gpu: h100
params: {ib_gbps: 400, cable_ns: 300, switch_ns: 200}
vertices:
  - {name: "gpu{i}", kind: gpu, repeat: {i: 2}}
  - {name: sw, kind: ib_switch, latency: switch_ns ns}
links:
  - {from: "gpu{i}", to: sw, repeat: {i: 2}, kind: ib, bandwidth: ib_gbps Gb/s,
     latency: (cable_ns + 50 * i) ns}
)";
  auto route_of = [&](const std::map<std::string, std::int64_t>& overrides) {
    const auto topo = topologies::load_topology_text(text, "q.yaml", overrides);
    sim::Engine engine;
    sim::FluidNetwork net(engine);
    const topologies::Fabric fabric(topo, net);
    const auto& r = fabric.route(0, 1);
    REQUIRE(r.resources.size() == 2);
    return std::make_pair(net.capacity(r.resources[0]), r.latency);
  };
  // 400 Gb/s = 50 GB/s; gpu0's cable 300 ns + the switch 200 ns + gpu1's cable 350 ns.
  CHECK(route_of({}) == std::make_pair(sim::Bandwidth::GBps(50), sim::Duration::ns(850)));
  // ib_gbps 800, switch_ns 100: 100 GB/s, 300 + 100 + 350 ns.
  CHECK(route_of({{"ib_gbps", 800}, {"switch_ns", 100}}) ==
        std::make_pair(sim::Bandwidth::GBps(100), sim::Duration::ns(750)));
}

TEST_CASE("a rate or latency expression needs its unit and a valid value") {
  auto error_of = [](const std::string& bandwidth, const std::string& latency) {
    const std::string text =
        "gpu: h100\nparams: {r: 400, l: -5}\nvertices:\n"
        "  - {name: \"gpu{i}\", kind: gpu, repeat: {i: 2}}\n"
        "links:\n  - {from: gpu0, to: gpu1, kind: ib, bandwidth: " +
        bandwidth + ", latency: " + latency + "}\n";
    try {
      topologies::load_topology_text(text, "q.yaml");
    } catch (const sim::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("r GHz", "1ns"),
             Catch::Contains("q.yaml:6:") && Catch::Contains("expected a bandwidth such as 400Gb/s "
                                                             "or 'EXPR Gb/s'"));
  CHECK_THAT(error_of("r", "1ns"), Catch::Contains("expected a bandwidth"));
  CHECK_THAT(error_of("q Gb/s", "1ns"), Catch::Contains("q"));
  CHECK_THAT(error_of("(r - 400) Gb/s", "1ns"), Catch::Contains("bandwidth must be positive"));
  CHECK_THAT(error_of("r Gb/s", "l ns"), Catch::Contains("latency must not be negative"));
}

TEST_CASE(
    "a topology's gpu file is found next to the topology file, not in the working directory") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "mgsim_gpu_path_test";
  fs::create_directories(dir / "machines");
  {
    std::ofstream(dir / "machines" / "two.yaml") << R"(gpu: hw/mine.yaml
vertices:
  - {name: "gpu{i}", kind: gpu, repeat: {i: 2}}
links:
  - {from: gpu0, to: gpu1, kind: nvlink, bandwidth: 100GB/s, latency: 1ns}
)";
  }
  const topologies::Topology t =
      topologies::load_topology((dir / "machines" / "two.yaml").string());
  CHECK(fs::path(t.gpu_model) == dir / "machines" / "hw" / "mine.yaml");
  // A preset name stays a name.
  CHECK(topologies::load_topology_text("gpu: h200\nvertices: [{name: g, kind: gpu}]\n",
                                       (dir / "x.yaml").string())
            .gpu_model == "h200");
  fs::remove_all(dir);
}
