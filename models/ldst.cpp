#include "models/ldst.hpp"

#include "sim/check.hpp"

namespace mgsim::models {

sim::Bytes LdStSpec::sectors_bytes(sim::Bytes bytes) const {
  MGSIM_CHECK(bytes.count() >= 0, "negative bytes {}", bytes.count());
  const std::int64_t g = coalescing_granularity.count();
  return sim::Bytes((bytes.count() + g - 1) / g * g);
}

}  // namespace mgsim::models
