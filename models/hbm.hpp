// HBM (device memory) of one GPU.
//
// Models: capacity, peak read and write bandwidth (one shared resource in the fluid solver; the
// write figure caps write-only streams) and idle load latency.
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
};

}  // namespace mgsim::models
