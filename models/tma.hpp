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
// Ignores: tensor-map layouts and swizzles (a message is a number of bytes), L2 sector
// alignment, and multicast to a CTA cluster.
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

  // The issue cost one op exposes at SM clock `clock`: issue_cycles, once per op.
  sim::Duration issue_time(sim::Frequency clock) const;
  // Bytes one SM keeps in flight for an op of `bytes`: messages_in_flight messages of
  // min(bytes, max_message) each. REQUIRES: bytes >= 0.
  std::int64_t bytes_in_flight(std::int64_t bytes) const;
  // The most one SM keeps in flight: messages_in_flight x max_message.
  std::int64_t max_bytes_in_flight() const;
};

}  // namespace mgsim::models
