// Kernel execution on the toy machine of kernel_fixture.hpp: every expected picosecond count is
// derived in a comment before its assertion.
#include <algorithm>
#include <cstdlib>
#include <set>
#include <span>

#include <catch2/catch.hpp>

#include "kernel_fixture.hpp"
#include "recorder.hpp"
#include "sim/trace.hpp"

using namespace mgsim;
using namespace mgsim::test;

namespace {

// One kernel `k` with the given roles YAML, launched once by stream `s` on every rank.
std::string one_kernel(const std::string& grid, const std::string& roles, int world = 1,
                       const std::string& extra = "") {
  return "world: " + std::to_string(world) + "\n" + extra + "kernels:\n  k:\n    grid: " + grid +
         "\n    threads: 2048\n    roles:\n" + roles +
         "streams:\n  - name: s\n    ops: [{launch: k}]\n";
}

}  // namespace

TEST_CASE("a grid larger than the SMs runs in waves") {
  // 8 CTAs of 2048 threads: 1 per SM on 4 SMs, so 2 waves. Each CTA: 2*100*100*100 = 2e6 flops
  // at 1e12 flops/s = 2 us. 1 us launch + 2 x 2 us = 5 us.
  const auto r =
      run_kernels(one_kernel("8", "      - {name: math, ops: [{mma: {m: 100, n: 100, k: 100}}]}\n"),
                  1, toy_device(4));
  REQUIRE(r.result.blocked.empty());
  CHECK(stream_end(r.result, 0, "s") == 5'000'000);
  // 264 CTAs on 132 SMs is 2 waves as well: 1 us + 2 x 2 us.
  const auto big = run_kernels(
      one_kernel("264", "      - {name: math, ops: [{mma: {m: 100, n: 100, k: 100}}]}\n"), 1,
      toy_device(132));
  CHECK(stream_end(big.result, 0, "s") == 5'000'000);
}

TEST_CASE("two roles of one CTA share the SM's tensor pipe") {
  // Alone, 2e6 flops take 2 us (1 us launch + 2 us = 3 us). Two roles each with 2e6 flops on
  // the same SM get 0.5e12 flops/s each: both end after 4 us, at 5 us.
  const auto alone =
      run_kernels(one_kernel("1", "      - {name: a, ops: [{mma: {m: 100, n: 100, k: 100}}]}\n"), 1,
                  toy_device());
  CHECK(stream_end(alone.result, 0, "s") == 3'000'000);
  const auto shared =
      run_kernels(one_kernel("1",
                             "      - {name: a, ops: [{mma: {m: 100, n: 100, k: 100}}]}\n"
                             "      - {name: b, ops: [{mma: {m: 100, n: 100, k: 100}}]}\n"),
                  1, toy_device());
  CHECK(stream_end(shared.result, 0, "s") == 5'000'000);
  // fp8 runs at twice the bf16 rate: 2e6 fp8 flops count as 1e6 bf16-equivalent: 1 us + 1 us.
  const auto fp8 = run_kernels(
      one_kernel("1", "      - {name: a, ops: [{mma: {m: 100, n: 100, k: 100, dtype: fp8}}]}\n"), 1,
      toy_device());
  CHECK(stream_end(fp8.result, 0, "s") == 2'000'000);
}

TEST_CASE("a peer TMA load costs issue + latency + bytes at the port") {
  // L = 500 ns HBM + 1 us route = 1.5 us; issue 64 cycles at 1 GHz = 64 ns. The CTA's cap is
  // 8 x 227 KiB / 1.5 us ~ 1.24 TB/s, above the 100 GB/s ports, so 1e6 B take 10 us.
  // 1 us launch + 64 ns + 1.5 us + 10 us = 12.564 us.
  const auto r = run_kernels(
      one_kernel("1",
                 "      - {name: l, if: rank == 0, ops: [{load: {bytes: 1000000, peer: 1}}]}\n", 2),
      2, toy_device());
  REQUIRE(r.result.blocked.empty());
  CHECK(stream_end(r.result, 0, "s") == 12'564'000);
}

TEST_CASE("a load's working set decides how much of it hits the L2") {
  // Local TMA load of 1e6 B, issue 64 ns, 1 us launch. The toy L2 holds 50e6 B (L2Spec default).
  // No working set: all from HBM: L = 500 ns, 1e6 B at 1000 GB/s = 1 us: 1 + 0.064 + 0.5 + 1.
  auto local = [](const std::string& extra) {
    return run_kernels(
        one_kernel("1", "      - {name: l, ops: [{load: {bytes: 1000000" + extra + "}}]}\n"), 1,
        toy_device());
  };
  CHECK(stream_end(local("").result, 0, "s") == 2'564'000);
  // Working set 1e6 B fits: every byte hits: L = 100 ns, 1e6 B at the L2's 100 GB/s = 10 us
  // (the cap, 8 x 227 KiB / 100 ns, is far above): 1 + 0.064 + 0.1 + 10 = 11.164 us.
  CHECK(stream_end(local(", working_set: 1000000").result, 0, "s") == 11'164'000);
  // Working set 100e6 B, twice the L2: half hits. L = 0.5 x 100 + 0.5 x 500 = 300 ns; the hits,
  // 5e5 B at 100 GB/s = 5 us, then the misses, 5e5 B at 1000 GB/s = 0.5 us:
  // 1 + 0.064 + 0.3 + 5 + 0.5 = 6.864 us.
  CHECK(stream_end(local(", working_set: 100000000").result, 0, "s") == 6'864'000);
  // A peer's data hits in the peer's L2 and crosses the port (both 100 GB/s): L = 100 ns + 1 us
  // route; 1 + 0.064 + 1.1 + 10 = 12.164 us.
  const auto peer = run_kernels(
      one_kernel("1",
                 "      - {name: l, if: rank == 0, ops: [{load: {bytes: 1000000, peer: 1, "
                 "working_set: 1000000}}]}\n",
                 2),
      2, toy_device());
  CHECK(stream_end(peer.result, 0, "s") == 12'164'000);
}

