#include "topologies/topology.hpp"

namespace mgsim::topologies {

std::string_view to_string(VertexKind k) { return kVertexKindNames.name(k); }
std::string_view to_string(LinkKind k) { return kLinkKindNames.name(k); }

}  // namespace mgsim::topologies
