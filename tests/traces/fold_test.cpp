// Symmetric ranks simulated once (traces/simulation.hpp, topologies/symmetry.hpp): which fabrics
// and schedules fold, and that a folded run predicts what the whole run predicts, to the
// picosecond, or runs whole where the symmetry does not hold.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "models/hardware_loader.hpp"
#include "sim/config.hpp"
#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "topologies/fabric.hpp"
#include "topologies/symmetry.hpp"
#include "traces/simulation.hpp"

using namespace mgsim;
using namespace mgsim::traces;

namespace {

// `nodes` nodes of two GPUs on a node switch, each GPU with a NIC on one shared network switch;
// node 2's NVLink is SLOW ns slower.
const char* kTwoPerNode = R"(name: two-per-node
gpu: h200
params: {nodes: 4, SLOW: 0}
vertices:
  - {name: "n{n}.gpu{i}", kind: gpu, repeat: {n: nodes, i: 2}, node: n}
  - {name: "n{n}.sw", kind: nvswitch, repeat: {n: nodes}, node: n}
  - {name: "n{n}.nic{i}", kind: nic, repeat: {n: nodes, i: 2}, node: n}
  - {name: ib, kind: ib_switch}
links:
  - {from: "n{n}.gpu{i}", to: "n{n}.sw", repeat: {n: nodes, i: 2}, kind: nvlink,
     bandwidth: 450GB/s, latency: 250 + SLOW * (n == 2) ns}
  - {from: "n{n}.gpu{i}", to: "n{n}.nic{i}", repeat: {n: nodes, i: 2}, kind: pcie,
     bandwidth: 63GB/s, latency: 100ns}
  - {from: "n{n}.nic{i}", to: ib, repeat: {n: nodes, i: 2}, kind: ib, bandwidth: 50GB/s,
     latency: 300ns}
)";

std::optional<topologies::Translation> translation(const topologies::Topology& topo, int shift) {
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  const topologies::Fabric fabric(topo, net);
  return topologies::node_translation(fabric.routing(), shift);
}

Result run(const std::string& text, const Machine& machine, const Overrides& d = {},
           bool every_rank = false) {
  const Schedule s = load_schedule(sim::Node::load_string(text, "fold.yaml"));
  return simulate(s, param_values(s, d), machine, nullptr, {}, {.every_rank = every_rank});
}

// Each stream ended when it did in the whole run, and each event was reached then.
void require_same_streams(const RunResult& folded, const RunResult& whole) {
  REQUIRE(folded.streams.size() == whole.streams.size());
  for (std::size_t i = 0; i < whole.streams.size(); ++i) {
    INFO("stream " << i);
    CHECK(folded.streams[i].rank == whole.streams[i].rank);
    CHECK(folded.streams[i].end == whole.streams[i].end);
    CHECK(folded.streams[i].host_end == whole.streams[i].host_end);
    CHECK(folded.streams[i].ops == whole.streams[i].ops);
  }
  REQUIRE(folded.recorded.size() == whole.recorded.size());
  for (std::size_t i = 0; i < whole.recorded.size(); ++i)
    CHECK(folded.recorded[i].at == whole.recorded[i].at);
}

// The folded run and the whole run agree on every time they report.
void require_same(const Result& folded, const Result& whole) {
  REQUIRE(whole.run.simulated == whole.run.world);
  REQUIRE(folded.run.world == whole.run.world);
  CHECK(folded.run.end == whole.run.end);
  require_same_streams(folded.run, whole.run);
  REQUIRE(folded.run.collectives.size() == whole.run.collectives.size());
  for (std::size_t i = 0; i < whole.run.collectives.size(); ++i) {
    CHECK(folded.run.collectives[i].begin == whole.run.collectives[i].begin);
    CHECK(folded.run.collectives[i].end == whole.run.collectives[i].end);
    CHECK(folded.run.collectives[i].sends == whole.run.collectives[i].sends);
  }
  CHECK(folded.roofline.bound == whole.roofline.bound);
  REQUIRE(folded.roofline.bottleneck() != nullptr);
  CHECK(folded.roofline.bottleneck()->time == whole.roofline.bottleneck()->time);
}

// Two streams per rank: a collective on each, joined by an event, around host delays and a local
// copy, ITERS times, then a sync.
const char* kMixed = R"(params: {SIZE: 64MiB, OP: 0, ITERS: 2}
streams:
  - name: a
    ops:
      - for:
          var: i
          from: 0
          to: ITERS
          ops:
          - {if: OP == 0, collective: {op: all_reduce, bytes: SIZE, algorithm: ideal_ring, chunk: 2MiB}}
          - {if: OP == 1, collective: {op: all_gather, bytes: SIZE, algorithm: ideal_ring}}
          - {if: OP == 2, collective: {op: reduce_scatter, bytes: SIZE, algorithm: ideal_ring}}
          - record: {event: done, index: i}
          - delay: 3us
          - memcpy: {bytes: 1MiB}
      - sync: device
  - name: b
    ops:
      - for:
          var: i
          from: 0
          to: ITERS
          ops:
          - wait: {event: done, index: i}
          - collective: {op: all_reduce, bytes: SIZE / 4, algorithm: ideal_ring}
)";

}  // namespace

