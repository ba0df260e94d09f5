// Kernel launch: the time from a stream reaching a launch to the first CTA running.
//
// Models: one fixed cost per launch on a stream that is not already busy.
// Ignores: CUDA graphs, launch batching, and programmatic dependent launch overlap.
#pragma once

#include "sim/units.hpp"

namespace mgsim::models {

struct LaunchSpec {
  sim::Duration kernel = sim::Duration::us(4);  // launch latency of one kernel
};

}  // namespace mgsim::models
