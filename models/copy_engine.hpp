// Copy engines (DMA): cudaMemcpy-style transfers that use no SM.
//
// Models: engines per GPU, a fixed setup cost per transfer (descriptor build, doorbell, first
// bytes), longer for a pull (the engine of the reading GPU requests the peer's memory:
// `pull_setup`), and each engine's bandwidth; a transfer is a flow capped at `bandwidth` after its
// setup. The host's cost of the API call is models/host.hpp's. Ignores: splitting one transfer
// across engines, and pinned-memory paging effects for host copies.
#pragma once

#include "sim/units.hpp"

namespace mgsim::models {

struct CopyEngineSpec {
  int count = 4;                                         // engines usable by one GPU
  sim::Duration setup = sim::Duration::us(2);            // fixed cost per transfer (push, local)
  sim::Duration pull_setup = sim::Duration::us(4);       // fixed cost per peer read (pull)
  sim::Bandwidth bandwidth = sim::Bandwidth::GBps(450);  // one engine's peak rate
};

}  // namespace mgsim::models
