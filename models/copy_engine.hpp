// Copy engines (DMA): cudaMemcpy-style transfers that use no SM.
//
// Models: engines per GPU, a fixed setup cost per transfer (descriptor build, doorbell, first
// bytes), and each engine's bandwidth; a transfer is a flow capped at `bandwidth` after `setup`.
// Ignores: host-side API cost beyond `setup`, splitting one transfer across engines, and
// pinned-memory paging effects for host copies.
#pragma once

#include "sim/units.hpp"

namespace mgsim::models {

struct CopyEngineSpec {
  int count = 4;                                         // engines usable by one GPU
  sim::Duration setup = sim::Duration::us(2);            // fixed cost per transfer
  sim::Bandwidth bandwidth = sim::Bandwidth::GBps(450);  // one engine's peak rate
};

}  // namespace mgsim::models
