// The host thread and the GPU's stream queue (models/host.hpp, models/launch.hpp,
// traces/executor.hpp): what the host's calls cost, how the GPU pipelines what they enqueue,
// synchronisation, graphs and the CTA dispatcher. Every expected time is derived in a comment.
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "models/hardware_loader.hpp"
#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "tests/traces/crossbar.hpp"
#include "tests/traces/recorder.hpp"
#include "traces/executor.hpp"

using namespace mgsim;
using namespace mgsim::traces;

namespace {

using sim::Duration;

// The H200 preset with round numbers for what these tests time: copies of 1000 B in local HBM
// take 2 us setup + 500 ns HBM latency + 1000 B read and 1000 B written at 100 GB/s (20 ns) =
// 2.52 us on the GPU.
models::HardwareSpec machine() {
  models::HardwareSpec hw = models::load_hardware("h200");
  hw.copy_engine.count = 4;
  hw.copy_engine.bandwidth = sim::Bandwidth::GBps(50);
  hw.copy_engine.setup = Duration::us(2);
  hw.hbm.latency = Duration::ns(500);
  hw.hbm.bandwidth = sim::Bandwidth::GBps(100);
  hw.host.memcpy = Duration::us(3);
  hw.host.launch = Duration::us(4);
  hw.host.event_record = Duration::us(1);
  hw.host.sync = Duration::us(1);
  hw.host.graph_launch = Duration::us(1);
  hw.launch.latency = Duration::us(2);
  hw.launch.gap = Duration::us(1);
  hw.launch.graph_node = Duration::ns(500);
  hw.launch.per_cta = Duration::ns(1);
  hw.launch.event = Duration::ns(1500);
  hw.host.event_record_untimed = Duration::ns(500);
  return hw;
}

RunResult run(const std::string& text, const models::HardwareSpec& hw = machine()) {
  const Schedule s = load_schedule(sim::Node::load_string(text, "h.yaml"));
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  test::Crossbar fabric(net, 2);
  return execute(s, param_values(s, {}), engine, net, fabric, hw);
}

const StreamResult& stream(const RunResult& r, int rank, const std::string& name) {
  for (const auto& s : r.streams)
    if (s.rank == rank && s.stream == name) return s;
  FAIL("no stream " << name << " on rank " << rank);
  return r.streams.front();
}

constexpr std::int64_t us(double v) { return static_cast<std::int64_t>(v * 1e6 + 0.5); }

// An empty kernel of GRID CTAs (its role runs on no CTA).
const char* kEmptyKernel = R"(
kernels:
  empty:
    grid: GRID
    threads: 128
    roles:
      - {name: none, if: cta < 0, ops: [{compute: {flops: 1}}]}
)";

}  // namespace

TEST_CASE("back-to-back copies pipeline at the host's rate, or at the GPU's when it is slower") {
  const char* text = R"(world: 1
streams:
  - name: s
    ops: [{for: {var: i, from: 0, to: 10, ops: [{memcpy: {bytes: 1000}}]}}]
)";
  // host.memcpy 3 us > 2.52 us on the GPU: copy k's call returns at 3(k+1) us and the idle GPU
  // runs it at once; the 10th ends at 30 + 2.52 us. The host's last call returned at 30 us.
  RunResult r = run(text);
  CHECK(stream(r, 0, "s").end.picoseconds() == us(32.52));
  CHECK(stream(r, 0, "s").host_end.picoseconds() == us(30));
  // host.memcpy 1 us < 2.52: the host runs ahead; the first copy starts at 1 us, the others
  // queue behind it: 1 + 10 x 2.52 = 26.2 us.
  models::HardwareSpec fast = machine();
  fast.host.memcpy = Duration::us(1);
  r = run(text, fast);
  CHECK(stream(r, 0, "s").end.picoseconds() == us(26.2));
  CHECK(stream(r, 0, "s").host_end.picoseconds() == us(10));
}

