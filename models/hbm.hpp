// HBM (device memory) of one GPU.
//
// Models: capacity, peak bandwidth (one resource in the fluid solver that reads and writes
// share), the write side's own peak (a second resource that only writes cross, models/gpu.hpp's
// hbm.write: a write-only stream is capped by it), idle load latency, its spread over the lines
// of one wait (a warp waits for the latest of its lines, latest_of) and how it grows with the
// load (queue_delay).
// Ignores: bank and channel conflicts and refresh (except as the latency's spread), read/write
// turnaround's cost in bandwidth (only its cost in a load's wait, `turnaround`), ECC overhead
// beyond what the datasheet figure already includes.
#pragma once

#include <cstdint>

#include "sim/units.hpp"

namespace mgsim::models {

struct HbmSpec {
  sim::Bytes capacity = sim::Bytes(80'000'000'000);              // device memory
  sim::Bandwidth bandwidth = sim::Bandwidth::GBps(3'350);        // peak (read) bandwidth
  sim::Bandwidth write_bandwidth = sim::Bandwidth::GBps(3'350);  // peak write-only bandwidth
  sim::Duration latency = sim::Duration::ns(600);                // idle load-to-use latency
  // One line's latency is `latency` plus an exponential part of mean latency_spread (a request
  // finds its bank open, closed or busy), so a warp that waits for k lines at once waits for the
  // latest of k: latency + latency_spread x (H_k - 1), H_k = 1 + 1/2 + ... + 1/k (the mean of the
  // largest of k such draws; validate/data/h200-single/mlp_warps.csv: one warp's wait grows
  // 365 -> 382 -> 399 -> 409 -> 442 ns over 1 -> 16 lines, as H_k does). 0: every line alike.
  sim::Duration latency_spread;
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

  // The L2's line, the unit a warp's accesses are fetched in from HBM.
  static constexpr std::int64_t kLineBytes = 128;
  // The idle wait for the latest of `lines` lines requested at once (see latency_spread).
  // REQUIRES: lines >= 1.
  sim::Duration latest_of(std::int64_t lines) const;
};

// H_k = 1 + 1/2 + ... + 1/k: the mean of the largest of k exponential draws, in units of their
// mean (HbmSpec::latest_of; the calibration's fit of latency_spread). REQUIRES: k >= 1.
double harmonic(std::int64_t k);

}  // namespace mgsim::models
