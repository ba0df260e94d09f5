// Copy-engine transfers: how the host-level ops of a schedule move bytes (memcpy and the peer
// copies collectives expand into).
//
// Model (one GPU per rank, its resources owned by models::Gpu):
//   - Each GPU has copy_engine.count engines; a transfer holds one engine from the moment it gets
//     it until its last byte has moved. Transfers wait for a free engine in FIFO order (the
//     lowest free engine index is taken, so runs are deterministic).
//   - After taking an engine a transfer waits copy_engine.setup (copy_engine.pull_setup when the
//     engine's GPU reads a peer) plus the path latency (the route's latency for a peer copy, the
//     HBM latency for a local one), then its bytes flow.
//   - A peer copy is one fluid flow over [engine, route resources..., the source's peer.out, the
//     destination's peer.in]; each engine is a resource of copy_engine.bandwidth, so an engine's
//     rate caps its copy and the fabric shares the links; the peer ports
//     (models::peer_bandwidth(spec, copy_engine), absent on a GPU without NVLink) are the NVLink
//     protocol efficiency: the topology's trunks carry raw bandwidth, and the efficiency bounds
//     the aggregate, not each copy alone.
//   - A local copy (src == dst) reads and writes the same HBM: two flows of `bytes` each over
//     [hbm], done when both are; the engine's `bandwidth` (what it reaches over NVLink) does not
//     bound it (validate/data/h200-single/memcpy_local.csv: 2.13 TB/s for 1 GiB, 98 % of
//     hbm.bandwidth / 2, on copy engines: it does not wait for a kernel holding every SM).
// SM-driven peer copies (sm_copy, what NCCL's kernels do for the collective macros): no engine, no
// engine setup; after the route's latency one flow over [route resources, the source's peer out,
// the destination's peer in] capped at models::peer_bandwidth(spec, ldst), the ld/st path's
// saturated peer rate (enough SMs to saturate it: NCCL runs one CTA per channel, 24 here).
// Ignores: HBM traffic of peer copies (NVLink injection is at most ~1/5 of HBM bandwidth on the
// H100/H200/B200 parts, so HBM is not the bottleneck of a host-level peer copy), splitting one
// copy across engines. The host's cost of issuing a copy is the executor's (models/host.hpp).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "models/gpu.hpp"
#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "sim/units.hpp"

namespace mgsim::traces {

struct PeerRoute {
  std::span<const sim::ResourceId> resources;
  sim::Duration latency;
  // The two GPUs share an NVLink domain, so the route leaves and enters them through their NVLink
  // ports (the peer ports of models::Gpu); otherwise it leaves by PCIe (a NIC, the network).
  bool nvlink = true;
};

// What the executor needs of the fabric: GPU-to-GPU routes of resources in the same FluidNetwork.
class Interconnect {
 public:
  virtual ~Interconnect() = default;
  virtual int gpu_count() const = 0;
  // REQUIRES: src != dst, both in [0, gpu_count()). The span stays valid for the Interconnect's
  // lifetime. `hint` spreads flows over equal-cost paths deterministically.
  virtual PeerRoute route(int src, int dst, std::uint64_t hint) = 0;
  // route(src, dst, hint).latency, whatever the hint (equal-cost paths are equally long).
  virtual sim::Duration latency(int src, int dst) { return route(src, dst, 0).latency; }
  // GPUs of one NVLink domain (topologies::Fabric::nvlink_domain) share the number.
  virtual int nvlink_domain(int gpu) const {
    (void)gpu;
    return 0;
  }
  // The GPUs a run simulates: 0 .. simulated_gpus() - 1, GPU g standing for every GPU
  // g + k * simulated_gpus() (a folded run: traces/fabric_interconnect.hpp); all by default.
  virtual int simulated_gpus() const { return gpu_count(); }
  int stand_in(int gpu) const { return gpu % simulated_gpus(); }
};

// A folded run met something that breaks the symmetry it relies on (a route with an equal-cost
// choice, segments of unequal sizes, ...): its caller runs every rank instead
// (traces/simulation.cpp). `what()` says what, for tests.
class SymmetryBroken : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Transfers {
 public:
  // `gpus[r]` is rank r's GPU, its resources in `net`; `gpus` must outlive the Transfers.
  Transfers(sim::Engine& engine, sim::FluidNetwork& net, Interconnect& fabric,
            std::span<models::Gpu> gpus);

  // A copy of `bytes` from GPU `src` to GPU `dst`; `done` runs when the last byte has moved.
  // `label` names the slice on the engine's trace track. `source_in_l2`: a local copy's source
  // is read from the L2, where the pattern keeps it (models::L2Spec::keeps_copy), not from HBM.
  struct CopyRequest {
    int src, dst;
    sim::Bytes bytes;
    std::uint64_t hint;
    std::string_view label;
    std::function<void()> done;
    bool source_in_l2 = false;
  };
  // Runs `req` on an engine of GPU `owner`, first come first served among its engines.
  // REQUIRES: req.bytes > 0; owner, req.src, req.dst in [0, gpus).
  void copy(int owner, CopyRequest req);

  // Copies `bytes` from GPU `src` to GPU `dst` with SMs (ld/st), as above; `done` runs when the
  // last byte has landed. REQUIRES: bytes > 0, src != dst.
  void sm_copy(int src, int dst, sim::Bytes bytes, std::uint64_t hint, std::function<void()> done);

  // Interconnect::simulated_gpus(): the ranks a folded run simulates.
  int simulated_ranks() const { return fabric_.simulated_gpus(); }

 private:
  // One GPU's copy engines in use and the copies waiting for one.
  struct Queue {
    std::vector<bool> busy;  // by engine index
    std::deque<CopyRequest> waiting;
  };

  void start(int owner, int engine_index, CopyRequest req);
  void release(int owner, int engine_index);
  // The GPU that stands for `rank` (itself unless the run is folded).
  models::Gpu& gpu(int rank) const {
    return gpus_[static_cast<std::size_t>(fabric_.stand_in(rank))];
  }
  // Appends [route..., src's peer.out, dst's peer.in] to path_: the copy engines' NVLink ports,
  // which SM-driven copies cross too (their own rate is a cap on the flow).
  void append_peer_path(const PeerRoute& route, int src, int dst);

  sim::Engine& engine_;
  sim::FluidNetwork& net_;
  Interconnect& fabric_;
  std::span<models::Gpu> gpus_;
  std::vector<Queue> queues_;
  std::vector<sim::ResourceId> path_;  // scratch, reused for every flow
};

}  // namespace mgsim::traces
