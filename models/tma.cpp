#include "models/tma.hpp"

#include "sim/check.hpp"

namespace mgsim::models {

std::int64_t TmaSpec::messages(sim::Bytes bytes) const {
  MGSIM_CHECK(bytes.count() >= 0, "negative bytes {}", bytes.count());
  const std::int64_t m = max_message.count();
  return (bytes.count() + m - 1) / m;
}

sim::Duration TmaSpec::message_time(sim::Bytes bytes, sim::Frequency clock) const {
  return sim::cycles_to_duration(messages(bytes) * issue_cycles, clock);
}

}  // namespace mgsim::models
