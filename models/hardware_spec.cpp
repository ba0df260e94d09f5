#include "models/hardware_spec.hpp"

#include <cmath>

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
