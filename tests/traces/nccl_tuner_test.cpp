// NCCL's choices (traces/nccl/tuner.hpp), each expected value worked out by hand from NCCL
// 2.28.9's source as the header quotes it.
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "traces/nccl/tuner.hpp"

using namespace mgsim::traces::nccl;

TEST_CASE("the ring search: channels and speed as NCCL's search finds them") {
  // H200: 18 links x 20.6 GB/s = 370.8 GB/s. From 60 GB/s: 6 channels (360); 50 gives 7 (350),
  // 40 gives 9 (360, a tie keeps 60), 30 gives 12 (360); 24/60 < 0.49 stops. Duplicated (60 >= 50)
  // to 12 channels at 30; no higher speed fits 12 channels; the communicator runs 24.
  const Comm h200 = make_comm(2, 90, 18);
  CHECK(h200.nvlink_bw == Approx(370.8));
  CHECK(h200.search_channels == 12);
  CHECK(h200.speed == 30.0);
  CHECK(h200.channels == 24);
  // B200: 18 x 40.1 = 721.8 GB/s; 90 GB/s x 8 = 720 is best; duplicated to 16 x 45; 32 channels.
  const Comm b200 = make_comm(72, 100, 18);
  CHECK(b200.search_channels == 16);
  CHECK(b200.speed == 45.0);
  CHECK(b200.channels == 32);
  // A100: 12 x 20 = 240 GB/s: 6 x 40 (ties at 30 and 20 keep 40), duplicated to 12 x 20.
  const Comm a100 = make_comm(8, 80, 12);
  CHECK(a100.search_channels == 12);
  CHECK(a100.speed == 20.0);
  CHECK(a100.channels == 24);
}

TEST_CASE("the tuner's time: latency plus bytes over the protocol's bandwidth") {
  const Comm c = make_comm(2, 90, 18);
  // all_reduce on 2 ranks: 2 steps. Bus bandwidth 12 x 30 = 360 GB/s; x ranks / steps = 1.
  //   LL:     6.6 + 2 x 0.6 = 7.8 us;  min(141, 360 / 2) = 141 GB/s
  //   LL128: 14.0 + 2 x 1.9 = 17.8 us; min(360 x 0.92, 12 x 36.7) = 331.2 GB/s
  //   Simple: 8.4 + 2 x 3.4 = 15.2 us; 360 GB/s
  CHECK(predicted_us(c, Collective::all_reduce, Protocol::ll, 1'000'000) ==
        Approx(7.8 + 1e6 / 141e3));
  CHECK(predicted_us(c, Collective::all_reduce, Protocol::ll128, 1'000'000) ==
        Approx(17.8 + 1e6 / 331.2e3));
  CHECK(predicted_us(c, Collective::all_reduce, Protocol::simple, 1'000'000) ==
        Approx(15.2 + 1e6 / 360e3));
  // all_gather: 1 step, so x 2 on the bandwidth and one hop of latency.
  CHECK(predicted_us(c, Collective::all_gather, Protocol::simple, 1'000'000) ==
        Approx(8.4 + 3.4 + 1e6 / 720e3));
}

TEST_CASE("NCCL's choice: LL for small buffers, Simple past the crossover, threads and channels") {
  const Comm c = make_comm(2, 90, 18);
  // LL and Simple cross where 7.8 + B / 141e3 = 15.2 + B / 360e3: B = 1715134 bytes.
  CHECK(choose(c, Collective::all_reduce, 1'715'000).protocol == Protocol::ll);
  CHECK(choose(c, Collective::all_reduce, 1'716'000).protocol == Protocol::simple);
  // LL on 2 ranks: threshold 8 x 2; 64 KiB keeps channels while 65536 >= c x 512 x 16: 8, and
  // 512 threads (65536 is not below 8 x 512 x 16).
  const Choice small = choose(c, Collective::all_reduce, 65536);
  CHECK(small.channels == 8);
  CHECK(small.threads == 512);
  // 4 KiB: down to 1 channel, then 256 threads (4096 < 1 x 512 x 16 = 8192; not < 4096).
  const Choice tiny = choose(c, Collective::all_reduce, 4096);
  CHECK(tiny.channels == 1);
  CHECK(tiny.threads == 256);
  // Simple keeps all 24 channels at 4 MiB (24 x 512 x 64 = 768 KiB) and adds its sync warp.
  const Choice big = choose(c, Collective::all_reduce, 4 << 20);
  CHECK(big.protocol == Protocol::simple);
  CHECK(big.channels == 24);
  CHECK(big.threads == 544);
  // Forced, as NCCL_PROTO and NCCL_MIN/MAX_NCHANNELS do.
  Constraints k;
  k.protocol = Protocol::ll128;
  k.channels = 4;
  const Choice forced = choose(c, Collective::all_reduce, 4 << 20, k);
  CHECK(forced.protocol == Protocol::ll128);
  CHECK(forced.channels == 4);
  CHECK(forced.threads == 640);
}

