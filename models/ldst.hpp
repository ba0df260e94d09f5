// The ld/st (register) path: threads loading and storing through registers, locally or to peers.
//
// Models: coalescing granularity (the sector a warp's access is split into), whether multimem
// (NVSwitch multicast and in-network reduction) is available, and the efficiency of ld/st
// traffic over NVLink relative to a copy engine's. This is the only path that can use multimem.
// The bytes in flight come from the kernel (an op's threads x vector x unroll:
// traces/kernel/op_load_store.cpp), not from here; what one SM's stores move, whatever they keep
// in flight, is its memory pipe's (models::SmSpec::memory_rate / store_cost).
// A communication warp also takes a share of its SM's math pipes while it moves data
// (warp_share_fp32, warp_share_tensor: measured as the math warps' loss beside one copy warp,
// validate/data/h200-single/intra_sm.csv; models::Gpu::add_comm_warp).
// Ignores: bank conflicts and uncoalesced patterns beyond whole sectors; how the share grows with
// the role's warps (measured for one warp, charged per op).
#pragma once

#include "sim/units.hpp"

namespace mgsim::models {

struct LdStSpec {
  sim::Bytes coalescing_granularity = sim::Bytes(32);  // L2 sector a warp access splits into
  bool multimem = true;                                // multimem.ld_reduce / red / st
  double nvlink_efficiency = 1.0;  // achieved peer bandwidth / copy engine's (fit)
  // Shares of its SM's FP32 and tensor pipes one ld/st communication warp takes while it moves
  // data (issue slots and register-file ports the math warps lose; 0: none).
  double warp_share_fp32 = 0.0;
  double warp_share_tensor = 0.0;

  // Bytes actually moved for `bytes` of useful data: rounded up to whole sectors.
  sim::Bytes sectors_bytes(sim::Bytes bytes) const;
};

}  // namespace mgsim::models
