// Built-in presets: they load, and their headline figures follow from the datasheet numbers.
#include <catch2/catch.hpp>

#include "topologies/analysis.hpp"
#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

using namespace mgsim;

TEST_CASE("hgx-h200-8 summary") {
  const auto topo = topologies::load_topology("hgx-h200-8");
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
  CHECK(topologies::gpu_diameter(routing) == 2);
}
