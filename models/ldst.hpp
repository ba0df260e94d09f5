// The ld/st (register) path: threads loading and storing through registers, locally or to peers.
//
// Models: coalescing granularity (the sector a warp's access is split into), bytes in flight
// per warp and per SM (an SM's rate is bounded by bytes_in_flight / latency), whether multimem
// (NVSwitch multicast and in-network reduction) is available, and the efficiency of ld/st
// traffic over NVLink relative to a copy engine's. This is the only path that can use multimem.
// Ignores: per-instruction issue slots (bandwidth, not instructions, bounds these transfers),
// bank conflicts and uncoalesced patterns beyond whole sectors.
#pragma once

#include "sim/units.hpp"

namespace mgsim::models {

struct LdStSpec {
  sim::Bytes coalescing_granularity = sim::Bytes(32);       // L2 sector a warp access splits into
  sim::Bytes bytes_in_flight_per_warp = sim::Bytes(512);    // 32 lanes x 16 B vector access
  sim::Bytes bytes_in_flight_per_sm = sim::Bytes::KiB(32);  // memory-level parallelism of one SM
  bool multimem = true;                                     // multimem.ld_reduce / red / st
  double nvlink_efficiency = 1.0;  // achieved peer bandwidth / copy engine's (fit)

  // Bytes actually moved for `bytes` of useful data: rounded up to whole sectors.
  sim::Bytes sectors_bytes(sim::Bytes bytes) const;
};

}  // namespace mgsim::models
