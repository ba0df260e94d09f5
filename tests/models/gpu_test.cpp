// models::Gpu: the one owner of a GPU's fluid resources. Names, creation order (resource ids feed
// the solver and the trace), catalogue groups and lazy creation.
#include "models/gpu.hpp"

#include <catch2/catch.hpp>

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

}  // namespace
}  // namespace mgsim::models