TEST_CASE("streams on one host thread are served in turn: two GPUs start one after the other") {
  const char* text = R"(world: 2
streams:
  - name: s
    host: 0
    ops: [{memcpy: {bytes: 1000}}]
)";
  // One thread: rank 0's call returns at 3 us, rank 1's at 6 us; each copy takes 2.52 us.
  RunResult r = run(text);
  CHECK(stream(r, 0, "s").end.picoseconds() == us(5.52));
  CHECK(stream(r, 1, "s").end.picoseconds() == us(8.52));
  // A thread per rank (the default): both at 3 + 2.52 us.
  r = run(R"(world: 2
streams: [{name: s, ops: [{memcpy: {bytes: 1000}}]}]
)");
  CHECK(stream(r, 1, "s").end.picoseconds() == us(5.52));
}

TEST_CASE("the first call after the host slept pays the wake-up, on the host and the GPU") {
  models::HardwareSpec hw = machine();
  hw.host.wake_1ms = Duration::us(10);
  hw.host.wake_100ms = Duration::us(30);
  hw.launch.wake_1ms = Duration::us(2);
  hw.launch.wake_100ms = Duration::us(6);
  auto end_of = [&hw](const std::string& ops) {
    const RunResult r = run(std::string("world: 1\nparams: {GRID: 1}\n") + kEmptyKernel +
                                "streams: [{name: s, ops: " + ops + "}]\n",
                            hw);
    REQUIRE(r.blocked.empty());
    return stream(r, 0, "s").end.picoseconds();
  };
  // Asleep 1 ms: the launch call takes 4 + 10 us (returns at 1014 us), the kernel starts 2 + 2
  // us later: 1018 us. Busy for 1 ms instead (delay): 1000 + 4 + 2 = 1006 us.
  CHECK(end_of("[sleep: 1ms, launch: empty]") == us(1018));
  CHECK(end_of("[delay: 1ms, launch: empty]") == us(1006));
  // 10 ms: one decade above 1 ms, halfway (in log time) to the 100 ms values: 20 us and 4 us.
  CHECK(end_of("[sleep: 10ms, launch: empty]") == us(10000 + 4 + 20 + 2 + 4));
  // 100 ms and beyond: the 100 ms values.
  CHECK(end_of("[sleep: 1s, launch: empty]") == us(1e6 + 4 + 30 + 2 + 6));
  // Only the first call after the sleep wakes up: the second call returns 4 us after the first,
  // at 1018 us, as the first kernel ends; it starts launch.latency (2 us) later, with no wake.
  CHECK(end_of("[sleep: 1ms, launch: empty, launch: empty]") == us(1020));
  // Below 1 ms the line goes on falling, 10 us per decade for the host: zero at 100 us, and it
  // stays zero for shorter sleeps.
  CHECK(models::wake_cost(Duration::us(100), hw.host.wake_1ms, hw.host.wake_100ms) ==
        Duration::zero());
  CHECK(models::wake_cost(Duration::us(10), hw.host.wake_1ms, hw.host.wake_100ms) ==
        Duration::zero());
  CHECK(models::wake_cost(Duration::zero(), hw.host.wake_1ms, hw.host.wake_100ms) ==
        Duration::zero());
}

TEST_CASE("a sync blocks the host until the stream is done, records mark the GPU's time") {
  const RunResult r = run(R"(world: 1
streams:
  - name: s
    ops:
      - record: a
      - memcpy: {bytes: 1000}
      - sync: stream
      - memcpy: {bytes: 1000}
      - record: b
)");
  // record a: the call returns at 1 us, the idle GPU marks it then. The copy's call returns at
  // 4 us and runs to 6.52; the sync returns host.sync later, at 7.52; the second copy's call
  // returns at 10.52 and runs to 13.04; record b's call returns at 11.52 and the GPU marks it
  // when the copy ahead of it is done, at 13.04.
  CHECK(stream(r, 0, "s").end.picoseconds() == us(13.04));
  CHECK(stream(r, 0, "s").host_end.picoseconds() == us(11.52));
  REQUIRE(r.recorded.size() == 2);
  CHECK(r.recorded[0].at.picoseconds() == us(1));
  CHECK(r.recorded[1].at.picoseconds() == us(13.04));
}

