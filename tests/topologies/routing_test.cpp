// Routing and the wired fabric on the HGX H200 preset and small hand-written topologies.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "topologies/analysis.hpp"
#include "topologies/fabric.hpp"
#include "topologies/topology.hpp"

using namespace mgsim;
using topologies::Fabric;

namespace {

std::vector<std::string> names(const sim::FluidNetwork& net, const Fabric::Route& r) {
  std::vector<std::string> out;
  for (auto id : r.resources) out.push_back(net.name(id));
  return out;
}

}  // namespace

TEST_CASE("hgx-h200-8: every GPU pair is two hops through the NVSwitch group") {
  const auto topo = topologies::load_topology("hgx-h200-8");
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  const Fabric fabric(topo, net);
  REQUIRE(fabric.gpu_count() == 8);
  // The 4 chips are one group, so one trunk per GPU and direction: 8 GPUs x 2 = 16 resources.
  CHECK(net.resource_count() == 16);
  const auto& r = fabric.route(0, 5);
  CHECK(names(net, r) == std::vector<std::string>{"gpu0->nvswitch", "nvswitch->gpu5"});
  // Two links of 250 ns each (preset's assumed latency), no switch latency declared.
  CHECK(r.latency == sim::Duration::ns(500));
  // The trunk carries all 18 lanes: 18 x 25 GB/s = 450 GB/s per direction.
  CHECK(net.capacity(r.resources[0]) == sim::Bandwidth::GBps(450));
  CHECK(fabric.injection_bandwidth(3) == sim::Bandwidth::GBps(450));
  CHECK(fabric.gpu_name(7) == "gpu7");
  CHECK(fabric.node_of(7) == 0);
  // Cached: the same object comes back.
  CHECK(&fabric.route(0, 5) == &r);
}
