// The Tensor Memory Accelerator (TMA), one per SM: bulk asynchronous copies issued by one thread.
//
// Models: a fixed issue cost per op (descriptor decode and address generation, in SM cycles:
// one load, store or mainloop pays it once, however many messages its bytes need, because the
// later messages issue while the first ones are in flight), the largest message one instruction
// moves, the bytes one SM's bulk-copy unit keeps in flight, messages_in_flight x max_message
// (so an SM's TMA rate is bounded by that over the latency, whatever the message size: the
// calibration counts the measuring kernel's 32 KiB messages), and the efficiency of TMA
// traffic over NVLink relative to a copy engine's, and the rate of a bulk reduce-add
// (cp.reduce.async.bulk .add, a "store-add") over NVLink relative to a plain bulk store's. TMA
// reaches local or peer memory (through NVLink) but cannot reduce in the network: that is the
// ld/st path's multimem; a store-add is applied by the destination's L2 (models/l2.hpp).
// A bulk load takes message_interval per message (so small loads are issue-bound; stores are
// not);
// what one SM moves in all, TMA and ld/st together, crosses its memory pipe
// (models::SmSpec::memory_rate; a stored byte takes store_cost times a loaded one's share). An
// op's messages and how many are outstanding are the schedule's (`message`, `outstanding`; defaults
// min(bytes, max_message) and messages_in_flight).
// Ignores: tensor-map layouts and swizzles (a message is a number of bytes), L2 sector
// alignment, multicast to a CTA cluster, and the mainloop op's TMA loads on the SM's memory pipe
// (a GEMM's operand loads are modelled through L2 and HBM only).
#pragma once

#include <cstdint>

#include "sim/units.hpp"

namespace mgsim::models {

struct TmaSpec {
  std::int64_t issue_cycles = 64;                 // SM cycles to issue one op's first message
  sim::Bytes max_message = sim::Bytes::KiB(227);  // largest single message (lands in shared memory)
  int messages_in_flight = 32;     // with max_message, the bytes one SM keeps in flight
  double nvlink_efficiency = 1.0;  // achieved peer bandwidth / copy engine's (fit)
  double reduce_efficiency = 1.0;  // peer rate of a bulk reduce-add / of a bulk store (measured)
  sim::Duration message_interval = sim::Duration::ns(100);  // per bulk-load message
  // Shares of its SM's FP32 and tensor pipes the warp issuing and awaiting bulk copies takes
  // while it moves data (as LdStSpec's; 0: none).
  double warp_share_fp32 = 0.0;
  double warp_share_tensor = 0.0;

  // The issue cost one op exposes at SM clock `clock`: issue_cycles, once per op.
  sim::Duration issue_time(sim::Frequency clock) const;
  // The most one SM keeps in flight: messages_in_flight x max_message.
  std::int64_t max_bytes_in_flight() const;
};

}  // namespace mgsim::models
