// The ld/st (register) path: threads loading and storing through registers, locally or to peers.
//
// Models: coalescing granularity (the sector a warp's access is split into), whether multimem
// (NVSwitch multicast and in-network reduction) is available, and the efficiency of ld/st
// traffic over NVLink relative to a copy engine's. This is the only path that can use multimem.
// The bytes in flight come from the kernel (an op's threads x vector x unroll:
// traces/kernel/op_load_store.cpp), not from here; posted stores also have a per-SM rate of
// their own, whatever they keep in flight (store_rate).
// Ignores: per-instruction issue slots (bandwidth, not instructions, bounds these transfers),
// bank conflicts and uncoalesced patterns beyond whole sectors.
#pragma once

#include "sim/units.hpp"

namespace mgsim::models {

struct LdStSpec {
  sim::Bytes coalescing_granularity = sim::Bytes(32);    // L2 sector a warp access splits into
  bool multimem = true;                                  // multimem.ld_reduce / red / st
  sim::Bandwidth store_rate = sim::Bandwidth::GBps(60);  // one SM's posted stores
  double nvlink_efficiency = 1.0;  // achieved peer bandwidth / copy engine's (fit)

  // Bytes actually moved for `bytes` of useful data: rounded up to whole sectors.
  sim::Bytes sectors_bytes(sim::Bytes bytes) const;
};

}  // namespace mgsim::models