TEST_CASE("a node translation moves every node onto the next with its links and ranks") {
  const Machine machine = Machine::load("hgx-h200-ib", {{"nodes", 4}}, "h200");
  const topologies::Topology& ib = machine.topology();
  const auto one = translation(ib, 1);
  REQUIRE(one);
  CHECK(one->period == 8);
  const auto two = translation(ib, 2);
  REQUIRE(two);
  CHECK(two->period == 16);
  CHECK_FALSE(translation(ib, 3));  // 4 nodes do not fall into groups of 3
  CHECK_FALSE(translation(ib, 4));  // the identity: nothing folds

  // Every arc of node 3 stands in for by node 1's (shift 2); leaf-spine arcs stay put.
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  const topologies::Fabric fabric(ib, net);
  const topologies::RoutingGraph& g = fabric.routing();
  int shared = 0;
  for (std::size_t a = 0; a < g.arcs().size(); ++a) {
    const int s = two->arc_stand_in[a];
    const int from = g.arcs()[a].from;
    if (s < 0) {
      ++shared;
      CHECK(g.node(from) < 0);
      CHECK(g.node(g.arcs()[a].to) < 0);
      continue;
    }
    const int node = g.node(from) >= 0 ? g.node(from) : g.node(g.arcs()[a].to);
    const topologies::RoutingGraph::Arc& stand_in = g.arcs()[static_cast<std::size_t>(s)];
    const int stand_node = g.node(stand_in.from) >= 0 ? g.node(stand_in.from) : g.node(stand_in.to);
    CHECK(stand_node == node % 2);
    CHECK(stand_in.bandwidth == g.arcs()[a].bandwidth);
  }
  CHECK(shared == 2 * 8 * 4);  // 8 leaves x 4 spines, both ways

  // A node unlike the others breaks every translation; without nodes there is none.
  const auto slow = topologies::load_topology_text(kTwoPerNode, "t.yaml", {{"SLOW", 50}});
  CHECK_FALSE(translation(slow, 1));
  CHECK_FALSE(translation(slow, 2));
  const auto even = topologies::load_topology_text(kTwoPerNode, "t.yaml");
  CHECK(translation(even, 1));
  CHECK_FALSE(translation(Machine::load("hgx-h200-8", {}, "h200").topology(), 1));
}

TEST_CASE("a machine folds by the smallest translation that keeps the rail rings") {
  // Rail rings run up the rails in even nodes and down in odd ones: two nodes repeat.
  const Machine ib = Machine::load("hgx-h200-ib", {{"nodes", 4}}, "h200");
  REQUIRE(ib.symmetry());
  CHECK(ib.symmetry()->shift == 2);
  CHECK(ib.symmetry()->period == 16);
  CHECK_FALSE(Machine::load("hgx-h200-8", {}, "h200").symmetry());
  // NVL72: every tray on one switch group, so a tray moves onto the next.
  const Machine nvl72 = Machine::load("gb200-nvl72", {}, "");
  REQUIRE(nvl72.symmetry());
  CHECK(nvl72.symmetry()->period == 4);
  CHECK_FALSE(Machine::load("hgx-h200-ib", {{"nodes", 3}}, "h200").symmetry());  // odd wraps
}

TEST_CASE("a folded run predicts the whole run to the picosecond") {
  const Machine machine = Machine::load("hgx-h200-ib", {{"nodes", 4}}, "h200");
  for (const char* op : {"0", "1", "2"}) {
    INFO("OP " << op);
    const Result folded = run(kMixed, machine, {{"OP", op}});
    CHECK(folded.run.simulated == 16);
    CHECK(folded.run.world == 32);
    const Result whole = run(kMixed, machine, {{"OP", op}}, true);
    require_same(folded, whole);
    CHECK(folded.run.events * 3 / 2 < whole.run.events);  // half the ranks, fewer events
  }
  const Machine six = Machine::load("hgx-h200-ib", {{"nodes", 6}}, "h200");
  const Overrides d = {{"ITERS", "1"}, {"SIZE", "48MiB"}};  // equal segments over 48 ranks
  const Result folded = run(kMixed, six, d);
  CHECK(folded.run.simulated == 16);
  CHECK(folded.run.unfolded.empty());
  require_same(folded, run(kMixed, six, d, true));

  const Machine nvl72 = Machine::load("gb200-nvl72", {}, "");
  const Overrides f = {{"ITERS", "1"}, {"SIZE", "72MiB"}};
  const Result trays = run(kMixed, nvl72, f);
  CHECK(trays.run.simulated == 4);
  require_same(trays, run(kMixed, nvl72, f, true));

  // Two NVL72 racks under a second switch tier: one ring over 144 GPUs, the racks repeat.
  const Machine racks = Machine::load("nvl576", {{"racks", 2}}, "");
  REQUIRE(racks.symmetry());
  CHECK(racks.symmetry()->period == 72);
  const Overrides e = {{"ITERS", "1"}, {"SIZE", "36MiB"}};
  const Result two = run(kMixed, racks, e);
  CHECK(two.run.simulated == 72);
  require_same(two, run(kMixed, racks, e, true));
}

