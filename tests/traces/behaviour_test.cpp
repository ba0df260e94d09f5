// Behaviour tests (issue 3): qualitative facts a GPU performance engineer expects, checked on the
// presets (hgx-h200-8, h200) with every expected number derived in a comment from the preset's
// figures. They pin mechanisms, not calibration: TMA vs ld/st windows, copy-engine latency,
// NVLS vs ring bytes, and the ordering roofline <= overlapped <= sequential for AG+GEMM.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "traces/roofline.hpp"
#include "traces/simulation.hpp"

using namespace mgsim;
using namespace mgsim::traces;

namespace {

using Defines = std::vector<std::pair<std::string, std::string>>;

Result run_on_hgx(const Schedule& s, const Defines& d = {}) {
  static const Machine machine = Machine::load("hgx-h200-8", {}, "h200");
  return simulate(s, param_values(s, d), machine);
}

Result run_text(const std::string& text, const Defines& d = {}) {
  return run_on_hgx(load_schedule(sim::Node::load_string(text, "behaviour.yaml")), d);
}

Result run_example(const std::string& relative, const Defines& d = {}) {
  return run_on_hgx(load_schedule_file(std::string(MGSIM_EXAMPLES_DIR) + "/" + relative), d);
}

// Bytes every GPU's NVLink trunk carried out of it (UnitKind::nvlink_out), all GPUs together.
std::int64_t nvlink_out_bytes(const Roofline& r) {
  std::int64_t sum = 0;
  for (const UnitTerm& t : r.terms)
    if (t.kind == models::UnitKind::nvlink_out) sum += t.amount;
  return sum;
}

// Rank 0 stores BYTES to rank 1 from CTAS CTAs (BYTES / CTAS each) by `via`; the result is the
// achieved rate in GB/s over the kernel (the launch cost excluded).
double push_rate_gbps(const std::string& via, int ctas) {
  const std::string text = R"(
params: {BYTES: 256MiB, CTAS: 1}
world: 2
kernels:
  push:
    grid: CTAS
    threads: 512
    roles:
      - name: main
        ops:
          - store: {bytes: BYTES / CTAS, peer: 1, via: )" +
                           via + R"(}
streams:
  - name: main
    if: rank == 0
    ops:
      - launch: push
)";
  const Result run = run_text(text, {{"CTAS", std::to_string(ctas)}});
  // h200 host.launch 4 us + launch.latency 2 us before the kernel's one round of CTAs starts
  // (models/presets/h200.yaml).
  const double seconds = (run.run.end.picoseconds() - 6'000'000) * 1e-12;
  return 256.0 * 1024 * 1024 / seconds / 1e9;
}

}  // namespace

TEST_CASE("preset h200: TMA fills NVLink from six SMs, ld/st needs about a dozen", "[behaviour]") {
  // Peer rates (models::peer_bandwidth): port 18 x 25 GB/s = 450 GB/s x protocol 0.8196
  //   TMA:   x 0.949    = 350.0 GB/s;      ld/st: x 0.929125 = 342.7 GB/s.
  // Latency of a peer store: HBM 600 ns + route 2 x 250 ns = 1.1 us.
  // Per-CTA window caps: TMA 8 messages x 227 KiB (232448 B) / 1.1 us = 1690 GB/s, but one SM's
  //   memory pipe moves sm.memory_rate = 245.6 GB/s of loads and a stored byte, by either path,
  //   takes sm.store_cost = 4 times a loaded one's share: 61.4 GB/s of stores, so TMA needs
  //   350 / 61.4 = 5.7 -> 6 SMs;
  //   ld/st 512 threads x 16 B x 4 = 32 KiB in flight, each slot held for the route's round trip
  //   (1 us): 32.8 GB/s (under the pipe's 61.4 GB/s), so ld/st needs 342.7 / 32.8 = 10.5 ->
  //   11 CTAs.
  // Fixed costs (1.1 us + 64 TMA issue cycles) are < 0.2 % of 256 MiB / 350 GB/s = 767 us.
  const double tma1 = push_rate_gbps("tma", 1);
  CHECK(tma1 == Approx(245.6 / 4).epsilon(0.01));
  CHECK(push_rate_gbps("tma", 5) == Approx(5 * 245.6 / 4).epsilon(0.01));
  const double tma6 = push_rate_gbps("tma", 6);
  CHECK(tma6 > 0.99 * 350.0);
  CHECK(tma6 <= 350.0);
  // One ld/st CTA: 32.8 GB/s; four: 131 GB/s (still window-bound); sixteen: the port.
  const double ldst1 = push_rate_gbps("ldst", 1);
  CHECK(ldst1 == Approx(32.768).epsilon(0.01));
  CHECK(push_rate_gbps("ldst", 4) == Approx(4 * 32.768).epsilon(0.01));
  const double ldst16 = push_rate_gbps("ldst", 16);
  CHECK(ldst16 > 0.99 * 342.7);
  CHECK(ldst16 <= 342.7);
  // "Several times more SMs": TMA at 6 CTAs already gets more than ld/st at 8 (8 x 32.8 = 262).
  CHECK(tma6 > push_rate_gbps("ldst", 8));
}

