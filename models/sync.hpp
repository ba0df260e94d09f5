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
//     (validate/data/h200-single/fence.csv): one warp's fence takes `fence_<scope>`; the SM
//     serves its fences in rounds, each taking the fences issued before it starts, and a round
//     starts no sooner than `fence_<scope>_round` after the one before
//     (fence_warps_timeline.csv: two groups of warps out of step alternate rounds ~410 ns apart
//     at system scope); up to `fence_round_warps` warps fencing together make the first round,
//     more issue too late for it and take the next; and the SM completes one warp's fence per
//     `fence_<scope>_per_warp` at most. So w warps take max(fence_<scope> (+ the round if w >
//     fence_round_warps), w x per_warp) (at system scope 1-8 warps take one warp's time, 16
//     warps 1.8 x, 32 warps 1.9 x). Warps that fence out of step (a fence's `in_step: 0`: no
//     barrier between their fences) split into two groups that take turns at the rounds: after
//     its first fence a group's next round starts two gaps after its last, so a fence waits
//     max(the in-step cost, 2 x round - the work since the role's last fence) (fence.csv's
//     `free` rows: 751 ns at system scope from 2 warps on; a far CTA's rounds are `fence_far`
//     further apart, as a round ends with its acknowledgements: 937-994 ns on 32-132 CTAs). A
//     system-scope fence waits for its SM's writes to be acknowledged, then does the system
//     scope's own part: after local stores `fence_system` holds both (a local store's
//     acknowledgement is what a gpu fence waits for, `fence_gpu`); an ld/st store to a peer is
//     posted and acknowledged a route round trip after its last byte, so a system fence after
//     one lasts at least until then + fence_system - fence_gpu (traces/kernel/op_signal.cpp). A
//     release store is one thread's fence,
//     then the store; an acquire load costs nothing more (the measured release/acquire pairs cost
//     the release's fence alone);
//   - a gpu- or system-scope fence waits for its SM's stores to reach the L2 partition that owns
//     their address: longer when that is the partition far from the SM (sm_groups.csv: SM 0 fences
//     in 211 ns near, 289 ns far, every other 4 KiB of addresses; alone, the 132 SMs fence their
//     words in 198 to 306 ns). mgsim has no addresses, so it spreads a kernel's CTAs over the
//     partitions as the hardware spreads them over its GPCs: CTA i sits by partition i mod
//     l2.partitions and the data it fences lives in partition 0 (models/l2.hpp). One CTA fences
//     near; a kernel fencing on two or more CTAs ends with its slowest, `fence_far` (the slowest
//     SM's fence over the fastest's) later, as fence.csv's 32-132 CTA rows do (gpu: 294-309 ns).
// Ignores: the polling loop's own traffic (a wait that starts after the write landed sees it at
// once), L2 slice placement of flags, contention of atomics to different addresses, fences
// waiting for a peer's acknowledgement at gpu scope or of TMA stores (only system fences wait,
// and only for ld/st stores to a peer), which of a
// kernel's SMs are really far from its data (it changes with the allocation and the GPU:
// sm_groups.csv's runs 28 and 29 disagree on 36 SMs; a kernel of 2-8 CTAs, all near in fence.csv's
// run 24, had a far one in run 28), a CTA whose stores span both partitions (it waits for the far
// one, whatever its index), the spread of far SMs (the slowest of 132 fences 300 ns in fence.csv,
// 271 predicted), warps declared out of step that stay in step (run 31's 2-4 free warps did,
// fence.csv's did not: their phase drifts), the far partition's effect on rounds out of step
// (fence.csv's free rows on 32-132 CTAs: ~970 ns at system scope, 735 predicted), and rounds
// shared between the roles of one SM (each role's fences are its own).
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
  sim::Duration fence_gpu_round = sim::Duration::ns(60);  // the SM's fence rounds start apart
  sim::Duration fence_system_round = sim::Duration::ns(400);
  std::int64_t fence_round_warps = 8;  // warps fencing together that make one round

  // What a fence costs when `warps` warps of one SM run it together: one warp's time (a round
  // more when they are too many for one round), or the SM's throughput's `warps` x per_warp when
  // that is longer.
  sim::Duration fence(sim::Duration one, sim::Duration round, sim::Duration per_warp,
                      std::int64_t warps) const {
    const sim::Duration rounds = warps > fence_round_warps ? one + round : one;
    return std::max(rounds, sim::Duration::ps(per_warp.picoseconds() * warps));
  }

  // A fence by warps out of step, `in_step` the same fence's cost by warps in step, `work` the
  // time since the role's last fence ended: the warps split into two groups that take turns at
  // the SM's rounds, a group's round starting two round gaps after its last, so the fence waits
  // for that less the work between (fence_warps_timeline.csv; fence.csv's `free` rows).
  static sim::Duration out_of_step(sim::Duration in_step, sim::Duration round, sim::Duration work) {
    return std::max(in_step, round + round - work);
  }

  // Whether CTA `cta` of a kernel fences data in the L2 partition far from its SM, with
  // `partitions` L2 partitions (the rule above). REQUIRES: cta >= 0, partitions >= 1.
  static bool far_partition(std::int64_t cta, std::int64_t partitions) {
    return cta % partitions != 0;
  }
};

}  // namespace mgsim::models
