#include "models/nvlink.hpp"

namespace mgsim::models {

sim::Bandwidth NvlinkSpec::port_bandwidth() const { return link_bandwidth * links; }

}  // namespace mgsim::models
