// Adapters from the layers below to what the executor needs: a topologies::Fabric as an
// Interconnect, and a models::HardwareSpec's copy-engine and HBM figures as a DeviceModel.
//
// Contract: the Interconnect borrows the Fabric (it must outlive it); routes are the Fabric's
// cached routes, unchanged. Rank r of a schedule runs on GPU r of the topology.
#pragma once

#include <cstdint>
#include <memory>

#include "models/hardware_spec.hpp"
#include "topologies/fabric.hpp"
#include "traces/transfers.hpp"

namespace mgsim::traces {

class FabricInterconnect final : public Interconnect {
 public:
  explicit FabricInterconnect(const topologies::Fabric& fabric) : fabric_(fabric) {}
  int gpu_count() const override { return fabric_.gpu_count(); }
  PeerRoute route(int src, int dst, std::uint64_t hint) override {
    const topologies::Fabric::Route& r = fabric_.route(src, dst, hint);
    return {r.resources, r.latency};
  }

 private:
  const topologies::Fabric& fabric_;
};

// The peer-copy limit is models::peer_bandwidth(spec, copy_engine): the NVLink port's rate after
// protocol and path efficiencies (fitted to ParallelKittens Table 1, see docs/MODELS.md), because
// the topology's links carry raw bandwidth.
inline DeviceModel device_model(const models::HardwareSpec& spec) {
  return {spec.copy_engine.count,
          spec.copy_engine.bandwidth,
          spec.copy_engine.setup,
          spec.hbm.bandwidth,
          spec.hbm.latency,
          models::peer_bandwidth(spec, models::PeerPath::copy_engine),
          std::make_shared<const models::HardwareSpec>(spec)};
}

}  // namespace mgsim::traces
