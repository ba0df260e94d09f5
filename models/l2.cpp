#include "models/l2.hpp"

#include "sim/check.hpp"

namespace mgsim::models {

double L2Spec::hit_fraction(sim::Bytes working_set) const {
  MGSIM_CHECK(working_set.count() >= 0, "negative working set {}", working_set.count());
  if (working_set <= capacity) return 1.0;
  return static_cast<double>(capacity.count()) / static_cast<double>(working_set.count());
}

bool L2Spec::keeps_copy(sim::Bytes working_set) const {
  MGSIM_CHECK(working_set.count() >= 0, "negative working set {}", working_set.count());
  return working_set <= capacity;
}

}  // namespace mgsim::models
