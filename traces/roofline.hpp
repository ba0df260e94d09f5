// The communication-aware roofline of a simulated schedule and the utilisation of each unit.
//
// For every unit group of a ResourceCatalog (a GPU's HBM, its copy engines together, one
// direction of its NVLink port, its tensor pipes, a NIC direction, ...):
//     amount   = sum over the group's resources of what they carried (sim::FluidNetwork::stats:
//                bytes, or flops for tensor pipes)
//     capacity = sum of the resources' capacities (bytes/s, or flops/s)
//     time     = amount / capacity, rounded up once to a picosecond (sim::transfer_time)
// The bound is the largest time; its group is the bottleneck. The fraction achieved is
// bound / predicted time (1.0 would mean the schedule keeps its bottleneck busy all the time).
//
// What the bound includes: every byte and flop the schedule made each registered resource carry,
// on the routes the run actually used (routes are chosen per flow, so the bound is "for these
// routes"; another routing could spread bytes differently). Compute terms appear only where
// tensor pipes are registered: a schedule with no kernels has none.
// What it ignores: latencies (copy-engine setup, link and switch latency, launch), dependencies
// between ops (waits, collective steps), per-flow rate caps, and contention orderings. Each of
// those can only add time, so for the given routes the bound is a lower bound: a schedule can
// never finish before its busiest unit has moved its bytes at full rate (tested as a property
// over every example).
//
// Utilisation of a group over a run of length T: amount / (capacity * T), the mean fraction of
// its capacity it used (equal to time / T). For T = 0 it is 0.
//
// Determinism: terms are sorted by time (descending), then by group name; ties for the
// bottleneck go to the smallest group name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/resource_catalog.hpp"
#include "sim/fluid.hpp"
#include "sim/units.hpp"

namespace mgsim::traces {

struct UnitTerm {
  std::string group;
  models::UnitKind kind = models::UnitKind::hbm;
  int gpu = -1;
  int resources = 0;          // how many fluid resources form the group
  std::int64_t amount = 0;    // bytes carried (flops for tensor pipes)
  std::int64_t capacity = 0;  // bytes/s (flops/s for tensor pipes), summed over the group
  sim::Duration time;         // amount at full capacity
  double utilisation = 0.0;   // mean over the run: time / elapsed
};

struct Roofline {
  std::vector<UnitTerm> terms;  // every group, sorted by time descending, then group name
  sim::Duration bound;          // the largest time; zero when nothing was carried
  sim::Duration elapsed;        // the predicted time it is compared with
  // The bottleneck's term, or nullptr when nothing was carried.
  const UnitTerm* bottleneck() const;
  // bound / elapsed; 0 when elapsed is 0.
  double fraction() const;
};

// Builds the roofline from what `net` carried up to now. `elapsed` is the predicted time of the
// run (the RunResult's end). REQUIRES: every entry of `catalog` is a resource of `net`.
Roofline compute_roofline(const models::ResourceCatalog& catalog, sim::FluidNetwork& net,
                          sim::Duration elapsed);

}  // namespace mgsim::traces
