#include "models/hbm.hpp"

#include <cmath>
#include <numbers>

#include "sim/check.hpp"

namespace mgsim::models {

// Summed up to kExact terms, beyond by its asymptotic series (ln k + gamma + 1/2k - 1/12k^2,
// within 1e-9 of the sum there).
double harmonic(std::int64_t k) {
  MGSIM_CHECK(k >= 1, "H_{}", k);
  constexpr std::int64_t kExact = 64;
  if (k <= kExact) {
    double h = 0;
    for (std::int64_t i = k; i >= 1; --i) h += 1.0 / static_cast<double>(i);
    return h;
  }
  const double x = static_cast<double>(k);
  return std::log(x) + std::numbers::egamma + 1 / (2 * x) - 1 / (12 * x * x);
}

sim::Duration HbmSpec::latest_of(std::int64_t lines) const {
  MGSIM_CHECK(lines >= 1, "a wait for {} lines", lines);
  if (lines == 1 || latency_spread == sim::Duration::zero()) return latency;
  const double extra = static_cast<double>(latency_spread.picoseconds()) * (harmonic(lines) - 1.0);
  return latency + sim::Duration::ps(std::llround(extra));
}

}  // namespace mgsim::models
