#include "models/nvlink.hpp"

#include "models/hardware_spec.hpp"

namespace mgsim::models {

sim::Bandwidth NvlinkSpec::port_bandwidth() const { return link_bandwidth * links; }

sim::Bandwidth NvlinkSpec::effective_bandwidth() const {
  return scale_bandwidth(port_bandwidth(), protocol_efficiency);
}

}  // namespace mgsim::models