TEST_CASE("the ring kernel's slices follow each protocol's buffer") {
  const Comm c = make_comm(2, 90, 18);
  // Simple, 1 GiB all_gather: each rank's segment is 512 MiB, 22369622 B per channel, in 1 MiB
  // slices (a 2 MiB chunk cut in two), 4 slices in flight (8 slots of 512 KiB, 2 per slice).
  const Choice simple{Protocol::simple, 24, 544};
  RingPlan p = plan_ring(c, Collective::all_gather, simple, std::int64_t{1} << 30);
  CHECK(p.steps == 2);
  CHECK(p.part == 22369622);
  CHECK(p.slice == 1 << 20);
  CHECK(p.slices == 22);
  CHECK(p.depth == 4);
  CHECK(p.fence);
  // all_reduce: 2 x (2 - 1) + 1 steps; a small part is cut in two, each at least 32 KiB.
  p = plan_ring(c, Collective::all_reduce, simple, 4 << 20);
  CHECK(p.steps == 3);
  CHECK(p.part == 87382);
  CHECK(p.slice == 43691);
  // LL: 8-byte lines half flag: 32 KiB of data per 64 KiB slot, twice the bytes on the wire.
  p = plan_ring(c, Collective::all_reduce, {Protocol::ll, 8, 512}, 1 << 20);
  CHECK(p.slice == 32768);
  CHECK(p.slices == 2);
  CHECK((p.wire_num == 2 && p.wire_den == 1 && !p.fence && p.depth == 8));
  // LL128: 614400-byte slots of 128-byte lines, 120 bytes of data each: 576000.
  p = plan_ring(c, Collective::all_reduce, {Protocol::ll128, 1, 640}, 64 << 20);
  CHECK(p.slice == 576000);
  CHECK((p.wire_num == 16 && p.wire_den == 15));
}

TEST_CASE("sends and receives: p2p channels per peer and the protocol by size") {
  const Comm c = make_comm(2, 90, 18);
  // 24 channels: 32 p2p channels; per peer 2 x 18 = 36, at most 24, rounded up to 32; the
  // minimum halves while min x ranks > 32: 16.
  // 512 MiB per peer: Simple; 16 channels of 32 MiB exceed 32 x 512 KiB, so 32 of 16 MiB.
  P2pPlan p = plan_p2p(c, std::int64_t{512} << 20);
  CHECK(p.protocol == Protocol::simple);
  CHECK(p.p2p_channels == 32);
  CHECK(p.channels == 32);
  CHECK(p.moves.part == 16 << 20);
  CHECK(p.moves.slice == 512 << 10);
  CHECK(p.moves.depth == 8);
  // 256 KiB per peer: LL (at most 32 x 16 KiB); min(16, 256 KiB / 8 KiB) = 16 channels.
  p = plan_p2p(c, 256 << 10);
  CHECK(p.protocol == Protocol::ll);
  CHECK(p.channels == 16);
  CHECK(p.moves.part == 16384);
}