TEST_CASE("preset h200: a copy-engine transfer of a few KB is latency-bound", "[behaviour]") {
  // 4 KiB from rank 0 to rank 1: the host's call 3 us + setup 2 us + route 2 x 250 ns +
  // ceil(4096 B at the peer copy rate 0.8196 x 450 GB/s = 368819999999 B/s)
  // = 3'000'000 + 2'000'000 + 500'000 + 11106 = 5'511'106 ps.
  const Result run = run_text(R"(
world: 2
streams:
  - name: copy
    if: rank == 0
    ops:
      - memcpy: {bytes: 4KiB, dst: 1}
)");
  const std::int64_t end = run.run.end.picoseconds();
  CHECK(end == 5'511'106);
  // The bandwidth term is 11106 / 5511106 = 0.2 % of the time: effective 0.7 GB/s.
  const std::int64_t bandwidth_term = end - 5'500'000;
  CHECK(bandwidth_term * 100 < end);
  // The roofline ignores latency: the copy achieves under 1 % of its bound's rate.
  CHECK(run.roofline.fraction() < 0.01);
}

TEST_CASE("preset h200: an NVLS all-reduce sends fewer NVLink bytes than a ring", "[behaviour]") {
  // SIZE = 8 x 132 x 4096 B = 4325376 B, so that the NVLS kernel's CTAs (one per SM of 132) get
  // whole shares. Ring (NCCL's, forced): each GPU sends 2 x 7/8 x SIZE of data over its NVLink
  // trunk, 14 x SIZE in all (60555264 B). NCCL's tuner picks LL128 for its ring at this size, on
  // 24 channels: each channel moves SIZE / 8 / 24 = 22528 B per step as 128-byte lines of 120
  // data bytes, ceil(22528 x 16 / 15) = 24030 B, stored in whole 32-byte sectors: 24032 B; 8 ranks
  // x 14 steps x 24 channels x 24032 B = 64598016 B on the wire. NVLS
  // (examples/kernels/all_reduce_nvls.yaml): for each slice (SIZE / 8) all 8 GPUs, the owner
  // included, send their copy up to the switch once (ld_reduce) and the owner sends the sum up
  // once (multicast): 9 x SIZE / 8 per slice, 9 x SIZE in all (38928384 B): 0.60 of the ring's.
  const Defines size{{"SIZE", "4325376"}};
  const Result ring = run_text(R"(
params: {SIZE: 1MiB}
streams:
  - name: nccl
    ops: [{collective: {op: all_reduce, bytes: SIZE, dtype: float, algorithm: ring}}]
)",
                               size);
  const Result nvls = run_example("kernels/all_reduce_nvls.yaml", size);
  REQUIRE(ring.run.collectives.size() == 1);
  CHECK(ring.run.collectives[0].protocol == "LL128");
  CHECK(ring.run.collectives[0].channels == 24);
  CHECK(nvlink_out_bytes(ring.roofline) == 8 * 14 * 24 * 24032);
  CHECK(nvlink_out_bytes(nvls.roofline) == 9 * 4325376);
  // And it is faster: fewer bytes and one step instead of 2 x 7.
  CHECK(nvls.run.end < ring.run.end);
}

