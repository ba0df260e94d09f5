// Pure unit physics: occupancy, compute and issue times, sectors, L2 hit fraction, NVLink port.
#include <cmath>

#include <catch2/catch.hpp>

#include "models/hardware_spec.hpp"

namespace mgsim::models {
namespace {

using sim::Bytes;
using sim::Duration;

SmSpec hopper_sm() { return SmSpec{}; }  // the defaults are H100 SXM5's (models/sm.hpp)

TEST_CASE("occupancy: each limit binds in turn", "[models][sm]") {
  const SmSpec sm = hopper_sm();
  // 128 threads, 32 regs, no smem: threads allow 2048/128 = 16; registers 32*32 = 1024 per warp,
  // 65536/1024 = 64 warps / 4 warps = 16; shared memory 1 KiB reserved -> 228 CTAs; slots 32.
  CHECK(sm.ctas_per_sm({128, 32, Bytes(0)}) == 16);
  // 64 threads (2 warps), 16 regs: threads 2048/64 = 32, registers 512/warp -> 128 warps / 2 = 64,
  // so the 32 CTA slots bind.
  CHECK(sm.ctas_per_sm({64, 16, Bytes(0)}) == 32);
  // 256 threads (8 warps), 128 regs: 4096 regs/warp -> 16 warps -> 2 CTAs (threads would allow 8).
  CHECK(sm.ctas_per_sm({256, 128, Bytes(0)}) == 2);
  // 384 threads (12 warps), 168 regs (a CUTLASS-style consumer): 168*32 = 5376 -> rounded up to
  // 5376 (already a multiple of 256) -> 65536/5376 = 12 warps -> 1 CTA.
  CHECK(sm.ctas_per_sm({384, 168, Bytes(0)}) == 1);
  // 128 threads, 32 regs, 100 KiB smem: (100 + 1 reserved) KiB per CTA -> 228/101 = 2.
  CHECK(sm.ctas_per_sm({128, 32, Bytes::KiB(100)}) == 2);
  // The largest opt-in allocation, 227 KiB + 1 KiB reserved = 228 KiB: exactly one CTA fits.
  CHECK(sm.ctas_per_sm({128, 32, Bytes::KiB(227)}) == 1);
  // One byte more than a CTA may ask for: nothing fits.
  CHECK(sm.ctas_per_sm({128, 32, Bytes::KiB(227) + Bytes(1)}) == 0);
  // More threads than an SM holds: nothing fits.
  CHECK(sm.ctas_per_sm({4096, 32, Bytes(0)}) == 0);
}

TEST_CASE("register allocation rounds up per warp", "[models][sm]") {
  const SmSpec sm = hopper_sm();
  // 33 regs * 32 lanes = 1056 -> rounded up to 1280 (5 units of 256) per warp; 65536/1280 = 51
  // warps; 256-thread CTAs have 8 warps -> 6 CTAs. Without rounding it would be 62/8 = 7.
  CHECK(sm.ctas_per_sm({256, 33, Bytes(0)}) == 6);
}

TEST_CASE("an SM's pipe rates run at the dtype's clock", "[models][sm]") {
  const SmSpec sm = hopper_sm();
  // bf16: 4096 flops/cycle at the 1.83 GHz tensor clock = 7.49568e15 flops/s per SM.
  CHECK(sm.flops_per_second(Dtype::bf16) == 7'495'680'000'000);
  // fp32: 256 flops/cycle at the 1.98 GHz SM clock = 5.0688e11 flops/s per SM.
  CHECK(sm.flops_per_second(Dtype::fp32) == 506'880'000'000);
  // The whole GPU: 132 SMs x 7.49568e15 = 9.8942976e17.
  CHECK(sm.peak_flops_per_second(Dtype::bf16) == 132 * sm.flops_per_second(Dtype::bf16));
}

TEST_CASE("dtype names round-trip", "[models][sm]") {
  for (Dtype d : {Dtype::bf16, Dtype::fp16, Dtype::fp8, Dtype::tf32, Dtype::fp32}) {
    Dtype back = Dtype::fp32;
    REQUIRE(parse_dtype(to_string(d), back));
    CHECK(back == d);
  }
  Dtype unused = Dtype::bf16;
  CHECK_FALSE(parse_dtype("int8", unused));
}

TEST_CASE("TMA: one issue per op, messages in flight", "[models][tma]") {
  TmaSpec tma;  // 227 KiB messages, 64 cycles to issue, 32 in flight
  // One op pays one issue whatever its size: 64 cycles at 1.98 GHz = 64e12 / 1.98e9 = 32323.23
  // -> 32324 ps.
  CHECK(tma.issue_time(sim::Frequency::mhz(1980)) == Duration::ps(32'324));
  // At most 32 whole messages of 227 KiB = 232448 B each in flight.
  CHECK(tma.max_bytes_in_flight() == 32 * 232'448);
}

TEST_CASE("ld/st moves whole sectors", "[models][ldst]") {
  LdStSpec ldst;  // 32-byte sectors
  // 33 bytes touch 2 sectors = 64 bytes; 64 bytes exactly 2 sectors; 0 bytes none.
  CHECK(ldst.sectors_bytes(Bytes(33)) == Bytes(64));
  CHECK(ldst.sectors_bytes(Bytes(64)) == Bytes(64));
  CHECK(ldst.sectors_bytes(Bytes(0)) == Bytes(0));
}

TEST_CASE("L2 hit fraction: all of a fitting working set, the resident share beyond",
          "[models][l2]") {
  L2Spec l2;
  l2.capacity = Bytes(50'000'000);
  CHECK(l2.hit_fraction(Bytes(10'000'000)) == 1.0);
  CHECK(l2.hit_fraction(Bytes(50'000'000)) == 1.0);
  // Twice the capacity: half of it stays resident.
  CHECK(l2.hit_fraction(Bytes(100'000'000)) == Approx(0.5));
}

TEST_CASE("HBM: a wait for k lines is for the latest of k, latency + spread x (H_k - 1)",
          "[models][hbm]") {
  HbmSpec hbm;
  hbm.latency = Duration::ns(400);
  hbm.latency_spread = Duration::ns(30);
  CHECK(hbm.latest_of(1) == Duration::ns(400));
  CHECK(hbm.latest_of(2) == Duration::ns(415));      // H_2 = 3/2
  CHECK(hbm.latest_of(4) == Duration::ps(432'500));  // H_4 = 25/12
  double h64 = 0;                                    // H_64, summed here
  for (int i = 1; i <= 64; ++i) h64 += 1.0 / i;
  CHECK(hbm.latest_of(64) == Duration::ps(std::llround(400e3 + 30e3 * (h64 - 1))));
  // Past 64 terms the series: one more line adds spread / k, as the sum does.
  const double step = static_cast<double>((hbm.latest_of(65) - hbm.latest_of(64)).picoseconds());
  CHECK(step == Approx(30e3 / 65).margin(1));
  CHECK(hbm.latest_of(1'000'000'000) > hbm.latest_of(1'000'000));
  hbm.latency_spread = Duration::zero();
  CHECK(hbm.latest_of(1000) == Duration::ns(400));
}

TEST_CASE("NVLink port: links x per-link rate", "[models][nvlink]") {
  NvlinkSpec nvl;
  nvl.links = 18;
  nvl.link_bandwidth = sim::Bandwidth::GBps(25);
  // 18 x 25 GB/s = 450 GB/s per direction.
  CHECK(nvl.port_bandwidth() == sim::Bandwidth::GBps(450));
}

}  // namespace
}  // namespace mgsim::models