TEST_CASE("a sync holds its thread: a call another stream makes after it waits for its return") {
  const RunResult r = run(R"(world: 1
streams:
  - name: a
    ops: [{memcpy: {bytes: 1000}}, {sync: stream}]
  - name: b
    ops: [{memcpy: {bytes: 1000}}, {memcpy: {bytes: 1000}}]
)");
  // One thread: a's copy call [0, 3] us, b's first [3, 6]; a's sync is made at 3 us, so b's
  // second call (made at 6) waits behind it. The sync starts when the thread is free (6 us),
  // finds a's copy done (3 + 2.52 us) and returns host.sync later, at 7 us; b's second call
  // then runs [7, 10] and its copy ends at 12.52 us (its first ended at 8.52).
  CHECK(stream(r, 0, "a").host_end.picoseconds() == us(7));
  CHECK(stream(r, 0, "b").end.picoseconds() == us(12.52));
}

TEST_CASE("an isolated launch waits launch.latency, a queued one launch.gap, a graph node less") {
  auto end_of = [](const std::string& ops, const models::HardwareSpec& hw) {
    const RunResult r = run(std::string("world: 1\nparams: {GRID: 1}\n") + kEmptyKernel +
                                "streams: [{name: s, ops: " + ops + "}]\n",
                            hw);
    REQUIRE(r.blocked.empty());
    return stream(r, 0, "s").end.picoseconds();
  };
  // One launch: the call returns at 4 us, the kernel starts 2 us later and its one CTA does
  // nothing: 6 us.
  CHECK(end_of("[launch: empty]", machine()) == us(6));
  // Three launches with host.launch 0.1 us: the first starts at 0.1 + 2 = 2.1 us; the others
  // were queued by then and each starts launch.gap after the previous ends: 3.1, 4.1 us.
  models::HardwareSpec quick = machine();
  quick.host.launch = Duration::ns(100);
  CHECK(end_of("[launch: empty, launch: empty, launch: empty]", quick) == us(4.1));
  // A graph of three kernels: one call (1 us) enqueues them; the first starts 2 us later, the
  // next two launch.graph_node apart: 3, 3.5, 4 us.
  CHECK(end_of("[graph: [launch: empty, launch: empty, launch: empty]]", machine()) == us(4));
}

TEST_CASE("a timing event is written launch.event after the work before it, an untimed one not") {
  auto recorded = [](const std::string& streams) {
    const RunResult r =
        run(std::string("world: 1\nparams: {GRID: 1}\n") + kEmptyKernel + "streams:\n" + streams);
    REQUIRE(r.blocked.empty());
    std::vector<std::int64_t> at;
    for (const auto& e : r.recorded) at.push_back(e.at.picoseconds());
    return at;
  };
  // The kernel's call returns at 4 us and it runs at 6 us (empty). Record a's call returns at
  // 5 us, before the kernel ended: written launch.event after it, at 7.5 us; record b, after
  // a timing event, 1.5 us later again: 9 us.
  CHECK(recorded("  - {name: s, ops: [launch: empty, record: a, record: b]}\n") ==
        std::vector<std::int64_t>{us(7.5), us(9)});
  // An untimed event (its call [4, 4.5] us) costs the GPU nothing: marked as the kernel ahead
  // of it ends, at 6 us; the timing event after it (call returns at 5.5 us) is written
  // launch.event after the kernel, as the untimed one added no work: 7.5 us.
  CHECK(recorded("  - {name: s, ops: [launch: empty, {record: {event: a, timing: false}}, "
                 "record: b]}\n") == std::vector<std::int64_t>{us(6), us(7.5)});
  // Across streams (one host thread): s's kernel runs at 6 us, its untimed event x at 6 us
  // (call [4, 4.5]); t's wait (call [4.5, 5.5]) resumes then, and t's timing event (call
  // returns at 6.5 us) is written launch.event after the kernel that x followed: 7.5 us.
  CHECK(recorded("  - {name: s, ops: [launch: empty, {record: {event: x, timing: false}}]}\n"
                 "  - {name: t, ops: [wait: x, record: b]}\n") ==
        std::vector<std::int64_t>{us(6), us(7.5)});
  // After a copy, none: copy_engine.setup holds it (the copy's call returns at 3 us, it ends at
  // 5.52 us; the record's call returns at 4 us and waits for the copy only).
  CHECK(recorded("  - {name: s, ops: [memcpy: {bytes: 1000}, record: a]}\n") ==
        std::vector<std::int64_t>{us(5.52)});
}

