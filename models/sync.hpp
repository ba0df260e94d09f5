// Flags, fences and atomics between SMs and GPUs: what synchronising costs.
//
// Models (traces/kernel/op_signal.cpp, op_fence.cpp):
//   - a flag stored and polled on one GPU is seen `flag_latency` after the store (the store
//     reaching L2 and the polling load that reads it); a flag stored over NVLink is seen by a
//     poller on its GPU one route latency later (nvlink.latency is that one-way time); a waiter
//     polling a peer's flag over the fabric sees it `remote_poll` after that;
//   - an atomic flag write (atomicExch, atomicAdd) lands `atomic` later than a plain store, and
//     atomics to one address are applied one per `atomic_interval` at its owner, in arrival order;
//   - a fence holds its role for its scope's cost by the warps of the SM that fence together
//     (validate/data/h200-single/fence.csv): one warp's fence takes `fence_<scope>`, and the SM
//     completes one warp's fence per `fence_<scope>_per_warp` at most, so w warps take
//     max(fence_<scope>, w x per_warp) (at system scope 1-8 warps take one warp's time, 32 warps
//     1.9 x). A release store is one thread's fence, then the store; an acquire load costs
//     nothing more (the measured release/acquire pairs cost the release's fence alone);
//   - a gpu- or system-scope fence waits for its SM's stores to reach the L2 partition that owns
//     their address: `fence_far` longer when that is the partition far from the SM (sm_groups.csv:
//     211 ns near, 289 ns far, every other 4 KiB of addresses, and half the SMs far from any one
//     address). mgsim has no addresses, so it spreads a kernel's CTAs over the partitions as the
//     hardware spreads them over its GPCs: CTA i sits by partition i mod l2.partitions and the data
//     it fences lives in partition 0 (models/l2.hpp). One CTA fences near; a kernel fencing on two
//     or more CTAs waits for a far one, as fence.csv's 32-132 CTA rows do.
// Ignores: the polling loop's own traffic (a wait that starts after the write landed sees it at
// once), L2 slice placement of flags, contention of atomics to different addresses, fences
// waiting for outstanding stores (a fence costs the same whatever is in flight), where the fenced
// store lives (a gpu fence waits 211 ns for a store in its SM's near L2 partition, 289 ns in the
// far one, every other 4 KiB of addresses: sm_groups.csv; fence_gpu is the near one, so a kernel
// fencing on many SMs, one of them far, takes longer), the step between 8 and 16
// warps (16 warps cost nearly 32's) and warps that fence out of step (fence.csv's `free` rows).
#pragma once

#include <algorithm>
#include <cstdint>

#include "sim/units.hpp"

namespace mgsim::models {

struct SyncSpec {
  sim::Duration flag_latency = sim::Duration::ns(350);  // store -> poll on one GPU
  sim::Duration remote_poll = sim::Duration::ns(300);   // extra: the waiter polls over the fabric
  sim::Duration atomic = sim::Duration::ns(60);         // extra: an atomic flag write
  sim::Duration atomic_interval = sim::Duration::ps(700);  // one address's atomics, one each
  sim::Duration fence_cta = sim::Duration::ns(5);          // one warp's fence, by scope
  sim::Duration fence_gpu = sim::Duration::ns(200);
  sim::Duration fence_system = sim::Duration::ns(500);
  sim::Duration fence_cta_per_warp;  // the SM's fence throughput: one warp's fence per interval
  sim::Duration fence_gpu_per_warp;
  sim::Duration fence_system_per_warp;
  sim::Duration fence_far = sim::Duration::ns(80);  // extra: a gpu/system fence's far partition

  // What a fence costs when `warps` warps of one SM run it together: one warp's time, or the SM's
  // throughput's `warps` x per_warp when that is longer.
  static sim::Duration fence(sim::Duration one, sim::Duration per_warp, std::int64_t warps) {
    return std::max(one, sim::Duration::ps(per_warp.picoseconds() * warps));
  }

  // Whether CTA `cta` of a kernel fences data in the L2 partition far from its SM, with
  // `partitions` L2 partitions (the rule above). REQUIRES: cta >= 0, partitions >= 1.
  static bool far_partition(std::int64_t cta, std::int64_t partitions) {
    return cta % partitions != 0;
  }
};

}  // namespace mgsim::models
