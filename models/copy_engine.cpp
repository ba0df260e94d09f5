#include "models/copy_engine.hpp"

namespace mgsim::models {

sim::Duration CopyEngineSpec::transfer_time(sim::Bytes bytes) const {
  return setup + sim::transfer_time(bytes, bandwidth);
}

}  // namespace mgsim::models
