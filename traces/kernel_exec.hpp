// Runs kernel launches (traces/kernel_schedule.hpp) on the GPUs of a simulation: CTAs placed on
// SMs by occupancy, roles walking their ops lazily, ops mapped onto discrete events and fluid
// flows.
//
// Model, per launch on rank r:
//   - the launch costs spec.launch.kernel, then CTAs are placed: ctas_per_sm from threads,
//     registers and shared memory (models::SmSpec::ctas_per_sm), slots = ctas_per_sm x SMs. CTA i
//     of the first wave goes to SM i % SMs; a non-persistent grid larger than the slots runs in
//     waves (when a CTA ends, the next CTA starts on the SM it freed). A persistent grid must fit.
//   - a CTA runs its roles concurrently (those whose `if` holds); a role runs its ops in order;
//     the CTA ends when all its roles have; the launch ends when all its CTAs have.
//   - every SM has a tensor-pipe resource of flops_per_cycle_bf16 x tensor_clock flops/s (flops are
//     the "bytes" of its flows, so co-resident roles share it max-min fairly); an mma or compute of
//     another tensor dtype counts bf16-equivalent flops (flops x bf16 rate / dtype rate), fp32
//     compute goes to a separate FP32 pipe of flops_per_cycle_fp32 x clock. `compute: {cycles}`
//     is a fixed delay at the SM clock.
//   - load/store via tma or ldst: a fixed cost, then one flow. Local: over [HBM of r]; peer p:
//     over [the HBM of the GPU that owns the memory (p), route(src, dst), a per-GPU egress and
//     ingress resource for that path of models::peer_bandwidth(spec, tma|ldst)]. Latency L = HBM
//     latency (+ route latency for a peer). tma: fixed = one message's issue cycles + L, per-CTA
//     rate cap = messages_in_flight x min(bytes, max_message) / L; ldst: bytes rounded up to
//     sectors, fixed = L, cap = bytes_in_flight_per_sm / L.
//   - store with add (TMA store-add, cp.reduce.async.bulk .add): as a TMA store, plus the
//     destination's L2 reduction resource (spec.l2.reduction_bandwidth: the read-modify-write)
//     and the destination's HBM a second time (the read of the read-modify-write);
//     a peer store-add uses separate egress/ingress resources of models::peer_bandwidth(spec,
//     tma_reduce) = the TMA rate x tma.reduce_efficiency.
//   - load with a working_set W: h = models::L2Spec::hit_fraction(W) of the bytes hit the
//     owner's L2 (a peer's data is cached in the peer's L2): a flow over [L2 of the owner (+ the
//     peer path)], then the misses as a flow over [HBM of the owner (+ the peer path)]; the two
//     run one after the other (a warp's loads retire in order), each under the same cap, and
//     L = h x L2 hit latency + (1 - h) x HBM latency (+ route latency). Without W, h = 0.
//   - multimem (NVSwitch, needs every route to cross a switch and spec.nvswitch.multicast /
//     reduction): fixed = route latency + switch latency, then concurrent flows:
//       store X: X over r's uplink, X over every other rank's downlink (multicast);
//       reduce X (ld_reduce): X over every other rank's uplink (each contributor's egress once),
//                X over r's downlink (the result's ingress once), capped at reduction_bandwidth.
//     A GPU's own contribution and copy stay in its memory.
//   - mainloop {m, n, k, k_tile, stages, dtype}: steps = ceil(k / k_tile), a stage is
//     (m + n) x k_tile elements; operands come through L2 (tiles are re-read by many CTAs; the
//     first HBM touch is ignored), from the peer's L2 over NVLink with `peer`. Approximation,
//     without one event per k-step: fill = L2 latency (+ route) + issue + one stage's load flow;
//     then, with stages >= 2, the remaining loads and the MMA of all but the last step run as two
//     concurrent flows; when both are done, the last step's MMA. Time ~ fill + max(load, mma) +
//     last MMA. With stages == 1 loads and MMAs do not overlap (fill, rest of the loads, all MMAs).
//     The load flow's cap is min(stages x stage, messages_in_flight x max_message) / L.
//   - signal lands on the target rank after the route latency (at once when local); the role
//     goes on at once. wait blocks until flag >= value; a remote flag is seen a route latency
//     after it changed. arrive/sync: the n-th sync of a role on a barrier waits for n x count
//     arrivals in its CTA, and costs mbarrier_cycles when it had to wait.
// Ignores: concurrent kernels' occupancy limits on one GPU (each launch places its CTAs as if it
// had the SMs to itself; their flows still share pipes, HBM and links), L2 hits other than a load's
// declared working set (stores and multimem ops go to HBM, a mainloop's operands to L2), L2
// bandwidth used by misses, instruction issue inside a role, and HBM traffic of multimem ops.
// Deterministic: same inputs, same picoseconds. Values are ConfigErrors naming the YAML value.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <span>

#include "models/gpu.hpp"
#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "traces/kernel_schedule.hpp"
#include "traces/transfers.hpp"

namespace mgsim::traces {

class KernelRunner {
 public:
  // Rank r runs on GPU r of `fabric`, its resources those of gpus[r] (which must outlive the
  // runner); the world is gpus.size(). REQUIRES: gpus non-empty, all of one HardwareSpec.
  KernelRunner(const KernelSet& kernels, sim::Engine& engine, sim::FluidNetwork& net,
               Interconnect& fabric, std::span<models::Gpu> gpus);
  ~KernelRunner();
  KernelRunner(const KernelRunner&) = delete;
  KernelRunner& operator=(const KernelRunner&) = delete;

  // Launches kernel `kernel` on `rank`. `env` has the kernel's slot_count slots with params,
  // rank, world and the args filled in. `done` runs when the last CTA has finished.
  // Returns an id for blocked_reason().
  int launch(int rank, int kernel, Env env, std::function<void()> done);

  // Why launch `id` has not finished (for deadlock reports): the first blocked role, naming
  // rank, kernel, CTA, role and what it waits on, and how many more are blocked.
  std::string blocked_reason(int id) const;

  struct Stats {
    std::int64_t ctas = 0;   // CTAs run to completion
    std::int64_t ops = 0;    // role ops executed
    std::int64_t flops = 0;  // mma, compute and mainloop flops (as written, not scaled)
  };
  const Stats& stats() const { return stats_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  Stats stats_;
};

}  // namespace mgsim::traces