TEST_CASE("a folded run runs local kernels beside the collectives") {
  // A persistent GEMM on every SM, then a reduce-scatter of its output (ideal ring).
  const Schedule s = load_schedule_file(std::string(MGSIM_EXAMPLES_DIR) + "/sweeps/gemm_rs.yaml");
  REQUIRE(s.same_program);
  const Env params = param_values(s, {{"K", "1024"}});
  const Machine ib = Machine::load("hgx-h200-ib", {{"nodes", 4}}, "h200");
  const Result folded = simulate(s, params, ib);
  CHECK(folded.run.simulated == 16);
  const Result whole = simulate(s, params, ib, nullptr, {}, {.every_rank = true});
  require_same(folded, whole);
  REQUIRE(folded.run.kernels.size() == whole.run.kernels.size());
  for (std::size_t i = 0; i < whole.run.kernels.size(); ++i) {
    CHECK(folded.run.kernels[i].begin == whole.run.kernels[i].begin);
    CHECK(folded.run.kernels[i].end == whole.run.kernels[i].end);
  }
}

TEST_CASE("where the symmetry does not hold every rank runs") {
  const Machine machine = Machine::load("hgx-h200-ib", {{"nodes", 4}}, "h200");
  SECTION("segments of unequal sizes") {
    // 64 MiB + 32 bytes over 8 rings of 32 ranks: some segments are a byte larger.
    const Overrides d = {{"SIZE", "67108896"}, {"ITERS", "1"}};
    const Result r = run(kMixed, machine, d);
    CHECK(r.run.simulated == 32);
    CHECK(r.run.unfolded == "a ring's 8388612 bytes make segments of unequal sizes over 32 ranks");
    require_same(r, run(kMixed, machine, d, true));
  }
  SECTION("routes with an equal-cost choice") {
    // all_to_all crosses rails: leaf to leaf through any spine.
    const char* text = R"(streams:
  - name: s
    ops:
      - collective: {op: all_to_all, bytes: 32MiB, algorithm: ideal_ring}
)";
    const Result r = run(text, machine);
    CHECK(r.run.simulated == 32);
    CHECK(r.run.unfolded == "GPU 1 to 8 has equal-cost routes");
    require_same(r, run(text, machine, {}, true));
  }
  SECTION("a schedule that names ranks") {
    const char* text = R"(streams:
  - name: s
    ops:
      - {if: rank == 0, delay: 5us}
      - collective: {op: all_reduce, bytes: 32MiB, algorithm: ideal_ring}
)";
    const Result r = run(text, machine);
    CHECK(r.run.simulated == 32);
    CHECK(r.run.unfolded.empty());  // never tried
  }
}

TEST_CASE("a schedule runs one program on every rank only when nothing names a rank") {
  const auto same = [](const std::string& ops) {
    return load_schedule(
               sim::Node::load_string("streams:\n  - name: s\n    ops:\n" + ops, "s.yaml"))
        .same_program;
  };
  CHECK(same("      - collective: {op: all_reduce, bytes: 1MiB, algorithm: ideal_ring}\n"));
  CHECK(same(
      "      - {for: {var: i, from: 0, to: 3, ops: [{memcpy: {bytes: 1MiB}}, {delay: 1us}]}}\n"));
  CHECK_FALSE(same("      - {delay: 1us, if: rank == 1}\n"));
  CHECK_FALSE(same("      - {for: {var: i, from: 0, to: rank, ops: [{delay: 1us}]}}\n"));
  CHECK_FALSE(same("      - memcpy: {bytes: 1MiB, dst: 1}\n"));
  CHECK_FALSE(same("      - collective: {op: broadcast, bytes: 1MiB}\n"));
  CHECK_FALSE(same("      - collective: {op: all_reduce, bytes: 1MiB}\n"));  // NCCL's kernels
  CHECK_FALSE(
      load_schedule(sim::Node::load_string(
                        "streams:\n  - {name: s, host: 0, ops: [{delay: 1us}]}\n", "s.yaml"))
          .same_program);
  // Kernels: local ones only.
  const auto kernel = [](const std::string& op) {
    return load_schedule(sim::Node::load_string("kernels:\n  k:\n    grid: 4\n    roles:\n"
                                                "      - {name: r, ops: [" +
                                                    op +
                                                    "]}\n"
                                                    "streams:\n  - {name: s, ops: [launch: k]}\n",
                                                "k.yaml"))
        .same_program;
  };
  CHECK(kernel("{load: {bytes: 1MiB}}"));
  CHECK_FALSE(kernel("{load: {bytes: 1MiB, peer: 1}}"));
  CHECK_FALSE(kernel("{load: {bytes: rank * 1MiB + 1MiB}}"));
  CHECK_FALSE(kernel("{signal: {flag: f, rank: 0, value: 1}}"));
}
