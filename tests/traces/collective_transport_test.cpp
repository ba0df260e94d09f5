// The ideal ring (traces/collective.hpp, transport sm_copies): each rank's part is a kernel
// (launch.latency after the rank's host calls) whose sends are SM-driven peer copies at the
// ld/st path's saturated peer rate, with no copy-engine setup; across NVLink domains, a ring per
// rail.
#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "models/hardware_loader.hpp"
#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "topologies/fabric.hpp"
#include "topologies/topology.hpp"
#include "traces/collective.hpp"
#include "traces/executor.hpp"
#include "traces/fabric_interconnect.hpp"
#include "traces/simulation.hpp"

using namespace mgsim;
using namespace mgsim::traces;

TEST_CASE("a 2-rank all_gather is one launch, one route latency and one ld/st-rate transfer") {
  const std::string text = R"(
world: 2
streams:
  - name: nccl
    ops:
      - collective: {op: all_gather, algorithm: ideal_ring, bytes: 128MiB, dtype: float}
)";
  const Schedule s = load_schedule(sim::Node::load_string(text, "ag.yaml"));
  const models::HardwareSpec hw = models::load_hardware("h200");
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  const Machine machine(topologies::load_topology("hgx-h200-8"), hw);  // NVLink rates resolved
  const topologies::Fabric fabric(machine.topology(), net);
  FabricInterconnect interconnect(fabric);
  const RunResult r = execute(s, param_values(s, {}), engine, net, interconnect, hw);
  REQUIRE(r.blocked.empty());
  // Each rank sends its 64 MiB segment to the other (one ring step), both directions at once
  // on separate link directions. The flow's cap is peer_bandwidth(ldst) = 450 GB/s x NVLink
  // protocol efficiency x ldst.nvlink_efficiency, below the port's copy cap (450 GB/s x protocol
  // efficiency) and the trunk's raw rate, so it sets the rate:
  //   end = the host's NCCL calls (host.launch + 2 x (event_record_untimed + stream_wait), each
  //   rank on its own thread) + launch.latency + route latency + ceil(64 MiB / peer_bandwidth).
  const sim::Bandwidth rate = models::peer_bandwidth(hw, models::PeerPath::ldst);
  CHECK(rate < models::peer_bandwidth(hw, models::PeerPath::copy_engine));
  const sim::Duration latency = interconnect.route(0, 1, 0).latency;
  const sim::Duration expected =
      hw.host.launch + (hw.host.event_record_untimed + hw.host.stream_wait) * 2 +
      hw.launch.latency + latency + sim::transfer_time(sim::Bytes::MiB(64), rate);
  CHECK(r.end.since_start() == expected);
}

namespace {

// The rail of rank r: its position among its domain's ranks (ranks of a domain are contiguous
// here).
int rail_of(const std::vector<int>& domain, int r) {
  int rail = 0;
  while (rail < r &&
         domain[static_cast<std::size_t>(r - rail - 1)] == domain[static_cast<std::size_t>(r)])
    ++rail;
  return rail;
}

}  // namespace

TEST_CASE(
    "rail_rings: one ring in one NVLink domain, across domains a ring per rail, each "
    "crossing on one rail") {
  CHECK(rail_rings(std::vector<int>{3, 3, 3, 3}) == std::vector<std::vector<int>>{{0, 1, 2, 3}});
  // Domains of different sizes: one ring in rank order.
  CHECK(rail_rings(std::vector<int>{0, 0, 1}) == std::vector<std::vector<int>>{{0, 1, 2}});
  for (const int domains : {2, 3, 4}) {
    CAPTURE(domains);
    const int g = 4;
    std::vector<int> domain;
    for (int d = 0; d < domains; ++d)
      for (int i = 0; i < g; ++i) domain.push_back(10 * d + 7);
    const int n = domains * g;
    const std::vector<std::vector<int>> rings = rail_rings(domain);
    REQUIRE(rings.size() == static_cast<std::size_t>(g));
    // Per boundary (the domain left), the rails the rings cross on.
    std::vector<std::vector<int>> rails_at(static_cast<std::size_t>(domains));
    for (const std::vector<int>& ring : rings) {
      std::vector<int> sorted = ring;
      std::ranges::sort(sorted);
      for (int r = 0; r < n; ++r) REQUIRE(sorted[static_cast<std::size_t>(r)] == r);
      for (int p = 0; p < n; ++p) {
        const int a = ring[static_cast<std::size_t>(p)];
        const int b = ring[static_cast<std::size_t>((p + 1) % n)];
        if (domain[static_cast<std::size_t>(a)] == domain[static_cast<std::size_t>(b)]) continue;
        const bool wrap = p == n - 1;
        // Every boundary on one rail, but the odd count's wrap back to the first domain.
        if (!wrap || domains % 2 == 0) CHECK(rail_of(domain, a) == rail_of(domain, b));
        rails_at[static_cast<std::size_t>(a / g)].push_back(rail_of(domain, a));
      }
    }
    // Each ring leaves each domain once, and the rings leave it on different rails.
    for (std::vector<int>& rails : rails_at) {
      std::ranges::sort(rails);
      CHECK(rails == std::vector<int>{0, 1, 2, 3});
    }
  }
}

TEST_CASE("an ideal ring all-reduce across nodes runs at its rails' rate, flat in the nodes") {
  const Schedule s = load_schedule(sim::Node::load_string(R"(
streams:
  - name: nccl
    ops: [{collective: {op: all_reduce, algorithm: ideal_ring, bytes: 1GiB, dtype: float}}]
)",
                                                          "ar.yaml"));
  const auto time_on = [&](int nodes) {
    const Machine m = Machine::load("hgx-h200-ib", {{"nodes", nodes}}, "h200");
    const Result r = simulate(s, param_values(s, {}), m);
    REQUIRE(r.run.blocked.empty());
    return r.run.end.since_start();
  };
  const sim::Duration one_node = time_on(1);
  for (const int nodes : {2, 4}) {
    CAPTURE(nodes);
    // 8 rings of 1 GiB / 8; a ring's edge carries 2 (n - 1) segments of its part / n, and each
    // node boundary is one ring's edge on each of its 8 rails: NIC c (400 Gb/s = 50 GB/s) carries
    // 2 (n - 1) / n x 128 MiB.
    const int n = 8 * nodes;
    const double nic_s = 2.0 * (n - 1) / n * double(1 << 27) / 50e9;
    const double t = time_on(nodes).seconds();
    CHECK(t >= nic_s);
    CHECK(t <= 1.01 * nic_s);
    // Within a node the NVLink ring is no faster: the network adds little (one ring's edge on a
    // rail's NIC), where one ring through one NIC was 7x slower.
    CHECK(t <= 1.1 * one_node.seconds());
  }
}
