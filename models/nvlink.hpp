// One GPU's NVLink port: its links taken together, per direction.
//
// Models: link count, per-link bandwidth per direction, protocol efficiency (packet headers,
// flow control: the fraction of signalled bandwidth that carries data) and one-way latency.
// Each direction of the port is one resource in the fluid solver.
// Ignores: per-link load imbalance (traffic spreads evenly over the links), link errors and
// retries, and the difference between read and write packet formats.
#pragma once

#include "sim/units.hpp"

namespace mgsim::models {

struct NvlinkSpec {
  int links = 18;                                            // links per GPU
  sim::Bandwidth link_bandwidth = sim::Bandwidth::GBps(25);  // per link, per direction
  double protocol_efficiency = 1.0;                          // data / signalled (fit)
  sim::Duration latency = sim::Duration::ns(700);            // one way, GPU to GPU

  // links x link_bandwidth: the datasheet per-direction figure.
  sim::Bandwidth port_bandwidth() const;
};

}  // namespace mgsim::models
