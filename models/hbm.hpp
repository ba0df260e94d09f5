// HBM (device memory) of one GPU.
//
// Models: capacity, peak bandwidth (one resource in the fluid solver that reads and writes
// share), the write side's own peak (a second resource that only writes cross, models/gpu.hpp's
// hbm.write: a write-only stream is capped by it), idle load latency and how it grows with the
// load (queue_delay).
// Ignores: bank and channel conflicts, refresh, read/write turnaround's cost in bandwidth (only
// its cost in a load's wait, `turnaround`), ECC overhead beyond what the datasheet figure
// already includes.
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
  // Reads and writes mixed wait longer than either alone at the same rho (the DRAM turns its bus
  // around to drain writes, and the reads queued behind wait; validate/cuda/hbm_turnaround.cu):
  // the wait is queue_delay x rho / (1 - rho) + turnaround_delay x 2 rho_r rho_w / rho, rho_r
  // and rho_w the reads' and writes' parts of rho (2 rho_r rho_w / rho: how often they
  // alternate, rho / 2 for a copy; a lone reader among writes pays almost none of it). The
  // measured extra is that, not grown by 1 / (1 - rho) (hbm_turnaround.csv's copy rows, H100:
  // 450-520 ns per unit at rho 0.18-0.78, scripts/hbm_turnaround.py). 0: the mix costs nothing
  // beyond its bytes.
  sim::Duration turnaround_delay;
};

}  // namespace mgsim::models
