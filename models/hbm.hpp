// HBM (device memory) of one GPU.
//
// Models: capacity, peak bandwidth (one resource in the fluid solver that reads and writes
// share), the write side's own peak (a second resource that only writes cross, models/gpu.hpp's
// hbm.write: a write-only stream is capped by it), idle load latency and how it grows with the
// load (queue_delay).
// Ignores: bank and channel conflicts, refresh, read/write turnaround beyond the separate write
// bandwidth, ECC overhead beyond what the datasheet figure already includes.
#pragma once

#include "sim/units.hpp"

namespace mgsim::models {

struct HbmSpec {
  sim::Bytes capacity = sim::Bytes(80'000'000'000);              // device memory
  sim::Bandwidth bandwidth = sim::Bandwidth::GBps(3'350);        // peak (read) bandwidth
  sim::Bandwidth write_bandwidth = sim::Bandwidth::GBps(3'350);  // peak write-only bandwidth
  sim::Duration latency = sim::Duration::ns(600);                // idle load-to-use latency
  sim::Duration write_latency = sim::Duration::ns(20);  // a local store holds its slot this long
  // Loaded latency: a load waits queue_delay x rho / (1 - rho) more, rho the HBM's utilisation
  // (reads and writes over `bandwidth`; sim/fluid.hpp's queueing resource). 0: latency fixed.
  sim::Duration queue_delay;
};

}  // namespace mgsim::models
