// The L2 cache of one GPU.
//
// Models: capacity, aggregate bandwidth and hit latency; a working-set hit model (what fraction
// of a re-read working set hits) is a pure function of capacity here. Remote (peer) reads are
// cached in the owner's L2, not the reader's: the executor charges a peer read to the owner.
// Bulk reduce-adds (TMA store-adds) are applied in the destination's L2 as read-modify-writes at
// reduction_bandwidth, whoever sends them; they do not take L2 read bandwidth from the GPU's own
// kernels (l2_contention.csv: a reader of an L2-resident set keeps its rate within 1 %).
// reduction_bandwidth was measured into a 1 GiB (HBM-resident) destination, so it carries the
// HBM read-modify-write; into an L2-resident buffer the H200 applied 2.7 TB/s (l2_contention.csv).
// The L2 is split into `partitions`, each attached to the SMs of its own GPCs: a load is served
// near whatever its address (sm_groups.csv: an L2 hit of the far partition's addresses takes
// 2 % longer), but a fence waits for the partition that owns the fenced address (models/sync.hpp).
// Ignores: the far partition's extra load latency and bandwidth, replacement policy,
// set conflicts, persistence controls, and write-back traffic to HBM beyond the bytes written.
#pragma once

#include "sim/units.hpp"

namespace mgsim::models {

struct L2Spec {
  sim::Bytes capacity = sim::Bytes(50'000'000);                      // total L2
  sim::Bandwidth bandwidth = sim::Bandwidth::GBps(10'000);           // aggregate hit bandwidth
  sim::Duration hit_latency = sim::Duration::ns(150);                // load-to-use on a hit
  sim::Bandwidth reduction_bandwidth = sim::Bandwidth::GBps(1'000);  // bulk reduce-adds applied
  std::int64_t partitions = 2;  // each attached to the SMs of its GPCs

  // Fraction of a working set of `working_set` bytes that hits when re-read in full, under an
  // LRU-like policy with a sharp edge: 1 when it fits, capacity / working_set beyond (the part
  // that stays resident). REQUIRES: working_set >= 0.
  double hit_fraction(sim::Bytes working_set) const;

  // Whether a copy that passes over `working_set` bytes again and again (its source and
  // destination together) finds its source in the L2 on the next pass: all of it when the set
  // fits, none of it beyond (its own writes evict what it would re-read). Measured on the H100
  // (validate/data/h100-single/memcpy_local.csv): 16 MiB copies (32 MiB of arrays in 50 MB)
  // take 13.9 us warm and 21.2 us with the L2 overwritten first; 64 MiB copies 52.3 and 53.7 us,
  // where re-reads of that size still hit (hit_fraction) 39 % of the time.
  // REQUIRES: working_set >= 0.
  bool keeps_copy(sim::Bytes working_set) const;
};

}  // namespace mgsim::models
