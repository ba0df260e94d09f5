#include "models/hardware_spec.hpp"

#include <cmath>
#include <limits>

#include "sim/check.hpp"

namespace mgsim::models {

HardwareSpec with_host(HardwareSpec gpu, const HardwareSpec& host) {
  gpu.host = host.host;
  gpu.launch.latency = host.launch.latency;
  gpu.launch.wake_1ms = host.launch.wake_1ms;
  gpu.launch.wake_100ms = host.launch.wake_100ms;
  auto from_host = [](const std::string& key) {
    return key.starts_with("host.") || key == "launch.latency" || key == "launch.wake_1ms" ||
           key == "launch.wake_100ms";
  };
  std::erase_if(gpu.sources, [&](const auto& entry) { return from_host(entry.first); });
  for (const auto& [key, source] : host.sources)
    if (from_host(key)) gpu.sources[key] = source;
  gpu.name += "+" + host.name + " host";
  return gpu;
}

sim::Bandwidth scale_bandwidth(sim::Bandwidth bw, double factor) {
  MGSIM_CHECK(factor >= 0.0 && std::isfinite(factor), "bad bandwidth factor {}", factor);
  // Exact in integers, the one rounding a floor: factor = mantissa x 2^(exp - 53) with a 53-bit
  // integer mantissa, so rate x factor = (rate x mantissa) >> (53 - exp), rate x mantissa < 2^116.
  // (The x87 long double this replaced was as exact and, on some builds' code layout, several
  // times slower: docs/PERFORMANCE.md.)
  int exp = 0;
  const double fraction = std::frexp(factor, &exp);
  const auto mantissa = static_cast<sim::Int128>(std::ldexp(fraction, 53));
  const sim::Int128 product = static_cast<sim::Int128>(bw.bytes_per_second()) * mantissa;
  const int shift = 53 - exp;
  MGSIM_CHECK(shift >= 0, "bandwidth factor {} too large", factor);
  const sim::Int128 scaled = shift >= 127 ? 0 : product >> shift;
  MGSIM_CHECK(scaled <= std::numeric_limits<std::int64_t>::max(),
              "{} B/s x {} overflows a bandwidth", bw.bytes_per_second(), factor);
  return sim::Bandwidth::bytes_per_second(static_cast<std::int64_t>(scaled));
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
