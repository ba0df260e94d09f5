// Flags, fences and atomics between SMs and GPUs: what synchronising costs.
//
// Models (traces/kernel/op_signal.cpp, op_fence.cpp):
//   - a flag stored and polled on one GPU is seen `flag_latency` after the store (the store
//     reaching L2 and the polling load that reads it); a flag stored over NVLink is seen by a
//     poller on its GPU one route latency later (nvlink.latency is that one-way time); a waiter
//     polling a peer's flag over the fabric sees it `remote_poll` after that;
//   - an atomic flag write (atomicExch, atomicAdd) lands `atomic` later than a plain store, and
//     atomics to one address are applied one per `atomic_interval` at its owner, in arrival order;
//   - a fence holds its thread (the role) for `fence_cta`, `fence_gpu` or `fence_system`; a
//     release store is a fence of its scope, then the store; an acquire load costs nothing more
//     (the measured release/acquire pairs cost the release's fence alone).
// Ignores: the polling loop's own traffic (a wait that starts after the write landed sees it at
// once), L2 slice placement of flags, contention of atomics to different addresses, fences
// waiting for outstanding stores (a fence costs the same whatever is in flight).
#pragma once

#include "sim/units.hpp"

namespace mgsim::models {

struct SyncSpec {
  sim::Duration flag_latency = sim::Duration::ns(350);  // store -> poll on one GPU
  sim::Duration remote_poll = sim::Duration::ns(300);   // extra: the waiter polls over the fabric
  sim::Duration atomic = sim::Duration::ns(60);         // extra: an atomic flag write
  sim::Duration atomic_interval = sim::Duration::ps(700);  // one address's atomics, one each
  sim::Duration fence_cta = sim::Duration::ns(5);
  sim::Duration fence_gpu = sim::Duration::ns(200);
  sim::Duration fence_system = sim::Duration::ns(500);
};

}  // namespace mgsim::models
