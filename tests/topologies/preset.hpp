// A preset topology with its GPUs' NVLink links at their datasheet rate, for the tests of the
// topology layer, which has no hardware files: the rate a Machine takes from the hardware
// (models/presets: h100 and h200 25 GB/s, b200 50 GB/s per link and direction, 18 links).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "topologies/topology.hpp"

namespace mgsim::test {

inline topologies::Topology preset(const std::string& name,
                                   const std::map<std::string, std::int64_t>& params = {}) {
  topologies::Topology t = topologies::load_topology(name, params);
  const sim::Bandwidth per_link = sim::Bandwidth::GBps(t.gpu_model == "b200" ? 50 : 25);
  topologies::resolve_gpu_links(t, per_link, 18, t.gpu_model);
  return t;
}

}  // namespace mgsim::test
