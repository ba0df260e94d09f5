// The adapter from the layer below to what the executor needs: a topologies::Fabric as an
// Interconnect.
//
// Contract: the Interconnect borrows the Fabric (it must outlive it); routes are the Fabric's
// cached routes, unchanged. Rank r of a schedule runs on GPU r of the topology.
#pragma once

#include <cstdint>

#include "topologies/fabric.hpp"
#include "traces/transfers.hpp"

namespace mgsim::traces {

class FabricInterconnect final : public Interconnect {
 public:
  explicit FabricInterconnect(const topologies::Fabric& fabric) : fabric_(fabric) {}
  int gpu_count() const override { return fabric_.gpu_count(); }
  PeerRoute route(int src, int dst, std::uint64_t hint) override {
    const topologies::Fabric::Route& r = fabric_.route(src, dst, hint);
    return {r.resources, r.latency, fabric_.nvlink_domain(src) == fabric_.nvlink_domain(dst)};
  }
  int nvlink_domain(int gpu) const override { return fabric_.nvlink_domain(gpu); }

 private:
  const topologies::Fabric& fabric_;
};

}  // namespace mgsim::traces
