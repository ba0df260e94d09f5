// Collectives as NCCL runs them (traces/collective.hpp, transport sm_copies): each rank's part is
// a kernel (launch.latency after the rank's host calls) whose sends are SM-driven peer copies
// at the ld/st path's saturated peer rate, with no copy-engine setup.
#include <string>

#include <catch2/catch.hpp>

#include "models/hardware_loader.hpp"
#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "topologies/fabric.hpp"
#include "topologies/topology.hpp"
#include "traces/executor.hpp"
#include "traces/fabric_interconnect.hpp"

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
  const topologies::Fabric fabric(topologies::load_topology("hgx-h200-8"), net);
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