TEST_CASE("the dispatcher starts a round of one CTA per SM every sm.count x per_cta") {
  const models::HardwareSpec hw = machine();
  const std::int64_t sms = hw.sm.count;
  const std::string grid = std::to_string(3 * sms);
  const RunResult r = run(std::string("world: 1\nparams: {GRID: ") + grid + "}\n" + kEmptyKernel +
                          "streams: [{name: s, ops: [launch: empty]}]\n");
  // 3 x sm.count CTAs: rounds at 6 us, 6 us + sm.count ns, 6 us + 2 sm.count ns; the empty
  // CTAs end as they start.
  CHECK(stream(r, 0, "s").end.picoseconds() == us(6) + 2 * sms * 1000);
}

TEST_CASE("an NCCL call costs the host its launch and two joins and NCCL's work per pair") {
  // One host thread drives both ranks (host: 0). Per rank and call: host.launch 4 us + 2 x
  // (event_record_untimed + stream_wait) + nccl_enqueue; all_to_all is a grouped send and
  // receive with each of the 2 ranks, one pair more than one task: + nccl_p2p_pair.
  models::HardwareSpec hw = machine();
  hw.host.event_record_untimed = Duration::ns(300);
  hw.host.stream_wait = Duration::ns(200);
  hw.host.nccl_enqueue = Duration::us(2);
  hw.host.nccl_p2p_pair = Duration::ns(700);
  auto call_cost = [&](const std::string& op) {
    const Schedule s = load_schedule(sim::Node::load_string(
        "world: 2\nstreams:\n  - name: c\n    host: 0\n    ops:\n      - collective: {op: " + op +
            ", bytes: 64KiB, dtype: float}\n",
        "h.yaml"));
    sim::Engine engine;
    test::Recorder rec;
    engine.set_trace(&rec);
    sim::FluidNetwork net(engine);
    test::Crossbar fabric(net, 2);
    execute(s, param_values(s, {}), engine, net, fabric, hw);
    // The host thread's slices: "process/thread ncclCollective begin end".
    std::vector<std::int64_t> costs;
    for (const std::string& line : rec.lines) {
      if (line.find(" ncclCollective ") == std::string::npos) continue;
      std::istringstream in(line.substr(line.find(" ncclCollective ") + 16));
      std::int64_t b = 0, e = 0;
      in >> b >> e;
      costs.push_back(e - b);
    }
    REQUIRE(costs.size() == 2);  // one call per rank, one after the other
    CHECK(costs[0] == costs[1]);
    return costs[0];
  };
  CHECK(call_cost("all_reduce") == us(4 + 2 * 0.5 + 2));
  CHECK(call_cost("all_gather") == us(4 + 2 * 0.5 + 2));
  CHECK(call_cost("all_to_all") == us(4 + 2 * 0.5 + 2 + 0.7));
}