TEST_CASE("a TMA store-add is applied by the destination's L2 at its own peer rate") {
  auto device = [](double reduce_efficiency, std::int64_t reduction_gbps) {
    models::HardwareSpec hw = toy_device();
    hw.tma.reduce_efficiency = reduce_efficiency;
    hw.l2.reduction_bandwidth = sim::Bandwidth::GBps(reduction_gbps);
    hw.l2.bandwidth = sim::Bandwidth::GBps(100'000);  // which a local store crosses: not binding
    return hw;  // the SM's memory pipe (the toy's 100000 GB/s) does not bind
  };
  auto store = [](const std::string& fields, int world, const models::HardwareSpec& d) {
    return stream_end(
        run_kernels(one_kernel("1",
                               "      - {name: s, if: rank == 0, ops: [{store: {bytes: 1000000" +
                                   fields + "}}]}\n",
                               world),
                    world, d)
            .result,
        0, "s");
  };
  // Local, L2 reduction at 50 GB/s: 1e6 B over [HBM 1000 GB/s (twice), L2 reduce 50 GB/s] = 20 us;
  // L = 500 ns HBM, issue 64 ns: 1 + 0.064 + 0.5 + 20 = 21.564 us. A plain store: 1 us of HBM.
  CHECK(store(", add: true", 1, device(1.0, 50)) == 21'564'000);
  CHECK(store("", 1, device(1.0, 50)) == 2'564'000);
  // With the reduction fast (1000 GB/s), the HBM binds: read and write, 2e6 B at 1000 GB/s = 2 us:
  // 1 + 0.064 + 0.5 + 2 = 3.564 us.
  CHECK(store(", add: true", 1, device(1.0, 1000)) == 3'564'000);
  // To a peer, reduce_efficiency 0.5: the store-add ports run at 100 GB/s x 0.5 = 50 GB/s
  // (the L2 reduction, 1000 GB/s, does not bind): 20 us; L = 500 ns + 1 us route:
  // 1 + 0.064 + 1.5 + 20 = 22.564 us. A plain peer store: 10 us at the 100 GB/s ports.
  CHECK(store(", peer: 1, add: true", 2, device(0.5, 1000)) == 22'564'000);
  CHECK(store(", peer: 1", 2, device(0.5, 1000)) == 12'564'000);
}

TEST_CASE("a signal reaches a peer after the route latency") {
  // Both ranks' kernels start at 1 us; rank 0 signals rank 1 at once; the write lands after the
  // 1 us route latency, so rank 1's wait (on its own memory) ends at 2 us, and rank 0's kernel,
  // whose role went on at once, ends when its write has landed: 2 us too.
  const auto r = run_kernels(
      one_kernel(
          "1",
          "      - {name: tx, if: rank == 0, ops: [{signal: {flag: f, rank: 1, value: 1}}]}\n"
          "      - {name: rx, if: rank == 1, ops: [{wait: {flag: f, value: 1}}]}\n",
          2),
      2, toy_device());
  REQUIRE(r.result.blocked.empty());
  CHECK(stream_end(r.result, 0, "s") == 2'000'000);
  CHECK(stream_end(r.result, 1, "s") == 2'000'000);
}

// The flag and fence costs of models/sync.hpp with round numbers.
models::HardwareSpec sync_device() {
  models::HardwareSpec hw = toy_device();
  hw.sync.flag_latency = sim::Duration::ns(300);
  hw.sync.remote_poll = sim::Duration::ns(200);
  hw.sync.atomic = sim::Duration::ns(60);
  hw.sync.atomic_interval = sim::Duration::ns(100);
  hw.sync.fence_gpu = sim::Duration::ns(200);
  hw.sync.fence_system = sim::Duration::ns(500);
  hw.sync.fence_far = sim::Duration::ns(100);
  // A CTA's warps fence in one round here (the warps test sets rounds of its own).
  hw.sync.fence_gpu_round = sim::Duration::zero();
  hw.sync.fence_system_round = sim::Duration::zero();
  return hw;
}

// The end of a 2-CTA kernel whose CTA `tx` signals a flag with a system-scope release and whose
// CTA `rx` waits for it.
std::int64_t release_then_wait(int tx, int rx, const models::HardwareSpec& hw) {
  const auto r = run_kernels(
      one_kernel("2", "      - {name: tx, if: cta == " + std::to_string(tx) +
                          ", ops: [{signal: {flag: f, value: 1, order: release, scope: system}}]}\n"
                          "      - {name: rx, if: cta == " +
                          std::to_string(rx) + ", ops: [{wait: {flag: f, value: 1}}]}\n"),
      1, hw);
  REQUIRE(r.result.blocked.empty());
  return stream_end(r.result, 0, "s");
}

TEST_CASE("a flag is seen flag_latency after a store on its GPU, later when polled from a peer") {
  // One GPU: CTA 0 fences (200 ns) and stores at 1.2 us; CTA 1, polling the same GPU's flag
  // since 1 us, sees it 300 ns later: 1.5 us.
  auto r = run_kernels(
      one_kernel("2",
                 "      - {name: tx, if: cta == 0, ops: [{fence: {scope: gpu}}, {signal: {flag: "
                 "f, value: 1}}]}\n"
                 "      - {name: rx, if: cta == 1, ops: [{wait: {flag: f, value: 1}}]}\n"),
      1, sync_device());
  REQUIRE(r.result.blocked.empty());
  CHECK(stream_end(r.result, 0, "s") == 1'500'000);
  // Rank 0 stores into its own flag at 1.2 us; rank 1 polls it over the fabric: the route's 1 us
  // plus remote_poll 200 ns: 2.4 us.
  r = run_kernels(
      one_kernel("1",
                 "      - {name: tx, if: rank == 0, ops: [{fence: {scope: gpu}}, {signal: {flag: "
                 "f, value: 1}}]}\n"
                 "      - {name: rx, if: rank == 1, ops: [{wait: {flag: f, rank: 0, value: 1, "
                 "order: acquire}}]}\n",
                 2),
      2, sync_device());
  REQUIRE(r.result.blocked.empty());
  CHECK(stream_end(r.result, 1, "s") == 2'400'000);
}

TEST_CASE("fences hold the role, a release store fences first, atomics to one flag serialise") {
  // A gpu-scope fence: 1 us + 200 ns.
  auto r = run_kernels(one_kernel("1", "      - {name: f, ops: [{fence: {scope: gpu}}]}\n"), 1,
                       sync_device());
  CHECK(stream_end(r.result, 0, "s") == 1'200'000);
  // A release at system scope to rank 1: the role fences 500 ns, then the store lands after the
  // 1 us route: rank 1's wait on its own flag ends at 2.5 us, and so does rank 0's kernel (it
  // ends no earlier than its writes land).
  r = run_kernels(
      one_kernel("1",
                 "      - {name: tx, if: rank == 0, ops: [{signal: {flag: f, rank: 1, value: 1, "
                 "order: release, scope: system}}]}\n"
                 "      - {name: rx, if: rank == 1, ops: [{wait: {flag: f, value: 1}}]}\n",
                 2),
      2, sync_device());
  REQUIRE(r.result.blocked.empty());
  CHECK(stream_end(r.result, 0, "s") == 2'500'000);
  CHECK(stream_end(r.result, 1, "s") == 2'500'000);
  // Four CTAs add 1 to one flag at 1 us: atomics arrive 60 ns later and are applied 100 ns
  // apart (1.06, 1.16, 1.26, 1.36 us); CTA 0's waiter for 4 sees the last 300 ns later: 1.66 us.
  r = run_kernels(
      one_kernel("4",
                 "      - {name: tx, ops: [{signal: {flag: f, add: 1}}]}\n"
                 "      - {name: rx, if: cta == 0, ops: [{wait: {flag: f, value: 4}}]}\n"),
      1, sync_device());
  REQUIRE(r.result.blocked.empty());
  CHECK(stream_end(r.result, 0, "s") == 1'660'000);
}

TEST_CASE("a fence costs by the warps that run it, a release store is one warp's") {
  // One warp 500 ns; up to 8 warps make one round, the next round starts 300 ns after it; the SM
  // completes one warp's fence per 20 ns.
  models::HardwareSpec hw = sync_device();
  hw.sync.fence_system_per_warp = sim::Duration::ns(20);
  hw.sync.fence_system_round = sim::Duration::ns(300);
  hw.sync.fence_round_warps = 8;
  auto fence = [&](const std::string& threads, const models::HardwareSpec& d) {
    return stream_end(run_kernels(one_kernel("1", "      - {name: f, ops: [{fence: {scope: system" +
                                                      threads + "}}]}\n"),
                                  1, d)
                          .result,
                      0, "s");
  };
  // A 1 us launch, then: one thread (one warp) and 256 threads (8 warps): 500 ns; 257 threads
  // (9 warps): the ninth takes the second round, 300 ns later: 800 ns; 1280 threads (40 warps):
  // 40 x 20 = 800 ns, no longer; 1281 (41 warps): 820 ns; the CTA's 2048 (64 warps): 1280 ns.
  CHECK(fence(", threads: 1", hw) == 1'500'000);
  CHECK(fence(", threads: 256", hw) == 1'500'000);
  CHECK(fence(", threads: 257", hw) == 1'800'000);
  CHECK(fence(", threads: 1280", hw) == 1'800'000);
  CHECK(fence(", threads: 1281", hw) == 1'820'000);
  CHECK(fence("", hw) == 2'280'000);
  // A release store is its one storing thread's fence: 500 ns, whatever the CTA's threads; the
  // flag lands at once on its own GPU and the waiter sees it flag_latency (300 ns) later.
  CHECK(release_then_wait(0, 1, hw) == 1'800'000);
}

TEST_CASE("a fence past the SM waits for the far L2 partition on every other CTA") {
  // Two L2 partitions: CTA 0 fences data in its own partition, CTA 1 in the far one
  // (fence_far 100 ns more). The kernel ends with its slowest CTA, after a 1 us launch.
  const auto end = [](const std::string& ctas, const std::string& scope,
                      const models::HardwareSpec& hw) {
    return stream_end(
        run_kernels(one_kernel(ctas, "      - {name: f, ops: [{fence: {scope: " + scope + "}}]}\n"),
                    1, hw)
            .result,
        0, "s");
  };
  models::HardwareSpec hw = sync_device();
  CHECK(end("1", "gpu", hw) == 1'200'000);     // near: 200 ns
  CHECK(end("2", "gpu", hw) == 1'300'000);     // CTA 1 far: 200 + 100 ns
  CHECK(end("2", "system", hw) == 1'600'000);  // 500 + 100 ns
  CHECK(end("2", "cta", hw) == 1'005'000);     // a cta fence stays in its SM: 5 ns
  // A release store fences first: CTA 1's at system scope waits 600 ns, then its flag lands at
  // once and CTA 0, polling it, sees it 300 ns later: 1.9 us.
  CHECK(release_then_wait(1, 0, hw) == 1'900'000);
  // With one partition every SM is near its data.
  hw.l2.partitions = 1;
  CHECK(end("2", "gpu", hw) == 1'200'000);
}

TEST_CASE("warps out of step take turns at the SM's rounds of fences") {
  // Two warps (64 threads) fence three times at system scope: one warp's fence 500 ns, rounds
  // 300 ns apart. In step: 3 x 500 ns. Out of step the warps split into two groups that take turns
  // at the rounds, so after the first fence each waits two gaps, 600 ns, less the work since its
  // last fence (none here): 500 + 600 + 600. With 200 cycles (200 ns at 1 GHz) of work before
  // each fence: 500, then max(500, 600 - 200) = 500 each. One warp has no other group: 3 x 500.
  models::HardwareSpec hw = sync_device();
  hw.sync.fence_system_round = sim::Duration::ns(300);
  auto end = [&](const std::string& threads, const std::string& in_step, const std::string& work,
                 const std::string& ctas = "1") {
    const std::string fence =
        "{fence: {scope: system, threads: " + threads + ", in_step: " + in_step + "}}";
    const std::string step = work.empty() ? fence : "{compute: {cycles: " + work + "}}, " + fence;
    return stream_end(run_kernels(one_kernel(ctas,
                                             "      - {name: f, ops: [{for: {var: i, from: "
                                             "0, to: 3, ops: [" +
                                                 step + "]}}]}\n"),
                                  1, hw)
                          .result,
                      0, "s");
  };
  CHECK(end("64", "1", "") == 2'500'000);
  CHECK(end("64", "0", "") == 2'700'000);
  CHECK(end("64", "0", "200") == 3'100'000);  // + 3 x 200 ns of work
  CHECK(end("32", "0", "") == 2'500'000);
  // A round ends when its fences are acknowledged: on 2 CTAs, CTA 1 fences far (fence_far 100 ns
  // more), so its rounds are 400 ns apart: 600, then 2 x 400 = 800 twice; the kernel ends with it.
  CHECK(end("64", "0", "", "2") == 1'000'000 + 600'000 + 800'000 + 800'000);
  CHECK(end("64", "1", "", "2") == 1'000'000 + 3 * 600'000);  // in step: 3 x (500 + 100)
}

TEST_CASE("arrive and sync order two roles of a CTA") {
  // The loader computes 1e6 flops (1 us, alone on the pipe), then arrives; the consumer's sync
  // releases 50 mbarrier cycles (50 ns) later, then it computes 2e6 flops alone: 2 us.
  // 1 us launch + 1 us + 50 ns + 2 us = 4.05 us.
  const auto r = run_kernels(
      one_kernel(
          "1",
          "      - {name: ld, ops: [{compute: {flops: 1000000, dtype: bf16}}, {arrive: full}]}\n"
          "      - {name: mm, ops: [{sync: full}, {mma: {m: 100, n: 100, k: 100}}]}\n"),
      1, toy_device());
  REQUIRE(r.result.blocked.empty());
  CHECK(stream_end(r.result, 0, "s") == 4'050'000);
}

TEST_CASE("a mainloop takes about fill + max(load, mma) + the last step's mma") {
  // m = n = 128, k = 1024, k_tile = 64: 16 steps; a stage is (128 + 128) x 64 x 2 B = 32768 B;
  // all operands 524288 B; flops 2 x 128 x 128 x 1024 = 33554432, the last step's 2097152.
  // Fill: 100 ns L2 latency + 64 ns issue + 32768 B at the 100 GB/s L2 = 491.68 ns.
  // Then the other 491520 B (4.9152 us) beside 31457280 flops (31.45728 us): the MMA dominates.
  // Then the last 2097152 flops: 2.097152 us. Total 1 us + 0.49168 + 31.45728 + 2.097152 us.
  const auto r = run_kernels(one_kernel("1",
                                        "      - {name: m, ops: [{mainloop: {m: 128, n: 128, k: "
                                        "1024, k_tile: 64, stages: 4}}]}\n"),
                             1, toy_device());
  REQUIRE(r.result.blocked.empty());
  CHECK(stream_end(r.result, 0, "s") == 35'046'112);
  // With one stage nothing overlaps: fill, then 4.9152 us of loads, then all MMAs (33.554432 us).
  const auto serial = run_kernels(one_kernel("1",
                                             "      - {name: m, ops: [{mainloop: {m: 128, n: 128, "
                                             "k: 1024, k_tile: 64, stages: 1}}]}\n"),
                                  1, toy_device());
  CHECK(stream_end(serial.result, 0, "s") == 1'000'000 + 491'680 + 4'915'200 + 33'554'432);
}

TEST_CASE("a multicast TMA load is read from memory once for the cluster's CTAs") {
  // 4 CTAs (one per SM), each loading 1e6 B from HBM; messages of min(1e6, 227 KiB), 8 in
  // flight over the 500 ns latency: a 3.7 TB/s cap per CTA, never binding here.
  // Unicast: 4e6 B at the 1000 GB/s HBM = 4 us: 1 us launch + 64 ns issue + 500 ns + 4 us.
  // Multicast to the 4 CTAs of the cluster: each CTA's share of the HBM bytes is 250000 B, 1e6 B
  // in all: 1 us.
  auto run = [](const std::string& multicast) {
    return run_kernels(
        "world: 1\nkernels:\n  k:\n    grid: 4\n    threads: 2048\n"
        "    cluster: 4\n    roles:\n      - {name: l, ops: [{load: {bytes: "
        "1000000" +
            multicast +
            "}}]}\nstreams:\n  - name: s\n    ops: "
            "[{launch: k}]\n",
        1, toy_device());
  };
  const auto unicast = run("");
  REQUIRE(unicast.result.blocked.empty());
  CHECK(stream_end(unicast.result, 0, "s") == 1'000'000 + 64'000 + 500'000 + 4'000'000);
  CHECK(stream_end(run(", multicast: 4").result, 0, "s") ==
        1'000'000 + 64'000 + 500'000 + 1'000'000);
  // A multicast that does not divide the cluster, and one outside TMA loads, are refused.
  CHECK_THROWS_WITH(run(", multicast: 3"), Catch::Contains("multicast 3 does not divide the "
                                                           "kernel's cluster of 4 CTAs"));
  CHECK_THROWS_WITH(run(", via: ldst, multicast: 2"), Catch::Contains("via must be tma"));
}

TEST_CASE("a mainloop's multicast shares the L2 reads of its tiles within the cluster") {
  // Two CTAs (a cluster of 2), m = n = 16, k = 64000, k_tile 64: 1000 steps, 32768 flops each
  // (32.768 ns at 1e12 flops/s), 32.768e6 flops in all. The two CTAs share the 100 GB/s L2.
  // Unicast: a stage is (16 + 16) x 64 x 2 B = 4096 B, all operands 4096000 B. Fill: 100 ns
  // latency + 64 ns issue + 4096 B at 50 GB/s (81.92 ns); then 4091904 B at 50 GB/s (81.83808 us)
  // beside 32.735232 us of MMAs: L2-bound; then the last step's MMA, 32.768 ns.
  // With B multicast to both (b: 2): each CTA reads 16 + 16 / 2 = 24 rows a k: a stage 3072 B,
  // all 3072000 B: fill 164 ns + 61.44 ns, then 3068928 B (61.37856 us), then 32.768 ns.
  auto run = [](const std::string& multicast, int cluster = 2) {
    return run_kernels(
        "world: 1\nkernels:\n  k:\n    grid: 2\n    threads: 2048\n"
        "    cluster: " +
            std::to_string(cluster) +
            "\n    roles:\n      - {name: m, ops: [{mainloop: {m: 16, n: 16, k: "
            "64000, k_tile: 64, stages: 4" +
            multicast +
            "}}]}\nstreams:\n  - name: "
            "s\n    ops: [{launch: k}]\n",
        1, toy_device());
  };
  const auto unicast = run("");
  REQUIRE(unicast.result.blocked.empty());
  CHECK(stream_end(unicast.result, 0, "s") == 1'000'000 + 164'000 + 81'920 + 81'838'080 + 32'768);
  CHECK(stream_end(run(", multicast: {b: 2}").result, 0, "s") ==
        1'000'000 + 164'000 + 61'440 + 61'378'560 + 32'768);
  CHECK_THROWS_WITH(
      run(", multicast: {a: 2, b: 2}"),
      Catch::Contains("multicast a x b = 4 does not divide the kernel's cluster of 2"));
  // A grid is a whole number of clusters.
  CHECK_THROWS_WITH(run("", 4), Catch::Contains("not a whole number of clusters of 4"));
}

TEST_CASE("a wait nobody satisfies ends with a report naming who waits on what") {
  const auto r = run_kernels(
      one_kernel(
          "2",
          "      - {name: rx, if: cta == 1, ops: [{wait: {flag: ready, index: 3, value: 1}}]}\n"),
      1, toy_device());
  REQUIRE(r.result.blocked.size() == 1);
  // CTA 0 runs no role, so it takes no SM: CTA 1 is the first CTA placed, on SM 0.
  CHECK(r.result.blocked[0].waiting_for ==
        "kernel 'k' on rank 0: CTA 1 (SM 0) role 'rx' waits for flag 'ready'[3] on rank 0 to "
        "reach 1 (it is 0) (at k.yaml:7:40)");
}

TEST_CASE("TMA fills NVLink with one SM where ld/st needs seven") {
  // n CTAs each store 4 MiB to rank 1. A store holds its bytes for the round trip (2 us).
  // TMA with 4 MiB messages capped at 227 KiB: 8 x 232448 B / 2 us = 929.8 GB/s per CTA, so
  // one CTA fills the 100 GB/s port (the SM's stores may go at 200 GB/s here). ld/st with 512
  // threads x 16 B x 4 = 32768 B in flight, each slot held for the route's round trip (2 us):
  // 16.384 GB/s per CTA: ceil(100 / 16.384) = 7 CTAs fill the port, 6 reach only 98.3 x 0.9 GB/s.
  auto rate = [](const char* via, int ctas) {
    const std::string threads = std::string(via) == "ldst" ? ", threads: 512" : "";
    const std::string text = one_kernel(
        std::to_string(ctas),
        std::string(
            "      - {name: st, if: rank == 0, ops: [{store: {bytes: 4MiB, peer: 1, via: ") +
            via + threads + "}}]}\n",
        2);
    models::HardwareSpec hw = toy_device(8);
    hw.sm.memory_rate = sim::Bandwidth::GBps(800);  // stores: 800 / store_cost 4 = 200 GB/s
    const auto r = run_kernels(text, 2, hw);
    const double t = static_cast<double>(stream_end(r.result, 0, "s")) * 1e-12;
    return static_cast<double>(ctas) * 4194304.0 / t * 1e-9;  // GB/s including fixed costs
  };
  CHECK(rate("tma", 1) > 95.0 * 4194304.0 / (4194304.0 + 100e9 * 2.564e-6));  // fixed 2.564 us
  CHECK(rate("ldst", 6) < 0.99 * 100.0);
  CHECK(rate("ldst", 7) > 0.95 * 100.0 * 4194304.0 / (4194304.0 + 100e9 * 2.5e-6));
}

// When an ld/st loop of `warps` warps, each keeping `per_warp` bytes in flight, waiting `think`
// seconds for them and passing them through a pipe of `pipe_gbps` `units` times, has moved
// `bytes` (ps, from its start): the closed loop's rate (sim::closed_loop_rate, tested on its
// own in tests/sim/fluid_test.cpp), whole bytes per second as the kernel model rounds it.
double loop_ps(double bytes, int warps, double per_warp, double think, double pipe_gbps,
               int units = 1) {
  const double demand = per_warp * units / (pipe_gbps * 1e9);
  const double rate = std::floor(per_warp * sim::closed_loop_rate(warps, think, demand));
  return bytes / rate * 1e12;
}

TEST_CASE("an ld/st load that waits more than once per unroll loads moves that much less") {
  // One CTA loads 1 MiB from local HBM with 512 threads x 16 B x 4 = 32 KiB in flight, each
  // access holding its slot for the toy's hbm.latency (500 ns): 16 warps of 2 KiB in a closed
  // loop, each waiting 500 ns and then 2.048 ns at the 1000 GB/s pipe: 65.27 GB/s (the sharp
  // bound 65.536), after the launch (1 us) and the first latency. A loop that uses its first
  // load before it issues the last waits `rounds` latencies per 4 loads: 2 about halves the
  // rate, 3 about thirds it.
  auto run = [](const char* rounds) {
    models::HardwareSpec hw = toy_device();
    hw.sm.memory_rate = sim::Bandwidth::GBps(1000);
    const std::string ops =
        std::string("      - {name: ld, ops: [{load: {bytes: 1MiB, via: ldst, threads: 512") +
        rounds + "}}]}\n";
    return static_cast<double>(stream_end(run_kernels(one_kernel("1", ops), 1, hw).result, 0, "s"));
  };
  auto want = [](int rounds) { return 1.5e6 + loop_ps(1048576, 16, 2048, rounds * 500e-9, 1000); };
  CHECK(run("") == Approx(want(1)).margin(2));
  CHECK(run(", rounds: 1") == Approx(want(1)).margin(2));
  CHECK(run(", rounds: 2") == Approx(want(2)).margin(2));
  CHECK(run(", rounds: 3") == Approx(want(3)).margin(2));
  CHECK(want(1) - 1.5e6 == Approx(16e6).epsilon(5e-3));  // near the sharp bound, below it
  CHECK(want(1) - 1.5e6 > 16e6);
  CHECK(want(3) - 1.5e6 == Approx(48e6).epsilon(2e-3));
}

TEST_CASE("a warp waits for the latest of its lines (hbm.latency_spread)") {
  // One warp loads 1 MiB from local HBM with 16 B x `unroll` per thread in flight: 4 x unroll
  // lines of 128 B per wait (per round: `rounds` waits split them). A line takes 500 ns plus an
  // exponential part of mean 40 ns, so each wait is for the latest of k: 500 + 40 (H_k - 1) ns,
  // first as the op's fixed latency, then as the closed loop's think time (one warp, 1000 GB/s
  // pipe), after the launch (1 us).
  models::HardwareSpec hw = toy_device();
  hw.sm.memory_rate = sim::Bandwidth::GBps(1000);
  hw.hbm.latency_spread = sim::Duration::ns(40);
  auto run = [&](int unroll, int rounds) {
    const std::string ops =
        "      - {name: ld, ops: [{load: {bytes: 1MiB, via: ldst, threads: 32, vector: 16, "
        "unroll: " +
        std::to_string(unroll) + ", rounds: " + std::to_string(rounds) + "}}]}\n";
    return static_cast<double>(stream_end(run_kernels(one_kernel("1", ops), 1, hw).result, 0, "s"));
  };
  auto want = [](int unroll, int rounds) {
    const int lines = 4 * unroll / rounds;
    double h = 0;
    for (int i = 1; i <= lines; ++i) h += 1.0 / i;
    const double wait = 500e-9 + 40e-9 * (h - 1);
    return 1e6 + wait * 1e12 + loop_ps(1048576, 1, 512.0 * unroll, rounds * wait, 1000);
  };
  CHECK(run(1, 1) == Approx(want(1, 1)).margin(2));  // 4 lines: 541.7 ns
  CHECK(run(4, 1) == Approx(want(4, 1)).margin(2));  // 16 lines: 597.3 ns
  CHECK(run(4, 2) == Approx(want(4, 2)).margin(2));  // twice 8 lines: 2 x 568.7 ns
  // A copy's loads wait the same way: with the spread it runs as a copy without it whose
  // latency is that of the latest of its 8 lines per warp (32 threads x 16 B x 2).
  auto copy = [](const models::HardwareSpec& h) {
    const std::string ops =
        "      - {name: cp, ops: [{store: {bytes: 1MiB, via: ldst, threads: 32, vector: 16, "
        "unroll: 2, from: 0}}]}\n";
    return stream_end(run_kernels(one_kernel("1", ops), 1, h).result, 0, "s");
  };
  models::HardwareSpec flat = hw;
  flat.hbm.latency = hw.hbm.latest_of(8);
  flat.hbm.latency_spread = sim::Duration::zero();
  models::HardwareSpec alike = hw;
  alike.hbm.latency_spread = sim::Duration::zero();
  CHECK(copy(hw) == copy(flat));
  CHECK(copy(hw) > copy(alike));
}

TEST_CASE("an ld/st store to a peer is posted, and a system fence waits for its acknowledgement") {
  // Rank 0 stores 32 B to rank 1 with one thread of 16 B in flight: the window over the route's
  // round trip (2 x 1 us) is 8 MB/s, so the bytes take 4 us to issue. Posted, the op starts at
  // once and ends when they are issued, at 1 + 4 = 5 us; they are acknowledged at 5 + 2 = 7 us.
  // Then `then` and a signal to rank 1 (`order` its release), whose wait on its own flag ends
  // when it lands.
  auto run = [](const std::string& then, const std::string& order = "") {
    return run_kernels(
        one_kernel(
            "1",
            "      - {name: tx, if: rank == 0, ops: [{store: {bytes: 32, peer: 1, via: ldst, "
            "threads: 1, vector: 16, unroll: 1}}" +
                then + ", {signal: {flag: f, rank: 1, value: 1" + order +
                "}}]}\n"
                "      - {name: rx, if: rank == 1, ops: [{wait: {flag: f, value: 1}}]}\n",
            2),
        2, sync_device());
  };
  // No fence: the signal leaves at 5 us and lands at 6 us, when its data has landed too; rank
  // 0's kernel ends no earlier than its store is acknowledged, 7 us.
  auto r = run("");
  REQUIRE(r.result.blocked.empty());
  CHECK(stream_end(r.result, 1, "s") == 6'000'000);
  CHECK(stream_end(r.result, 0, "s") == 7'000'000);
  // A gpu fence does not wait for the peer: 200 ns, so the signal lands at 6.2 us.
  r = run(", {fence: {scope: gpu, threads: 1}}");
  CHECK(stream_end(r.result, 1, "s") == 6'200'000);
  // A system fence waits for the acknowledgement (7 us), then the system scope's own part,
  // fence_system - fence_gpu = 300 ns (its 500 ns alone would end at 5.5 us): it ends at 7.3 us
  // and the signal lands at 8.3 us; a release signal's fence does the same.
  r = run(", {fence: {scope: system, threads: 1}}");
  CHECK(stream_end(r.result, 1, "s") == 8'300'000);
  CHECK(stream_end(r.result, 0, "s") == 8'300'000);
  r = run("", ", order: release, scope: system");
  CHECK(stream_end(r.result, 1, "s") == 8'300'000);
}

TEST_CASE("a bulk store to a peer holds its bytes until the peer acknowledges them") {
  // One CTA stores 4 MiB to rank 1 by TMA with one 64 KiB message outstanding. The bulk-copy
  // unit holds it for the route's round trip (2 x 1 us), not the one-way 1.5 us of the op's
  // latency: 65536 B per 2 us = 32.768 GB/s, 128 us after the launch (1 us), the latency and 64
  // issue cycles (1.564 us).
  const std::string text =
      one_kernel("1",
                 "      - {name: st, if: rank == 0, ops: [{store: {bytes: 4MiB, peer: 1, via: tma, "
                 "message: 64KiB, outstanding: 1}}]}\n",
                 2);
  models::HardwareSpec hw = toy_device(8);
  hw.sm.memory_rate = sim::Bandwidth::GBps(800);  // stores: 800 / store_cost 4 = 200 GB/s
  const auto r = run_kernels(text, 2, hw);
  CHECK(stream_end(r.result, 0, "s") == 1'000'000 + 1'564'000 + 128'000'000);
}

TEST_CASE("one SM's loads and stores share its memory pipe, a stored byte taking more of it") {
  // The pipe moves sm_gbps of loads; a stored byte takes store_cost (4) loaded bytes' share, a
  // store-added byte store_add_cost (5).
  auto run = [](const std::string& ops, double sm_gbps, std::int64_t interval_ns) {
    models::HardwareSpec hw = toy_device();
    hw.sm.memory_rate = sim::Bandwidth::GBps(static_cast<std::int64_t>(sm_gbps));
    hw.sm.store_cost = 4;
    hw.sm.store_add_cost = 5;
    hw.tma.message_interval = sim::Duration::ns(interval_ns);
    hw.l2.reduction_bandwidth = sim::Bandwidth::GBps(1000);
    return stream_end(run_kernels(one_kernel("1", ops), 1, hw).result, 0, "s");
  };
  // 1 MB loaded by ld/st (128 KiB in flight / 500 ns = 262 GB/s) through a 100 GB/s pipe: 10 us
  // after the launch (1 us) and the HBM latency (its 32 warps' closed loop, 2.6 x what the pipe
  // serves, falls short of the pipe by less than a byte per second: a picosecond later). Stored:
  // 100 / 4 = 25 GB/s, 40 us after the posted store's 20 ns (hbm.write_latency), whatever it
  // keeps in flight.
  CHECK(std::llabs(run("      - {name: ld, ops: [{load: {bytes: 1000000, via: ldst}}]}\n", 100, 0) -
                   (1'000'000 + 500'000 + 10'000'000)) <= 1);
  CHECK(run("      - {name: st, ops: [{store: {bytes: 1000000, via: ldst}}]}\n", 100, 0) ==
        1'000'000 + 20'000 + 40'000'000);
  // The same copy by ld/st as a load role and a store role, overlapping freely (a store `from`
  // is the copy loop, below): the store starts 20 ns after the launch, the load 500 ns after; the
  // pipe is full from the store's start (alone it takes 4 x 25 GB/s; together 20 GB/s each, 4 x 20
  // + 20) until it has moved 1e6 x 4 + 1e6 x 1 load-bytes: 50 us, so 1 us + 20 ns + 50 us.
  CHECK(std::llabs(run("      - {name: ld, ops: [{load: {bytes: 1000000, via: ldst}}]}\n"
                       "      - {name: st, ops: [{store: {bytes: 1000000, via: ldst}}]}\n",
                       100, 0) -
                   (1'000'000 + 20'000 + 50'000'000)) <= 1);
  // L2 hits cross it too: 1 MB from a 1 MiB working set (all hits; the L2 moves 100 GB/s) through
  // a 50 GB/s pipe: 20 us after the launch and the 100 ns hit latency.
  CHECK(run("      - {name: ld, ops: [{load: {bytes: 1000000, via: ldst, working_set: 1MiB}}]}\n",
            50, 0) == 1'000'000 + 100'000 + 20'000'000);
  // A local copy of 1 MB by TMA, a load role and a store role starting together (windows far
  // above the pipe, 8 x 227 KiB / 500 ns): x + 4 x = 100 GB/s, 20 GB/s each, 50 us after 1 us +
  // 564 ns (launch, HBM latency, 64 TMA issue cycles).
  CHECK(run("      - {name: ld, ops: [{load: {bytes: 1000000, via: tma}}]}\n"
            "      - {name: st, ops: [{store: {bytes: 1000000, via: tma}}]}\n",
            100, 0) == 1'000'000 + 564'000 + 50'000'000);
  // A bulk store-add of 1 MB: 100 / 5 = 20 GB/s (the L2 reduction, 1000 GB/s, and the HBM's
  // read and write, 2 MB at 1000 GB/s, do not bind): 50 us.
  CHECK(run("      - {name: st, ops: [{store: {bytes: 1000000, via: tma, add: true}}]}\n", 100,
            0) == 1'000'000 + 564'000 + 50'000'000);
  // 1000-byte messages, one per 100 ns from the issuing thread: 10 GB/s: 1 MB in 100 us.
  CHECK(run("      - {name: ld, ops: [{load: {bytes: 1000000, via: tma, message: 1000}}]}\n", 1000,
            100) == 1'000'000 + 564'000 + 100'000'000);
}

TEST_CASE("an ld/st store from a source is a copy loop: a warp's stores wait for its loads") {
  // One CTA copies 1 MB in local HBM with 128 threads x 16 B x 4: 4 warps of 2 KiB, each waiting
  // the HBM latency (500 ns) for its loads, then passing its 2 KiB 1 + store_cost = 5 times
  // through the 100 GB/s pipe (102.4 ns), where it queues behind the others: 12.2 GB/s, after
  // the launch (1 us) and the first loads' latency. A load role and a store role overlap freely
  // instead: the load's warps queue only behind its own loads (20.5 ns each), about 15.7 GB/s
  // (the sharp bound 8 KiB / 500 ns = 16.4), the store keeping up, the pipe not full.
  auto run = [](const std::string& ops, int world = 1) {
    models::HardwareSpec hw = toy_device();
    hw.sm.memory_rate = sim::Bandwidth::GBps(100);
    hw.sm.store_cost = 4;
    return static_cast<double>(
        stream_end(run_kernels(one_kernel("1", ops, world), world, hw).result, 0, "s"));
  };
  const std::string shape = "via: ldst, threads: 128, vector: 16, unroll: 4";
  const double copy = run("      - {name: c, if: rank == 0, ops: [{store: {bytes: 1000000, " +
                          shape + ", from: rank}}]}\n");
  CHECK(copy == Approx(1.5e6 + loop_ps(1e6, 4, 2048, 500e-9, 100, 5)).margin(2));
  CHECK(1e6 / (copy - 1.5e6) * 1e3 == Approx(12.22).epsilon(1e-3));  // GB/s
  const double roles = run("      - {name: l, ops: [{load: {bytes: 1000000, " + shape +
                           "}}]}\n"
                           "      - {name: s, ops: [{store: {bytes: 1000000, " +
                           shape + "}}]}\n");
  CHECK(copy - 1.5e6 > 1.25 * (roles - 1.5e6));
  // With a working set the L2 keeps (2 MB of the default 50 MB: models::L2Spec::keeps_copy) the
  // loads hit: 100 ns instead of HBM's 500 ns, first and per round, over the L2 (100 GB/s, far
  // above the loop's rate); one too large for the L2 (60 MB) reads HBM as without one.
  const std::string local = "      - {name: c, if: rank == 0, ops: [{store: {bytes: 1000000, " +
                            shape + ", from: rank, working_set: ";
  CHECK(run(local + "2MB}}]}\n") ==
        Approx(1.1e6 + loop_ps(1e6, 4, 2048, 100e-9, 100, 5)).margin(2));
  CHECK(run(local + "60MB}}]}\n") == copy);
  // From a peer (rank 1's memory into rank 0's): the first loads wait its HBM and the route (1.5
  // us); each warp's loads hold their slot for the route's round trip (2 x 1 us). One warp of
  // 512 B: 64 KiB at 512 B per (2 us + 25.6 ns at the pipe).
  const double pulled =
      run("      - {name: c, if: rank == 0, ops: [{store: {bytes: 65536, via: ldst, threads: 32, "
          "vector: 16, unroll: 1, from: 1}}]}\n",
          2);
  CHECK(pulled == Approx(1e6 + 1.5e6 + loop_ps(65536, 1, 512, 2e-6, 100, 5)).margin(2));
  // A loop has at most the warps an SM holds (sm.max_threads 2048: 64): 4096 threads of one
  // 1-byte access run as 2048 of two, the same 4 KiB in flight over the same 64 warps; 1024 of
  // four are 32 warps, which queue less at the pipe.
  const std::string many =
      "      - {name: c, if: rank == 0, ops: [{store: {bytes: 1000000, "
      "via: ldst, vector: 1, from: rank, ";
  CHECK(run(many + "threads: 4096, unroll: 1}}]}\n") ==
        run(many + "threads: 2048, unroll: 2}}]}\n"));
  CHECK(run(many + "threads: 4096, unroll: 1}}]}\n") !=
        run(many + "threads: 1024, unroll: 4}}]}\n"));
}

TEST_CASE("a store to HBM crosses HBM's write side, a load does not") {
  // One CTA moves 1 MB by TMA (windows and pipe far above the rates) to or from local HBM
  // (1000 GB/s, its write side 250 GB/s): a store at 250 GB/s, 4 us, a load at 1000 GB/s, 1 us,
  // each after the launch (1 us), HBM's latency (500 ns) and 64 TMA issue cycles.
  auto run = [](const char* op) {
    models::HardwareSpec hw = toy_device();
    hw.hbm.write_bandwidth = sim::Bandwidth::GBps(250);
    hw.l2.bandwidth = sim::Bandwidth::GBps(100'000);  // which the store crosses: not binding
    const std::string ops =
        std::string("      - {name: r, ops: [{") + op + ": {bytes: 1000000, via: tma}}]}\n";
    return stream_end(run_kernels(one_kernel("1", ops), 1, hw).result, 0, "s");
  };
  CHECK(run("store") == 1'000'000 + 564'000 + 4'000'000);
  CHECK(run("load") == 1'000'000 + 564'000 + 1'000'000);
}

TEST_CASE("a store by an SM crosses its own GPU's L2, one arriving from a peer does not") {
  // 1 MB by TMA (pipe and windows far above the rates) with the L2's bandwidth at 50 GB/s: a
  // local store crosses it (HBM 1000 GB/s, its write side 3350: the L2 binds), 20 us after the
  // launch (1 us), HBM's latency (500 ns) and 64 issue cycles; a store into the peer crosses the
  // 100 GB/s ports but not the peer's L2 (l2_contention.csv: a reader of L2-resident data keeps
  // its rate beside stores arriving over NVLink), 10 us after 1 us + 64 ns + 1.5 us (HBM latency
  // and the route).
  models::HardwareSpec hw = toy_device();
  hw.l2.bandwidth = sim::Bandwidth::GBps(50);
  auto store = [&hw](const char* peer, int world) {
    const std::string ops = std::string(
                                "      - {name: s, if: rank == 0, ops: [{store: {bytes: "
                                "1000000, via: tma") +
                            peer + "}}]}\n";
    return stream_end(run_kernels(one_kernel("1", ops, world), world, hw).result, 0, "s");
  };
  CHECK(store("", 1) == 1'000'000 + 564'000 + 20'000'000);
  CHECK(store(", peer: 1", 2) == 1'000'000 + 64'000 + 1'500'000 + 10'000'000);
}

TEST_CASE("an HBM load waits longer where reads and writes mix (hbm.turnaround_delay)") {
  // A probe CTA loads 64 KiB with 512 B in flight (32 threads x 16 B) beside 4 background CTAs
  // moving 50 GB/s each (their SM's memory pipe binds), all reads, all writes, or two of each.
  // The probe's rate p = 512 B / (500 ns + d + 10.24 ns), d = 100 ns x rho / (1 - rho) + t x 2
  // rho_r rho_w / rho with rho = 0.2 + p / 1 TB/s (rho_r: the readers' 0.2, 0.1 or 0 plus the
  // probe's; rho_w the writers'), 10.24 ns its one warp's 512 B through its 50 GB/s pipe (its
  // closed loop: one warp queues behind no other); its stream ends 1 us (launch) + 500 ns + 64
  // KiB / p after the start.
  auto run = [](int writers, double t_ns) {
    models::HardwareSpec hw = toy_device(8);
    hw.hbm.queue_delay = sim::Duration::ns(100);
    hw.hbm.turnaround_delay = sim::Duration::ps(std::llround(t_ns * 1e3));
    hw.hbm.write_bandwidth = sim::Bandwidth::GBps(1000);
    hw.l2.bandwidth = sim::Bandwidth::GBps(100'000);  // which the writers cross: not binding
    hw.sm.memory_rate = sim::Bandwidth::GBps(50);
    hw.sm.store_cost = 1;
    const std::string text = "world: 1\nparams: {W: " + std::to_string(writers) + R"(}
kernels:
  probe:
    grid: 1
    threads: 32
    roles: [{name: p, ops: [{load: {bytes: 65536, via: ldst, threads: 32, vector: 16, unroll: 1}}]}]
  bg:
    grid: 4
    threads: 2048
    roles:
      - {name: r, if: cta >= W, ops: [{load: {bytes: 20000000, via: ldst}}]}
      - {name: w, if: cta < W, ops: [{store: {bytes: 20000000, via: ldst}}]}
streams:
  - {name: b, ops: [launch: bg]}
  - {name: p, ops: [launch: probe]}
)";
    return stream_end(run_kernels(text, 1, hw).result, 0, "p");
  };
  auto want = [](int writers, double t_ns) {
    const double rho_w = 0.05 * writers, bg = 0.2;
    double lo = 0, hi = 512 / 500e-9;  // the probe's rate, by bisection
    for (int i = 0; i < 200; ++i) {
      const double p = (lo + hi) / 2, rho = bg + p / 1e12, rho_r = rho - rho_w;
      const double d = 100e-9 * rho / (1 - rho) + t_ns * 1e-9 * 2 * rho_r * rho_w / rho;
      (512 / (500e-9 + d + 10.24e-9) > p ? lo : hi) = p;
    }
    return 1e6 + 5e5 + 65536 / lo * 1e12;
  };
  for (int writers : {0, 2, 4}) {
    CHECK(static_cast<double>(run(writers, 400)) == Approx(want(writers, 400)).epsilon(2e-3));
    CHECK(static_cast<double>(run(writers, 0)) == Approx(want(writers, 0)).epsilon(2e-3));
  }
  // Mixed, the probe is slower than beside readers or writers alone, by about t x 0.1 per load.
  CHECK(run(2, 400) > run(0, 400) * 1.05);
  CHECK(run(2, 400) > run(4, 400) * 1.05);
}

TEST_CASE("a communication role takes its share of the SM's math pipe while it moves data") {
  // One CTA: a math role (20e6 flops at the toy's 1e12 flops/s: 20 us alone) and a role storing
  // 1e6 B locally by ld/st (a 240 GB/s memory pipe / store_cost 4: 60 GB/s, 16.666667 us after the
  // 20 ns posted-store latency), both from 1 us. An ld/st warp takes 20 % of the tensor pipe while
  // its op runs: from 1 us to 17.686667 us the math gets 0.8e12 flops/s (13.349333e6 flops),
  // then all of it for the other 6.650667e6 flops: the kernel ends at 24.337334 us (21 us with
  // no share).
  models::HardwareSpec hw = toy_device();
  hw.sm.memory_rate = sim::Bandwidth::GBps(240);
  hw.ldst.warp_share_tensor = 0.2;
  const std::string roles =
      "      - {name: math, ops: [{mma: {m: 1000, n: 1000, k: 10}}]}\n"
      "      - {name: comm, ops: [{store: {bytes: 1000000, via: ldst}}]}\n";
  const auto end = stream_end(run_kernels(one_kernel("1", roles), 1, hw).result, 0, "s");
  CHECK(end == Approx(24'337'334).margin(2));
  // The same op declaring it has no warp of its own (own_warp: false) takes nothing.
  const std::string shared =
      "      - {name: math, ops: [{mma: {m: 1000, n: 1000, k: 10}}]}\n"
      "      - {name: comm, ops: [{store: {bytes: 1000000, via: ldst, own_warp: false}}]}\n";
  CHECK(stream_end(run_kernels(one_kernel("1", shared), 1, hw).result, 0, "s") == 21'000'000);
  // FP32 math takes the FP32 share: a TMA warp at 50 % from 1 us; the FP32 pipe (256 flops per
  // cycle at 1 GHz by default: 2.56e11 flops/s) runs 2.56e6 flops in 10 us alone; the TMA store
  // (1e6 B, 60 GB/s store path) ends at 1 us + 500 ns + 64 ns + 16.666667 us = 18.230667 us: the
  // math runs at half rate until then (8.615333 us of its 10), then at full rate for the rest
  // (1.384667 us), ending at 19.615334 us. The FP32 pipe is created after the TMA warp took its
  // share, and starts with it taken.
  hw.tma.warp_share_fp32 = 0.5;
  const std::string fp32 =
      "      - {name: comm, ops: [{store: {bytes: 1000000, via: tma}}]}\n"
      "      - {name: math, ops: [{compute: {flops: 2560000, dtype: fp32}}]}\n";
  CHECK(stream_end(run_kernels(one_kernel("1", fp32), 1, hw).result, 0, "s") ==
        Approx(19'615'334).margin(2));
}

TEST_CASE("concurrent kernels share the SMs: a kernel holding SMs leaves the rest to the next") {
  // `hold` (2 CTAs of 200 KiB shared memory) takes SMs 0 and 1 for 10 us of math; `work` (4 CTAs
  // of 64 KiB, 2 us of math each alone) cannot join them (201 + 65 KiB > the SM's 228 KiB), so
  // its CTAs double up on SMs 2 and 3 (2 x 65 KiB fits) and share their tensor pipes: 4 us.
  // Both launch at 1 us (no host costs here).
  const std::string kernels = R"(world: 1
kernels:
  hold:
    grid: 2
    threads: 128
    shared_memory: 200KiB
    roles: [{name: m, ops: [{compute: {flops: 10000000, dtype: bf16}}]}]
  work:
    grid: 4
    threads: 128
    shared_memory: 64KiB
    roles: [{name: m, ops: [{compute: {flops: 2000000, dtype: bf16}}]}]
)";
  auto r = run_kernels(kernels +
                           "streams:\n  - {name: a, ops: [launch: hold]}\n"
                           "  - {name: b, ops: [launch: work]}\n",
                       1, toy_device(4));
  REQUIRE(r.result.blocked.empty());
  CHECK(stream_end(r.result, 0, "a") == 11'000'000);
  CHECK(stream_end(r.result, 0, "b") == 5'000'000);
  // Alone, `work` spreads over the 4 SMs: 1 + 2 us.
  r = run_kernels(kernels + "streams:\n  - {name: b, ops: [launch: work]}\n", 1, toy_device(4));
  CHECK(stream_end(r.result, 0, "b") == 3'000'000);
}

TEST_CASE("copy-engine transfers of a few KB are latency-bound") {
  // 4 KiB peer copy: 2 us setup + 1 us route + 4096 B / 50 GB/s (81.92 ns, rounded up to ps):
  // the bytes are under 3 % of the time.
  const auto r = run_kernels(R"(world: 2
streams:
  - name: s
    if: rank == 0
    ops: [{memcpy: {bytes: 4KiB, dst: 1}}]
)",
                             2, toy_device());
  const std::int64_t t = stream_end(r.result, 0, "s");
  CHECK(t == 3'000'000 + 81'920);
  CHECK(static_cast<double>(t - 3'000'000) / static_cast<double>(t) < 0.03);
}

TEST_CASE("an NVLS all-reduce moves fewer NVLink bytes than a ring") {
  // 8 ranks, B = 8 MiB. NVLS: each rank ld_reduces its B/8 slice (all 8 members' uplinks, its
  // own included, carry B/8 each, its downlink B/8), then multicasts it (its uplink B/8, all 8
  // downlinks B/8): per rank 18 x B/8 port bytes, 18B in all. NCCL's ring (forced) moves 2 x 7/8 B
  // per rank, crossing an out and an in port: 8 x 2 x 2 x 7/8 B = 28B. Ratio 18/28 = 9/14.
  const std::string nvls = R"(world: 8
params: {B: 8MiB}
kernels:
  ar:
    grid: 1
    roles:
      - name: r
        ops:
          - reduce: {bytes: B / world, via: multimem}
          - store: {bytes: B / world, via: multimem}
streams:
  - name: s
    ops: [{launch: ar}]
)";
  const std::string ring = R"(world: 8
streams:
  - name: s
    ops: [{collective: {op: all_reduce, bytes: 8MiB, dtype: bf16, algorithm: ring}}]
)";
  const auto a = run_kernels(nvls, 8, toy_device());
  const auto b = run_kernels(ring, 8, toy_device());
  REQUIRE(a.result.blocked.empty());
  CHECK(a.port_bytes == 18 * 8388608);
  CHECK(b.port_bytes == 28 * 8388608);
}

namespace {
// Runs `s` on a toy crossbar of `gpus` GPUs with a Recorder attached, and returns what it saw.
Recorder traced(const traces::Schedule& s, int gpus) {
  sim::Engine engine;
  Recorder rec;
  engine.set_trace(&rec);
  sim::FluidNetwork net(engine);
  Crossbar fabric(net, gpus);
  traces::execute(s, traces::param_values(s, {}), engine, net, fabric, toy_device());
  return rec;
}
}  // namespace

TEST_CASE("with a trace sink, each role's ops are slices on a (GPU, SM role) track") {
  // The mma of the waves test's first CTA: from the 1 us launch to 3 us, on SM 0.
  const traces::Schedule s = traces::load_schedule(sim::Node::load_string(
      one_kernel("1", "      - {name: math, ops: [{mma: {m: 100, n: 100, k: 100}}]}\n"), "k.yaml"));
  const Recorder rec = traced(s, 1);
  CHECK(std::find(rec.lines.begin(), rec.lines.end(), "gpu0/sm000 k.math mma 1000000 3000000") !=
        rec.lines.end());
}

TEST_CASE("trace: op slices carry their kind, bytes and peer, SM pipes count GFLOP/s") {
  // Rank 0 loads 1000000 bytes from rank 1 (a peer load), then runs an mma; a launch's slice on
  // the stream's track is named by its kernel.
  const traces::Schedule s = traces::load_schedule(sim::Node::load_string(
      one_kernel("1",
                 "      - {name: r, if: rank == 0, ops: [{load: {bytes: 1000000, peer: 1}}, "
                 "{mma: {m: 100, n: 100, k: 100}}]}\n",
                 2),
      "k.yaml"));
  const Recorder rec = traced(s, 2);
  auto args_of = [&](const std::string& prefix) {
    for (std::size_t i = 0; i < rec.lines.size(); ++i)
      if (rec.lines[i].rfind(prefix, 0) == 0) return rec.args[i];
    return std::string("none");
  };
  CHECK(args_of("gpu0/sm000 k.r load") == "op=load bytes=1000000 peer=1");
  CHECK(args_of("gpu0/sm000 k.r mma") == "op=mma");
  CHECK(args_of("rank 0/s k ") == "");
  CHECK(rec.counters.count("gpu0/sm0.tensor GFLOP/s") == 1);
  CHECK(rec.counters.count("gpu1/hbm GB/s") == 1);  // the peer load reads rank 1's HBM
}

TEST_CASE("special-function and integer ops run on their own pipes at their per-cycle rates") {
  // toy_device: SM clock 1 GHz; sfu_ops_per_cycle 16 and int32_ops_per_cycle 64 (SmSpec's
  // defaults): 16e6 SFU ops take 1 ms, 64e6 INT32 ops 1 ms, after the 1 us launch.
  models::HardwareSpec hw = toy_device(4);
  REQUIRE(hw.sm.sfu_ops_per_cycle == 16);
  REQUIRE(hw.sm.int32_ops_per_cycle == 64);
  const auto sfu =
      run_kernels(one_kernel("4", "      - {name: m, ops: [{compute: {sfu: 16000000}}]}\n"), 1, hw);
  CHECK(stream_end(sfu.result, 0, "s") == 1'001'000'000);
  const auto i32 = run_kernels(
      one_kernel("4", "      - {name: m, ops: [{compute: {int32: 64000000}}]}\n"), 1, hw);
  CHECK(stream_end(i32.result, 0, "s") == 1'001'000'000);
  // Two roles of one CTA, one on each pipe, do not slow each other; two SFU roles share theirs.
  const auto both =
      run_kernels(one_kernel("4",
                             "      - {name: a, ops: [{compute: {sfu: 16000000}}]}\n"
                             "      - {name: b, ops: [{compute: {int32: 64000000}}]}\n"),
                  1, hw);
  CHECK(stream_end(both.result, 0, "s") == 1'001'000'000);
  const auto shared =
      run_kernels(one_kernel("4",
                             "      - {name: a, ops: [{compute: {sfu: 16000000}}]}\n"
                             "      - {name: b, ops: [{compute: {sfu: 16000000}}]}\n"),
                  1, hw);
  CHECK(stream_end(shared.result, 0, "s") == 2'001'000'000);
}

TEST_CASE("mma.sync holds the tensor pipe at its own rate beside the native instruction") {
  // toy_device: tensor pipes at 1 GHz, native bf16 1000 flops per cycle; mma.sync at 500 (bf16)
  // and 250 (fp8, which Hopper runs as unpacked fp16 MMAs). 1e9 bf16 flops: 1 ms native, 2 ms
  // as mma.sync; 1e9 fp8 flops as mma.sync: 4 ms; each after the 1 us launch.
  models::HardwareSpec hw = toy_device(4);
  hw.sm.mma_sync_flops_per_cycle_bf16 = 500;
  hw.sm.mma_sync_flops_per_cycle_fp8 = 250;
  auto end_of = [&](const std::string& role) {
    return stream_end(run_kernels(one_kernel("4", role), 1, hw).result, 0, "s");
  };
  CHECK(end_of("      - {name: m, ops: [{mma: {m: 1000, n: 1000, k: 500}}]}\n") == 1'001'000'000);
  CHECK(end_of("      - {name: m, ops: [{mma: {m: 1000, n: 1000, k: 500, instr: mma_sync}}]}\n") ==
        2'001'000'000);
  CHECK(end_of("      - {name: m, ops: [{compute: {flops: 1000000000, dtype: fp8, instr: "
               "mma_sync}}]}\n") == 4'001'000'000);
  CHECK(end_of("      - {name: m, ops: [{mainloop: {m: 1000, n: 1000, k: 500, k_tile: 500, "
               "stages: 2, instr: mma_sync}}]}\n") > 2'001'000'000);
  // The pipe is the SM's: a native role beside an mma.sync role gets half of it (0.5e9 native
  // flops a ms); once its 1e9 flops are done at 2 ms the mma.sync role, which has had half the
  // pipe (250e6 of its flops a ms, 500e6 in all), runs alone at 500e6 a ms for its last 500e6.
  CHECK(end_of("      - {name: a, ops: [{mma: {m: 1000, n: 1000, k: 500}}]}\n"
               "      - {name: b, ops: [{mma: {m: 1000, n: 1000, k: 500, instr: mma_sync}}]}\n") ==
        3'001'000'000);
  // mma.sync's rate is per SM cycle (as clock64 measures it), the native one per tensor-clock
  // cycle (the fitted effective clock): with the tensor clock at half the SM clock, 1e9 native
  // flops take 2 ms, and 1e9 mma.sync flops at 500 a 1 GHz SM cycle still 2 ms.
  hw.sm.tensor_clock = sim::Frequency::mhz(500);
  CHECK(end_of("      - {name: m, ops: [{mma: {m: 1000, n: 1000, k: 500}}]}\n") == 2'001'000'000);
  CHECK(end_of("      - {name: m, ops: [{mma: {m: 1000, n: 1000, k: 500, instr: mma_sync}}]}\n") ==
        2'001'000'000);
  hw.sm.mma_sync_flops_per_cycle_bf16 = 250;
  CHECK(end_of("      - {name: m, ops: [{mma: {m: 1000, n: 1000, k: 500, instr: mma_sync}}]}\n") ==
        4'001'000'000);
}

TEST_CASE("an MMA's operand reads from shared memory hold the tensor pipe with its math") {
  // toy_device: tensor pipes and SMs at 1 GHz, native bf16 1000 flops per cycle (mma.sync set to
  // the same here); shared memory set to 100 B per cycle (1e11 B/s). 1e9 bf16 flops (m = n =
  // 1000, k = 500) take 1 ms on the pipe. A warp tile of 10 x 10 reads, per k, 10 elements of A
  // and 10 of B: A from shared memory is k m n 2 B / tile_n = 1e8 B (1 ms), A and B 2e8 B (2 ms).
  // mma.sync combines the two times as (t_pipe^(1/q) + t_smem^(1/q))^q: q = 1 adds them (3 ms),
  // q = 0.5 gives sqrt(1 + 4) ms; the native instruction overlaps them (the larger, 2 ms).
  models::HardwareSpec hw = toy_device(4);
  hw.sm.smem_bytes_per_cycle = 100;
  hw.sm.mma_sync_flops_per_cycle_bf16 = hw.sm.flops_per_cycle_bf16;
  auto end_of = [&](const std::string& role) {
    return stream_end(run_kernels(one_kernel("4", role), 1, hw).result, 0, "s");
  };
  const std::string both =
      "      - {name: m, ops: [{mma: {m: 1000, n: 1000, k: 500, instr: mma_sync, operands: {a: "
      "smem, b: smem, tile_m: 10, tile_n: 10}}}]}\n";
  hw.sm.smem_serialisation = 1.0;
  CHECK(end_of(both) == 1'000'000 + 3'000'000'000);
  CHECK(end_of("      - {name: m, ops: [{mma: {m: 1000, n: 1000, k: 500, instr: mma_sync, "
               "operands: {a: smem, tile_m: 10, tile_n: 10}}}]}\n") == 1'000'000 + 2'000'000'000);
  CHECK(end_of("      - {name: m, ops: [{mma: {m: 1000, n: 1000, k: 500, operands: {a: smem, b: "
               "smem, tile_m: 10, tile_n: 10}}}]}\n") == 1'000'000 + 2'000'000'000);
  hw.sm.smem_serialisation = 0.5;
  CHECK(end_of(both) == 1'000'000 + 2'236'067'978);  // ceil(2e9 x sqrt(1.25)) pipe units of 1 ps
  // Registers only (or no `operands`): the pipe's time alone.
  CHECK(end_of("      - {name: m, ops: [{mma: {m: 1000, n: 1000, k: 500, operands: {a: registers, "
               "b: registers, tile_m: 10, tile_n: 10}}}]}\n") == 1'000'000 + 1'000'000'000);
  // A mainloop's MMAs read their operands the same way: with them it ends at least 1.236 ms later.
  const auto loop = [&](const std::string& operands) {
    return end_of(
        "      - {name: m, ops: [{mainloop: {m: 1000, n: 1000, k: 500, k_tile: 100, "
        "stages: 2, instr: mma_sync" +
        operands + "}}]}\n");
  };
  CHECK(loop(", operands: {a: smem, b: smem, tile_m: 10, tile_n: 10}") - loop("") >= 1'236'067'978);
  // Errors: where an operand comes from, the tile, and the type.
  CHECK_THROWS_WITH(end_of("      - {name: m, ops: [{mma: {m: 1, n: 1, k: 1, operands: {a: shared, "
                           "tile_m: 1, tile_n: 1}}}]}\n"),
                    Catch::Contains("smem") && Catch::Contains("registers"));
  CHECK_THROWS_WITH(
      end_of(
          "      - {name: m, ops: [{mma: {m: 1, n: 1, k: 1, operands: {a: smem, tile_m: 1}}}]}\n"),
      Catch::Contains("tile_n"));
  CHECK_THROWS_WITH(end_of("      - {name: m, ops: [{mma: {m: 1, n: 1, k: 1, dtype: fp32, "
                           "operands: {a: smem, tile_m: 1, tile_n: 1}}}]}\n"),
                    Catch::Contains("not fp32"));
  CHECK_THROWS_WITH(end_of("      - {name: m, ops: [{mma: {m: 1, n: 1, k: 1, operands: {a: smem, "
                           "tile_m: 0, tile_n: 1}}}]}\n"),
                    Catch::Contains("tile_m"));
}

TEST_CASE("instr names a tensor-core instruction and goes with tensor flops only") {
  const models::HardwareSpec hw = toy_device(4);
  CHECK_THROWS_WITH(
      run_kernels(
          one_kernel("4", "      - {name: m, ops: [{mma: {m: 1, n: 1, k: 1, instr: hmma}}]}\n"), 1,
          hw),
      Catch::Contains("native") && Catch::Contains("mma_sync"));
  CHECK_THROWS_WITH(
      run_kernels(
          one_kernel("4", "      - {name: m, ops: [{compute: {flops: 1, instr: mma_sync}}]}\n"), 1,
          hw),
      Catch::Contains("'instr' goes with tensor-core flops only"));
  CHECK_THROWS_WITH(
      run_kernels(one_kernel("4", "      - {name: m, ops: [{compute: {sfu: 1, instr: native}}]}\n"),
                  1, hw),
      Catch::Contains("'instr' goes with tensor-core flops only"));
}

TEST_CASE("compute takes exactly one amount, and dtype only with flops") {
  const models::HardwareSpec hw = toy_device(4);
  CHECK_THROWS_WITH(
      run_kernels(one_kernel("4", "      - {name: m, ops: [{compute: {sfu: 1, int32: 1}}]}\n"), 1,
                  hw),
      Catch::Contains("exactly one of 'flops', 'sfu', 'int32' and 'cycles'"));
  CHECK_THROWS_WITH(
      run_kernels(one_kernel("4", "      - {name: m, ops: [{compute: {sfu: 1, dtype: bf16}}]}\n"),
                  1, hw),
      Catch::Contains("'dtype' goes with 'flops' only"));
}
