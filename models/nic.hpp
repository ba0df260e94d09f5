// The scale-out network interface of one GPU (one rail).
//
// Models: per-direction bandwidth and one-way latency through the NIC (not the switches).
// Ignores: RDMA queue pairs, message-rate limits and congestion control.
#pragma once

#include "sim/units.hpp"

namespace mgsim::models {

struct NicSpec {
  sim::Bandwidth bandwidth = sim::Bandwidth::GBps(50);  // per direction (400 Gb/s)
  sim::Duration latency = sim::Duration::ns(2000);      // one way, NIC to NIC excluding switches
};

}  // namespace mgsim::models
