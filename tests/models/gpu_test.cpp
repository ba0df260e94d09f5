// models::Gpu: the one owner of a GPU's fluid resources. Names, creation order (resource ids feed
// the solver and the trace), catalogue groups and lazy creation.
#include "models/gpu.hpp"

#include <cmath>

#include <catch2/catch.hpp>

#include "sim/check.hpp"
#include "sim/engine.hpp"

namespace mgsim::models {
namespace {

HardwareSpec two_engine_spec() {
  HardwareSpec hw;
  hw.sm.count = 2;
  hw.copy_engine.count = 2;
  hw.copy_engine.bandwidth = sim::Bandwidth::GBps(50);
  hw.nvlink.links = 4;
  hw.nvlink.link_bandwidth = sim::Bandwidth::GBps(25);
  hw.nvlink.protocol_efficiency = 0.5;
  hw.ldst.nvlink_efficiency = 0.5;
  return hw;
}

TEST_CASE("a Gpu creates its copy engines, HBM and copy-engine peer ports first, in order",
          "[models][gpu]") {
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  ResourceCatalog catalog;
  const HardwareSpec hw = two_engine_spec();
  Gpu gpu(3, hw, net, &catalog);
  // ce0, ce1, hbm, peer.out, peer.in: ids 0 .. 4.
  REQUIRE(gpu.copy_engines().size() == 2);
  CHECK(net.name(gpu.copy_engines()[1]) == "gpu3.ce1");
  CHECK(gpu.hbm().value == 2);
  CHECK(net.name(gpu.hbm()) == "gpu3.hbm");
  const auto out = gpu.peer_port(PeerPath::copy_engine, PortDirection::out);
  REQUIRE(out);
  CHECK(out->value == 3);
  CHECK(net.name(*out) == "gpu3.peer.out");
  // The copy engines' port: 4 x 25 GB/s x protocol 0.5 = 50 GB/s.
  CHECK(net.capacity(*out) == sim::Bandwidth::GBps(50));
  CHECK(catalog.entries().size() == 5);
  CHECK(catalog.find(gpu.hbm())->group == "gpu3.hbm");
  CHECK(catalog.find(gpu.copy_engines()[0])->group == "gpu3.copy_engine");
}

TEST_CASE("a Gpu creates SM pipes, L2 and SM-driven peer ports on first use", "[models][gpu]") {
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  ResourceCatalog catalog;
  const HardwareSpec hw = two_engine_spec();
  Gpu gpu(0, hw, net, &catalog);
  CHECK(net.resource_count() == 5);
  // The ld/st port: 100 GB/s x protocol 0.5 x ld/st 0.5 = 25 GB/s; created once.
  const auto ldst = gpu.peer_port(PeerPath::ldst, PortDirection::in);
  REQUIRE(ldst);
  CHECK(net.name(*ldst) == "gpu0.ldst.peer.in");
  CHECK(net.capacity(*ldst) == sim::Bandwidth::GBps(25));
  CHECK(gpu.peer_port(PeerPath::ldst, PortDirection::in)->value == ldst->value);
  gpu.create_sm_pipes();
  gpu.create_sm_pipes();  // idempotent
  // One tensor pipe per SM, then the L2 and an FP32 pipe when first asked for.
  CHECK(net.resource_count() == 8);
  CHECK(net.name(gpu.pipe(1, Dtype::bf16)) == "gpu0.sm1.tensor");
  CHECK(catalog.find(gpu.pipe(1, Dtype::bf16))->group == "gpu0.tensor");
  CHECK(net.name(gpu.l2()) == "gpu0.l2");
  CHECK(net.name(gpu.pipe(0, Dtype::fp32)) == "gpu0.sm0.fp32");
  CHECK(catalog.find(gpu.pipe(0, Dtype::fp32)) == nullptr);  // the roofline counts tensor pipes
  CHECK(net.resource_count() == 10);
  // fp8 runs at twice bf16's rate: 1000 fp8 flops are 500 bf16-equivalent flops.
  CHECK(gpu.pipe_amount(1000, Dtype::fp8) == sim::Bytes(500));
}

TEST_CASE("a Gpu without NVLink has no peer ports", "[models][gpu]") {
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  HardwareSpec hw = two_engine_spec();
  hw.nvlink.links = 0;
  Gpu gpu(0, hw, net, nullptr);
  CHECK_FALSE(gpu.peer_port(PeerPath::copy_engine, PortDirection::out));
  CHECK_FALSE(gpu.peer_port(PeerPath::tma, PortDirection::in));
  CHECK(net.resource_count() == 3);  // ce0, ce1, hbm
}

TEST_CASE("communication warps take their shares of an SM's math pipes while they run",
          "[models][gpu]") {
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  HardwareSpec hw = two_engine_spec();
  hw.ldst.warp_share_tensor = 0.25;
  hw.ldst.warp_share_fp32 = 0.125;
  hw.tma.warp_share_tensor = 0.5;
  hw.tma.warp_share_fp32 = 0.0625;
  Gpu gpu(0, hw, net, nullptr);
  gpu.create_sm_pipes();
  const std::int64_t tensor = hw.sm.flops_per_second(Dtype::bf16);
  const std::int64_t fp32 = hw.sm.flops_per_second(Dtype::fp32);
  const auto capacity = [&](Dtype d) { return net.capacity(gpu.pipe(1, d)).bytes_per_second(); };
  // One ld/st warp: the tensor pipe at 1 - 0.25, the FP32 pipe (created later) at 1 - 0.125.
  gpu.add_comm_warp(1, Gpu::CommWarp::ldst, +1);
  CHECK(capacity(Dtype::bf16) == tensor * 3 / 4);
  CHECK(capacity(Dtype::fp32) == fp32 * 7 / 8);
  // Another SM is untouched.
  CHECK(net.capacity(gpu.pipe(0, Dtype::bf16)).bytes_per_second() == tensor);
  // Plus a TMA warp: the tensor pipe at 1 - 0.25 - 0.5, the FP32 pipe at 1 - 0.125 - 0.0625.
  gpu.add_comm_warp(1, Gpu::CommWarp::tma, +1);
  CHECK(capacity(Dtype::bf16) == tensor / 4);
  CHECK(capacity(Dtype::fp32) == fp32 * 13 / 16);
  // A second TMA warp would take it all: the pipe keeps kMinMathShare of its peak.
  gpu.add_comm_warp(1, Gpu::CommWarp::tma, +1);
  CHECK(capacity(Dtype::bf16) == std::llround(static_cast<double>(tensor) * Gpu::kMinMathShare));
  // All given back: the peaks exactly.
  gpu.add_comm_warp(1, Gpu::CommWarp::tma, -2);
  gpu.add_comm_warp(1, Gpu::CommWarp::ldst, -1);
  CHECK(capacity(Dtype::bf16) == tensor);
  CHECK(capacity(Dtype::fp32) == fp32);
  CHECK_THROWS_AS(gpu.add_comm_warp(1, Gpu::CommWarp::ldst, -1), sim::InternalError);
}

}  // namespace
}  // namespace mgsim::models
