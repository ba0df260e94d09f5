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
// a stream wait.
// Ignores: the depth of the driver's launch queue (the host never blocks on a full queue), host
// memory copies and page-locking, and CPU contention between threads.
#pragma once

#include "sim/units.hpp"

namespace mgsim::models {

struct HostSpec {
  sim::Duration launch = sim::Duration::us(4);        // cudaLaunchKernel
  sim::Duration memcpy = sim::Duration::us(3);        // cudaMemcpyAsync / cudaMemcpyPeerAsync
  sim::Duration event_record = sim::Duration::us(1);  // cudaEventRecord of a timing event
  sim::Duration event_record_untimed =
      sim::Duration::ns(500);                         // ... of a cudaEventDisableTiming one
  sim::Duration stream_wait = sim::Duration::us(1);   // cudaStreamWaitEvent
  sim::Duration graph_launch = sim::Duration::us(2);  // cudaGraphLaunch
  sim::Duration sync = sim::Duration::us(3);  // GPU work done -> cudaStreamSynchronize returns
};

}  // namespace mgsim::models