TEST_CASE("the ring search and channel counts match NCCL's own log of the measured machine") {
  // validate/data/h200/system/run_log.txt: nccl_bench on the two H200s of nccl.csv, run with
  // NCCL_DEBUG=INFO (scripts/measure_h200.sh). NCCL printed its ring graph (pattern 4) after
  // duplication and the channels its communicator runs.
  std::ifstream log(std::string(MGSIM_SOURCE_DIR) + "/validate/data/h200/system/run_log.txt");
  REQUIRE(log);
  std::string line, ring, channels;
  while (std::getline(log, line)) {
    if (ring.empty() && line.find("NCCL INFO Pattern 4,") != std::string::npos) ring = line;
    if (channels.empty() && line.find("coll channels") != std::string::npos) channels = line;
  }
  const Comm c = make_comm(2, 90, 18);
  const P2pPlan p = plan_p2p(c, 1 << 20);
  CHECK_THAT(ring,
             Catch::Contains(fmt::format("nChannels {}, bw {:.6f}/", c.search_channels, c.speed)));
  CHECK_THAT(channels, Catch::Contains(fmt::format("{} coll channels", c.channels)));
  CHECK_THAT(channels, Catch::Contains(fmt::format("{} p2p channels,", p.p2p_channels)));
}

TEST_CASE("broadcast and reduce: one hop of latency, the bus bandwidth, one-slot slices") {
  const Comm c = make_comm(8, 90, 18);
  // nsteps = ranks, so algorithm bandwidth = bus bandwidth (12 x 30 = 360 GB/s for Simple); the
  // ring's own channels: one NVLink hop of latency, 8.4 + 3.4 us.
  CHECK(predicted_us(c, Collective::broadcast, Protocol::simple, 1'000'000) ==
        Approx(8.4 + 3.4 + 1e6 / 360e3));
  CHECK(predicted_us(c, Collective::reduce, Protocol::ll, 1'000'000) ==
        Approx(6.6 + 0.6 + 1e6 / 141e3));
  // Simple: chunk = slice = one 512 KiB slot, 8 in flight; each channel carries bytes / channels
  // of the whole buffer, in one step.
  const RingPlan p = plan_ring(c, Collective::broadcast, {Protocol::simple, 24, 544}, 64 << 20);
  CHECK(p.steps == 1);
  CHECK(p.part == 2796203);  // ceil(64 MiB / 24)
  CHECK(p.slice == 512 << 10);
  CHECK(p.slices == 6);
  CHECK(p.depth == 8);
}

TEST_CASE("NVLS: the search's heads and speed, NCCL's channels, only with multicast") {
  // H200, 8 GPUs: 8 heads; a GPU's NVLink carries (8 + 1) x speed: 60 x 9 = 540 and 50 x 9 = 450
  // exceed 370.8 GB/s, 40 x 9 = 360 fits. The second pass raises bwInter while below 2 x 40:
  // 50, then 60 (the table's top). NVLS_NCHANNELS_SM90 = 16.
  const Comm h200 = make_comm(8, 90, 18, true);
  CHECK(h200.nvls_heads == 8);
  CHECK(h200.nvls_speed == 40.0);
  CHECK(h200.nvls_inter == 60.0);
  CHECK(h200.nvls_channels == 16);
  // GB200 NVL72: 32 heads (NCCL_MAX_NVLS_ARITY); 33 x speed <= 18 x 40.1 = 721.8: 20 (24 x 33 =
  // 792 does not fit); bwInter 24, 30, then 40 (not below 2 x 20); 24 channels on SM100.
  const Comm nvl72 = make_comm(72, 100, 18, true);
  CHECK(nvl72.nvls_heads == 32);
  CHECK(nvl72.nvls_speed == 20.0);
  CHECK(nvl72.nvls_inter == 40.0);
  CHECK(nvl72.nvls_channels == 24);
  // No multicast (NCCL_NVLS_ENABLE=0, or no NVSwitch): no NVLS.
  const Comm off = make_comm(8, 90, 18);
  CHECK(off.nvls_heads == 0);
  CHECK_FALSE(nvls_unavailable(off, Collective::all_reduce, {}).empty());
  CHECK_FALSE(nvls_predicted_us(off, Collective::all_reduce, 1 << 30));
}