TEST_CASE(
    "preset h200: overlapped all-gather + GEMM is between its roofline and the sequential one",
    "[behaviour]") {
  // Same problem (M = 16384 gathered rows, N = K = 4096) three ways. The sequential version runs
  // the ring all-gather and then the GEMM; overlapping can only remove time, never add work.
  const Defines size{{"M", "16384"}, {"N", "4096"}, {"K", "4096"}};
  const Result sequential = run_example("field/ag_gemm_collective.yaml", size);
  const Result copy_engine = run_example("kernels/ag_gemm_copy_engine.yaml", size);
  const Result inter_sm = run_example("kernels/ag_gemm_inter_sm.yaml", size);
  for (const Result* overlapped : {&copy_engine, &inter_sm}) {
    CHECK(overlapped->run.blocked.empty());
    CHECK(overlapped->roofline.bound.picoseconds() <= overlapped->run.end.picoseconds());
    CHECK(overlapped->run.end < sequential.run.end);
  }
  // Each does the same GEMM: 2 x 16384 x 4096 x 4096 flops per rank on the tensor pipes, so
  // their compute terms match exactly.
  auto tensor_flops = [](const Roofline& r) {
    std::int64_t sum = 0;
    for (const UnitTerm& t : r.terms)
      if (t.kind == models::UnitKind::tensor_pipe) sum += t.amount;
    return sum;
  };
  const std::int64_t flops = std::int64_t{2} * 16384 * 4096 * 4096 * 8;
  CHECK(tensor_flops(sequential.roofline) == flops);
  CHECK(tensor_flops(copy_engine.roofline) == flops);
  CHECK(tensor_flops(inter_sm.roofline) == flops);
}

namespace {

// A compute-bound kernel: every SM computes `FLOPS` bf16 flops on its tensor pipe, REPS times.
std::string compute_kernel(const std::string& power) {
  return power + R"(
params: {FLOPS: 1000000000, REPS: 1}
kernels:
  k:
    grid: num_sms
    roles:
      - name: math
        ops: [compute: {flops: FLOPS, dtype: bf16}]
streams:
  - name: main
    if: rank == 0
    ops:
      - for: {var: i, from: 0, to: REPS, ops: [launch: k]}
)";
}

double end_us(const Result& r) { return r.run.end.since_start().microseconds(); }

}  // namespace

TEST_CASE("preset h200: a locked SM clock slows compute-bound work by the clock ratio",
          "[behaviour][power]") {
  // 1e9 bf16 flops on one SM at 4096 x 1.83 GHz take 133.4 us at sm.clock (1980 MHz); locked at
  // 990 MHz the tensor pipe runs at half that rate: 266.8 us, plus the same launch costs.
  const Result fast = run_text(compute_kernel("power: {clock: 1980}"));
  const Result slow = run_text(compute_kernel("power: {clock: 990}"));
  const double work_us = 1e9 / (4096.0 * 1.83e9) * 1e6;
  CHECK(end_us(slow) - end_us(fast) == Approx(work_us).epsilon(1e-3));
  CHECK(fast.run.clocks.empty());  // a locked clock has no governor
  CHECK_THROWS_AS(run_text(compute_kernel("power: {clock: 1981}")), sim::ConfigError);
}

TEST_CASE("preset h200: the power governor holds a sustained GEMM-like load at the limit",
          "[behaviour][power]") {
  // From idle, 8 ms of compute (all 132 SMs at 4096 x 1.83 GHz = 989 TFLOP/s: 137 W + 1.474 pJ x
  // 989e12 = 1595 W) ends long before the 90 ms average reaches 700 W: no GPU is capped.
  const Defines eight_ms{{"FLOPS", "60000000000"}};  // 8.0 ms per launch
  const Result cool = run_text(compute_kernel(""), eight_ms);
  REQUIRE(cool.run.clocks.size() == 8);
  CHECK(cool.run.clocks[0].capped == sim::Duration::zero());
  // From the limit, the clock x (a fraction of 1980 MHz) solves 137 + 1458 x^3 = 700: x = 0.728,
  // 1441 MHz; two launches, the second timed, run at it (the first step is at sm.clock).
  Defines twice = eight_ms;
  twice.emplace_back("REPS", "2");
  const Result hot = run_text(compute_kernel("power: {start: limit}"), twice);
  const ClockResult& c = hot.run.clocks[0];
  CHECK(c.capped > sim::Duration::ms(12));
  const double x = std::cbrt((700.0 - 137.0) / (1.474e-12 * 132 * 4096 * 1.83e9));
  CHECK(static_cast<double>(c.min_clock.hertz()) == Approx(1.98e9 * x).epsilon(0.01));
  const auto& k = hot.run.kernels.back();
  const double second_us = (k.end - k.begin).microseconds();
  CHECK(second_us == Approx(8.0e3 / x).epsilon(0.02));
  // The schedule's start needs a power limit: b200 has none.
  const Schedule s =
      load_schedule(sim::Node::load_string(compute_kernel("power: {start: limit}"), "p.yaml"));
  static const Machine b200 = Machine::load("hgx-h200-8", {}, "b200");
  CHECK_THROWS_AS(simulate(s, param_values(s, {}), b200), sim::ConfigError);
}
