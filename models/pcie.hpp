// The PCIe link between one GPU and its host (or PCIe switch).
//
// Models: generation and lanes (for reports), per-direction bandwidth and one-way latency.
// Ignores: TLP sizes, read-request limits and encoding overhead beyond the stated bandwidth.
#pragma once

#include "sim/units.hpp"

namespace mgsim::models {

struct PcieSpec {
  int generation = 5;                                   // PCIe generation
  int lanes = 16;                                       // link width
  sim::Bandwidth bandwidth = sim::Bandwidth::GBps(64);  // per direction
  sim::Duration latency = sim::Duration::ns(1000);      // one way
};

}  // namespace mgsim::models
