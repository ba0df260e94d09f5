#include "models/tma.hpp"

#include <algorithm>

#include "sim/check.hpp"

namespace mgsim::models {

sim::Duration TmaSpec::issue_time(sim::Frequency clock) const {
  return sim::cycles_to_duration(issue_cycles, clock);
}

std::int64_t TmaSpec::max_bytes_in_flight() const {
  return max_message.count() * messages_in_flight;
}

}  // namespace mgsim::models
