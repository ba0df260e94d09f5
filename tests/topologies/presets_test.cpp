// Built-in presets: they load, and their headline figures follow from the datasheet numbers
// written in each preset's comments.
#include <catch2/catch.hpp>

#include <chrono>

#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "tests/topologies/preset.hpp"
#include "topologies/analysis.hpp"
#include "topologies/fabric.hpp"
#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

using namespace mgsim;

TEST_CASE("every preset loads and names a GPU model") {
  const auto names = topologies::preset_names();
  CHECK(names == std::vector<std::string>{"dgx-b200-8", "dgx-h100-8", "gb200-nvl72", "hgx-h200-8",
                                          "hgx-h200-ib", "nvl576"});
  for (const auto& n : names) {
    INFO(n);
    const auto topo = test::preset(n);
    CHECK(topo.name == n);
    CHECK(!topo.gpu_model.empty());
  }
}

TEST_CASE("hgx-h200-8 summary") {
  const auto topo = test::preset("hgx-h200-8");
  CHECK(topo.gpu_model == "h200");
  CHECK(topo.gpu_count() == 8);
  const topologies::RoutingGraph routing(topo);
  const auto s = topologies::summarize(topo, routing);
  CHECK(s.vertices_by_kind.at("nvswitch") == 4);
  // 8 GPUs x 4 chips = 32 declared links carrying 8 x 18 = 144 lanes.
  CHECK(s.links == 32);
  CHECK(s.lanes == 144);
  // Bisection: GPUs 0-3 send to 4-7; each sender's trunk carries 450 GB/s, the group is
  // non-blocking, so 4 x 450 = 1800 GB/s one way.
  CHECK(topologies::bisection_bandwidth(routing) == sim::Bandwidth::GBps(1800));
  CHECK(topologies::gpu_diameter(routing).hops == 2);
}

TEST_CASE("dgx-b200-8 and gb200-nvl72: NVLink5, 900 GB/s per GPU and direction") {
  // 18 links x 50 GB/s = 900 GB/s per direction (1.8 TB/s bidirectional, datasheet).
  for (const char* name : {"dgx-b200-8", "gb200-nvl72"}) {
    INFO(name);
    const auto topo = test::preset(name);
    sim::Engine engine;
    sim::FluidNetwork net(engine);
    const topologies::Fabric fabric(topo, net);
    CHECK(fabric.injection_bandwidth(0) == sim::Bandwidth::GBps(900));
    CHECK(topologies::gpu_diameter(fabric.routing()).hops == 2);
  }
  const topologies::RoutingGraph nvl72(test::preset("gb200-nvl72"));
  // 36 senders x 900 GB/s through a non-blocking switch = 32.4 TB/s one way (half the 130 TB/s
  // NVIDIA quotes, which counts all 72 GPUs in both directions: 72 x 1.8 = 129.6 TB/s).
  CHECK(topologies::bisection_bandwidth(nvl72) == sim::Bandwidth::GBps(32'400));
}

TEST_CASE("hgx-h200-ib bisection is the NICs of one node") {
  // nodes = 2: GPUs 0-7 are node 0, 8-15 node 1. Node 0 sends only through its 8 NICs of
  // 400 Gb/s = 50 GB/s each: 400 GB/s (PCIe at 63 GB/s is not the bottleneck).
  CHECK(topologies::bisection_bandwidth(topologies::RoutingGraph(test::preset("hgx-h200-ib"))) ==
        sim::Bandwidth::GBps(400));
  // nodes = 4: GPUs 0-15 (nodes 0, 1) send to nodes 2, 3. Rail i's leaf takes 2 x 50 GB/s from
  // nodes 0, 1 and hands it straight to the 2 NICs of rail i in nodes 2, 3 (no spine needed), so
  // the 16 sending NICs are the cut: 16 x 50 = 800 GB/s.
  CHECK(topologies::bisection_bandwidth(topologies::RoutingGraph(
            test::preset("hgx-h200-ib", {{"nodes", 4}}))) == sim::Bandwidth::GBps(800));
  CHECK(topologies::gpu_diameter(topologies::RoutingGraph(test::preset("hgx-h200-ib"))).hops == 8);
}

TEST_CASE("nvl576 loads quickly and is non-blocking") {
  // Not a benchmark (see tests/bench): a generous bound that only catches a quadratic blow-up in
  // the loader or router (it takes about 0.1 s on the 2-core dev machine).
  const auto start = std::chrono::steady_clock::now();
  const auto topo = test::preset("nvl576");
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  const topologies::Fabric fabric(topo, net);
  for (int d = 1; d < fabric.gpu_count(); ++d) fabric.route(0, d);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 5.0);
  CHECK(topo.gpu_count() == 576);
  // 288 senders x 900 GB/s; the spine tier has one uplink per GPU link, so nothing is lower.
  CHECK(topologies::bisection_bandwidth(fabric.routing()) == sim::Bandwidth::GBps(259'200));
  CHECK(topologies::gpu_diameter(fabric.routing()).hops == 4);
}
