#include "models/hardware_spec.hpp"

#include <cmath>

#include "sim/check.hpp"

namespace mgsim::models {

sim::Bandwidth scale_bandwidth(sim::Bandwidth bw, double factor) {
  MGSIM_CHECK(factor >= 0.0, "negative bandwidth factor {}", factor);
  // long double keeps the 64-bit mantissa exact for any int64 rate before the one rounding.
  const long double scaled =
      static_cast<long double>(bw.bytes_per_second()) * static_cast<long double>(factor);
  return sim::Bandwidth::bytes_per_second(static_cast<std::int64_t>(std::floor(scaled)));
}

sim::Bandwidth peer_bandwidth(const HardwareSpec& spec, PeerPath path) {
  double path_efficiency = 1.0;
  switch (path) {
    case PeerPath::copy_engine:
      path_efficiency = 1.0;
      break;
    case PeerPath::tma:
      path_efficiency = spec.tma.nvlink_efficiency;
      break;
    case PeerPath::ldst:
      path_efficiency = spec.ldst.nvlink_efficiency;
      break;
    case PeerPath::tma_reduce:
      path_efficiency = spec.tma.nvlink_efficiency * spec.tma.reduce_efficiency;
      break;
  }
  return scale_bandwidth(spec.nvlink.port_bandwidth(),
                         spec.nvlink.protocol_efficiency * path_efficiency);
}

}  // namespace mgsim::models