TEST_CASE("NVLS: the tuner's time, and NCCL's choice between it and the ring") {
  const Comm c = make_comm(8, 90, 18, true);
  // all_reduce: 40 x 0.85 x 7/8 x 2 = 59.5 GB/s per head (below bwInter 60); 8 heads: 476 bus,
  // x 8 / 14 = 272 GB/s of algorithm bandwidth; latency 25 us.
  CHECK(*nvls_predicted_us(c, Collective::all_reduce, 1'000'000'000) == Approx(25.0 + 1e9 / 272e3));
  // all_gather: 40 x 0.85 x 7/8 x 7/8 = 26.03 GB/s per head, 208.25 bus, not converted.
  CHECK(*nvls_predicted_us(c, Collective::all_gather, 1'000'000'000) ==
        Approx(25.0 + 1e9 / (8 * 40 * 0.85 * 7 / 8 * 7 / 8 * 1e3)));
  CHECK_FALSE(nvls_predicted_us(c, Collective::broadcast, 1 << 20));
  // The ring's LL (15.0 us + B / 80.571 GB/s) against NVLS (25 us + B / 272 GB/s): they cross at
  // B = 10 us / (1 / 80571.4 - 1 / 272000) = 1144836 B. LL128 (40.6 us) and Simple (56 us) lose
  // to NVLS at every size.
  CHECK(choose(c, Collective::all_reduce, 1'144'000).algorithm == Algorithm::ring);
  const Choice nvls = choose(c, Collective::all_reduce, 1'146'000);
  CHECK(nvls.algorithm == Algorithm::nvls);
  CHECK(nvls.protocol == Protocol::simple);
  CHECK(nvls.channels == 16);
  CHECK(nvls.threads == 640);
  // all_gather: the ring's 411 GB/s beats NVLS's 208 at every size.
  CHECK(choose(c, Collective::all_gather, 1 << 30).algorithm == Algorithm::ring);
  // Forced either way; a forced LL leaves NVLS out (it runs Simple only).
  Constraints ring;
  ring.algorithm = Algorithm::ring;
  CHECK(choose(c, Collective::all_reduce, 1 << 30, ring).algorithm == Algorithm::ring);
  Constraints ll;
  ll.protocol = Protocol::ll;
  CHECK(choose(c, Collective::all_reduce, 1 << 30, ll).algorithm == Algorithm::ring);
  CHECK_FALSE(nvls_unavailable(c, Collective::all_reduce, ll).empty());
  Constraints fp8;
  fp8.nvls_type = false;
  CHECK(choose(c, Collective::all_reduce, 1 << 30, fp8).algorithm == Algorithm::ring);
  CHECK(nvls_unavailable(c, Collective::all_gather, fp8).empty());  // no reduction in it
}

TEST_CASE("NVLS: chunks and the warps of each group") {
  const Comm c = make_comm(8, 90, 18, true);
  const Choice nvls{Protocol::simple, 16, 640, Algorithm::nvls};
  // 1 GiB all_reduce: 2^30 / 16 channels / 8 heads = 8 MiB per head; chunk min(512 KiB slot,
  // 128 KiB) kept (1 GiB is not below 64 x 16 x 8 x 128 KiB = 1 GiB): 64 loops. 8 ranks (> 6):
  // 5 reduce warps, (20 - 5 + 1) / 2 = 8 scatter, (20 - 5) / 2 = 7 gather.
  NvlsPlan p = plan_nvls(c, Collective::all_reduce, nvls, std::int64_t{1} << 30);
  CHECK(p.heads == 8);
  CHECK(p.part == 8 << 20);
  CHECK(p.chunk == 128 << 10);
  CHECK(p.loops == 64);
  CHECK(p.depth == 8);
  CHECK((p.in_threads == 256 && p.reduce_threads == 160 && p.out_threads == 224));
  // 4 MiB: below 64, 8 and 2 x 128 chunks of 64, 32, 16 KiB: 16 KiB; 32 KiB per head: 2 loops.
  p = plan_nvls(c, Collective::all_reduce, nvls, 4 << 20);
  CHECK(p.chunk == 16 << 10);
  CHECK(p.part == 32 << 10);
  CHECK(p.loops == 2);
  // all_gather: each rank's segment (1/8) per channel; 8 gather warps, 12 multicast.
  p = plan_nvls(c, Collective::all_gather, nvls, std::int64_t{1} << 30);
  CHECK(p.part == (std::int64_t{1} << 30) / 8 / 16);
  CHECK((p.in_threads == 384 && p.reduce_threads == 0 && p.out_threads == 256));
}
