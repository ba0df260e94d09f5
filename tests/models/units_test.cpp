// Pure unit physics: occupancy, compute and issue times, sectors, L2 hit fraction, NVLink port.
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

TEST_CASE("compute time rounds up to whole cycles at the dtype's clock", "[models][sm]") {
  const SmSpec sm = hopper_sm();
  // 4096 * 1000 bf16 flops = 1000 cycles at 1.83 GHz = 1e15 / 1.83e9 ps = 546448.09 -> 546449 ps.
  CHECK(sm.compute_time(4096 * 1000, Dtype::bf16) == Duration::ps(546'449));
  // One flop still takes a whole cycle: 1e12 / 1.83e9 = 546.45 -> 547 ps.
  CHECK(sm.compute_time(1, Dtype::bf16) == Duration::ps(547));
  // fp32 runs at the 1.98 GHz clock: 256 * 990 flops = 990 cycles = 990e12 / 1.98e9 = 500000 ps.
  CHECK(sm.compute_time(256 * 990, Dtype::fp32) == Duration::ps(500'000));
  CHECK(sm.compute_time(0, Dtype::fp8) == Duration::zero());
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

TEST_CASE("TMA: messages and issue time", "[models][tma]") {
  TmaSpec tma;  // 227 KiB messages, 64 cycles each
  // 300 KiB needs ceil(300/227) = 2 messages; 1 byte needs 1; 227 KiB exactly needs 1.
  CHECK(tma.messages(Bytes::KiB(300)) == 2);
  CHECK(tma.messages(Bytes(1)) == 1);
  CHECK(tma.messages(Bytes::KiB(227)) == 1);
  CHECK(tma.messages(Bytes(0)) == 0);
  // 2 messages x 64 cycles = 128 cycles at 1.98 GHz = 128e12 / 1.98e9 = 64646.46 -> 64647 ps.
  CHECK(tma.message_time(Bytes::KiB(300), sim::Frequency::mhz(1980)) == Duration::ps(64'647));
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

TEST_CASE("copy engine: setup then bytes at the engine rate", "[models][copy_engine]") {
  CopyEngineSpec ce;
  ce.setup = Duration::us(2);
  ce.bandwidth = sim::Bandwidth::GBps(400);
  // 4 KB at 400 GB/s = 4000 / 400e9 s = 10 ns: a few-KB copy is dominated by the 2 us setup.
  CHECK(ce.transfer_time(Bytes(4'000)) == Duration::us(2) + Duration::ns(10));
}

TEST_CASE("NVLink port: links x per-link rate, then protocol efficiency", "[models][nvlink]") {
  NvlinkSpec nvl;
  nvl.links = 18;
  nvl.link_bandwidth = sim::Bandwidth::GBps(25);
  nvl.protocol_efficiency = 0.5;
  // 18 x 25 GB/s = 450 GB/s per direction; half of it carries data.
  CHECK(nvl.port_bandwidth() == sim::Bandwidth::GBps(450));
  CHECK(nvl.effective_bandwidth() == sim::Bandwidth::bytes_per_second(225'000'000'000));
}

}  // namespace
}  // namespace mgsim::models
