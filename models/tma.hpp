// The Tensor Memory Accelerator (TMA), one per SM: bulk asynchronous copies issued by one thread.
//
// Models: a fixed issue cost per message (descriptor decode and address generation, in SM
// cycles), the largest message one instruction moves, the messages one SM keeps in flight (so an
// SM's TMA rate is bounded by messages_in_flight x message / latency), and the efficiency of TMA
// traffic over NVLink relative to a copy engine's, and the rate of a bulk reduce-add
// (cp.reduce.async.bulk .add, a "store-add") over NVLink relative to a plain bulk store's. TMA
// reaches local or peer memory (through NVLink) but cannot reduce in the network: that is the
// ld/st path's multimem; a store-add is applied by the destination's L2 (models/l2.hpp).
// Ignores: tensor-map layouts and swizzles (a message is a number of bytes), L2 sector
// alignment, and multicast to a CTA cluster.
#pragma once

#include <cstdint>

#include "sim/units.hpp"

namespace mgsim::models {

struct TmaSpec {
  std::int64_t issue_cycles = 64;                 // SM cycles to issue one message
  sim::Bytes max_message = sim::Bytes::KiB(227);  // largest single message (lands in shared memory)
  int messages_in_flight = 32;                    // outstanding messages per SM
  double nvlink_efficiency = 1.0;                 // achieved peer bandwidth / copy engine's (fit)
  double reduce_efficiency = 1.0;  // peer rate of a bulk reduce-add / of a bulk store (measured)

  // Messages needed to move `bytes`: ceil(bytes / max_message); 0 for 0 bytes.
  std::int64_t messages(sim::Bytes bytes) const;
  // Time one SM spends issuing the messages that move `bytes` at `clock` (issue only; the
  // bytes themselves travel as a flow).
  sim::Duration message_time(sim::Bytes bytes, sim::Frequency clock) const;
};

}  // namespace mgsim::models
