// The adapter from the layer below to what the executor needs: a topologies::Fabric as an
// Interconnect, whole or folded by a node translation.
//
// Contract: the Interconnect borrows the Fabric (it must outlive it); rank r of a schedule runs
// on GPU r of the topology.
//   - FabricInterconnect: routes are the Fabric's cached routes, unchanged.
//   - FoldedInterconnect (a symmetric run simulated once, traces/simulation.hpp): GPUs
//     0 .. period - 1 stand for every GPU (GPU g for g + k * period); a route from one of them is
//     the Fabric's route with each link replaced by its stand-in
//     (topologies::Translation::arc_stand_in), so the flows of all translates of a send load the
//     stand-in links as much as each of them loads its own. Exact when every translate takes the
//     translated route: a route with an equal-cost choice (ECMP picks by the pair, not by its
//     place), one through a link between shared switches (every translate crosses that link), or
//     one crossing a stand-in twice throws SymmetryBroken.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "sim/check.hpp"
#include "topologies/fabric.hpp"
#include "topologies/symmetry.hpp"
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
  sim::Duration latency(int src, int dst) override { return fabric_.latency(src, dst); }
  int nvlink_domain(int gpu) const override { return fabric_.nvlink_domain(gpu); }

 private:
  const topologies::Fabric& fabric_;
};

class FoldedInterconnect final : public Interconnect {
 public:
  // REQUIRES: `translation` is a symmetry of fabric.routing() (topologies::node_translation).
  FoldedInterconnect(const topologies::Fabric& fabric, const topologies::Translation& translation)
      : fabric_(fabric), translation_(translation) {}
  int gpu_count() const override { return fabric_.gpu_count(); }
  int simulated_gpus() const override { return translation_.period; }
  int nvlink_domain(int gpu) const override { return fabric_.nvlink_domain(gpu); }

  PeerRoute route(int src, int dst, std::uint64_t hint) override {
    MGSIM_CHECK(src < translation_.period, "a folded run routes from GPU {}", src);
    const topologies::Fabric::Route& r = fabric_.route(src, dst, hint);
    const auto [it, fresh] = folded_.try_emplace(&r);
    if (fresh) {
      if (!r.single)
        throw SymmetryBroken(fmt::format("GPU {} to {} has equal-cost routes", src, dst));
      for (const int arc : r.arcs) {
        const int stand_in = translation_.arc_stand_in[static_cast<std::size_t>(arc)];
        if (stand_in < 0)
          throw SymmetryBroken(
              fmt::format("GPU {} to {} crosses a link between shared switches", src, dst));
        const sim::ResourceId id = fabric_.resource_of_arc(stand_in);
        if (std::ranges::find(it->second, id) != it->second.end())
          throw SymmetryBroken(fmt::format("GPU {} to {} crosses a stand-in twice", src, dst));
        it->second.push_back(id);
      }
    }
    return {it->second, r.latency, fabric_.nvlink_domain(src) == fabric_.nvlink_domain(dst)};
  }

 private:
  const topologies::Fabric& fabric_;
  const topologies::Translation& translation_;
  std::unordered_map<const topologies::Fabric::Route*, std::vector<sim::ResourceId>> folded_;
};

}  // namespace mgsim::traces
