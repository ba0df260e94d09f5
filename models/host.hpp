// The host thread that drives GPUs through the CUDA runtime: what each API call costs it.
//
// Models: a host thread serves API calls one at a time, in the order they are made; each call
// holds it for its cost (the rate at which a thread can issue that call back to back) and returns;
// the GPU work it enqueued runs later, on the stream, while the thread goes on (the host runs
// ahead of the GPU). A synchronize blocks the thread until the stream's work is done, then returns
// `sync` later. A library collective is built from these calls (traces/executor.cpp): NCCL
// (src/enqueue.cc, ncclLaunchPrepare / ncclLaunchFinish) makes the caller's stream wait for its
// internal stream, launches its kernel on the caller's stream, and makes the internal stream
// wait for it: per GPU one kernel launch and two stream joins, each an untimed event record and
// a stream wait, and the rest of its host work (`nccl_enqueue`: its other driver calls, such as
// cudaGetDevice, cudaSetDevice to the communicator's device and back, cudaStreamGetCaptureInfo,
// cudaGetFuncBySymbol, and its own CPU work: argument checks, task append, group end, plan
// building, its tuning), measured as one call less those three; a grouped call of several send /
// receive pairs (all_to_all) pays `nccl_p2p_pair` for each pair beyond the first.
// A thread that slept (a `sleep` op: idle, unlike a busy `delay`) pays a wake-up on its next API
// call: wake_1ms after 1 ms of sleep, wake_100ms after 100 ms (wake_cost between and around
// them); the GPU work that call enqueues starts LaunchSpec::wake_* later too.
// Ignores: the depth of the driver's launch queue (the host never blocks on a full queue), host
// memory copies and page-locking, CPU contention between threads, and a GPU left idle while its
// host stays busy (only a sleep wakes anything up).
#pragma once

#include <algorithm>
#include <cmath>

#include "sim/units.hpp"

namespace mgsim::models {

// The wake-up after sleeping `slept`, from its measured values after 1 ms and 100 ms: linear in
// log10(slept) through the two, so falling to zero for short sleeps, and held at the 100 ms value
// beyond it. Zero when not slept.
inline sim::Duration wake_cost(sim::Duration slept, sim::Duration at_1ms, sim::Duration at_100ms) {
  if (slept <= sim::Duration::zero()) return sim::Duration::zero();
  const double decades = std::log10(static_cast<double>(slept.picoseconds()) / 1e9);
  const double a = static_cast<double>(at_1ms.picoseconds());
  const double b = static_cast<double>(at_100ms.picoseconds());
  const double v = std::clamp(a + (b - a) / 2 * decades, 0.0, std::max(a, b));
  return sim::Duration::ps(std::llround(v));
}

struct HostSpec {
  sim::Duration launch = sim::Duration::us(4);        // cudaLaunchKernel
  sim::Duration memcpy = sim::Duration::us(3);        // cudaMemcpyAsync / cudaMemcpyPeerAsync
  sim::Duration event_record = sim::Duration::us(1);  // cudaEventRecord of a timing event
  sim::Duration event_record_untimed =
      sim::Duration::ns(500);                         // ... of a cudaEventDisableTiming one
  sim::Duration stream_wait = sim::Duration::us(1);   // cudaStreamWaitEvent
  sim::Duration graph_launch = sim::Duration::us(2);  // cudaGraphLaunch
  sim::Duration sync = sim::Duration::us(3);       // GPU work done -> cudaStreamSynchronize returns
  sim::Duration wake_1ms = sim::Duration::zero();  // extra on the first call after 1 ms asleep
  sim::Duration wake_100ms = sim::Duration::zero();  // ... after 100 ms asleep
  // NCCL's host work per GPU and call beyond its launch and two stream joins (one task, or one
  // send/receive pair)...
  sim::Duration nccl_enqueue = sim::Duration::zero();
  // ... and for each send/receive pair beyond the first in a grouped call (all_to_all makes
  // one per rank).
  sim::Duration nccl_p2p_pair = sim::Duration::zero();
};

}  // namespace mgsim::models
