// Kernel launch on the GPU side: from a launch command reaching the head of its stream's queue
// to its CTAs running.
//
// Models (the host side of the call is models/host.hpp):
//   - an isolated launch (the stream was idle when the command arrived) starts `latency` after
//     the host call returned; a queued launch (the command was waiting when the previous op of
//     the stream finished) starts `gap` after that op: the GPU pipelines what is queued;
//   - a kernel node of a CUDA graph after the first starts `graph_node` after the previous node;
//   - CTAs are handed to SMs by one dispatcher per GPU, one every `per_cta`.
//   - a timing event (cudaEventRecord) is written `event` after the op before it in its stream
//     ended, or when its call returned if later, and what follows it in the stream waits for
//     it: the GPU's front end takes its turn on it as on a queued kernel (event_gap.csv). After
//     a kernel, a collective or another timing event; not after a stream wait (a join costs
//     the GPU about 0.1-0.2 us: stream_wake.csv) nor after a copy (measured about as late, but
//     copy_engine.setup, fitted on events around one copy, holds it).
// Ignores: programmatic dependent launch, the device-side queue's depth, cluster launch.
#pragma once

#include "sim/units.hpp"

namespace mgsim::models {

struct LaunchSpec {
  sim::Duration latency = sim::Duration::us(2);       // host call returned -> kernel starts (idle)
  sim::Duration gap = sim::Duration::us(1);           // previous op ended -> queued kernel starts
  sim::Duration graph_node = sim::Duration::ns(500);  // between kernel nodes of a graph
  sim::Duration per_cta = sim::Duration::ps(600);     // CTA dispatch interval, per GPU
  sim::Duration event = sim::Duration::zero();        // previous op ended -> timing event written
  // Extra start latency of the kernels a call enqueues after its thread slept 1 ms / 100 ms
  // (models::wake_cost; the GPU idled as long).
  sim::Duration wake_1ms = sim::Duration::zero();
  sim::Duration wake_100ms = sim::Duration::zero();
};

}  // namespace mgsim::models
