// The Tensor Memory Accelerator (TMA), one per SM: bulk asynchronous copies issued by one thread.
//
// Models: a fixed issue cost per op (descriptor decode and address generation, in SM cycles:
// one load, store or mainloop pays it once, however many messages its bytes need, because the
// later messages issue while the first ones are in flight), the largest message one instruction
// moves, the messages one SM keeps in flight (so an SM's TMA rate is bounded by
// messages_in_flight x message / latency), and the efficiency of TMA
// traffic over NVLink relative to a copy engine's, and the rate of a bulk reduce-add
// (cp.reduce.async.bulk .add, a "store-add") over NVLink relative to a plain bulk store's. TMA
// reaches local or peer memory (through NVLink) but cannot reduce in the network: that is the
// ld/st path's multimem; a store-add is applied by the destination's L2 (models/l2.hpp).
// Per SM, the bulk-copy unit moves at most sm_rate, loads and stores together, whatever the
// latency (one SM's local TMA copy moves 50 GB/s each way on the H200), and one issuing thread
// needs message_interval per message (so small messages are issue-bound). An op's messages and
// how many are outstanding are the schedule's (`message`, `outstanding`; defaults
// min(bytes, max_message) and messages_in_flight).
// Ignores: tensor-map layouts and swizzles (a message is a number of bytes), L2 sector
// alignment, multicast to a CTA cluster, and the mainloop op's TMA loads on the bulk-copy unit
// (a GEMM's operand loads are modelled through L2 and HBM only).
#pragma once

#include <cstdint>

#include "sim/units.hpp"

namespace mgsim::models {

struct TmaSpec {
  std::int64_t issue_cycles = 64;                 // SM cycles to issue one op's first message
  sim::Bytes max_message = sim::Bytes::KiB(227);  // largest single message (lands in shared memory)
  int messages_in_flight = 32;                    // outstanding messages per SM
  double nvlink_efficiency = 1.0;                 // achieved peer bandwidth / copy engine's (fit)
  double reduce_efficiency = 1.0;  // peer rate of a bulk reduce-add / of a bulk store (measured)
  sim::Bandwidth sm_rate = sim::Bandwidth::GBps(100);  // one SM's bulk-copy unit, loads + stores
  sim::Duration message_interval = sim::Duration::ns(100);  // one issuing thread, per message

  // The issue cost one op exposes at SM clock `clock`: issue_cycles, once per op.
  sim::Duration issue_time(sim::Frequency clock) const;
  // The most one SM keeps in flight: messages_in_flight x max_message.
  std::int64_t max_bytes_in_flight() const;
};

}  // namespace mgsim::models
