#include "topologies/topology.hpp"

namespace mgsim::topologies {

std::string_view to_string(VertexKind k) {
  switch (k) {
    case VertexKind::gpu:
      return "gpu";
    case VertexKind::nvswitch:
      return "nvswitch";
    case VertexKind::nic:
      return "nic";
    case VertexKind::pcie_switch:
      return "pcie_switch";
    case VertexKind::cpu:
      return "cpu";
    case VertexKind::ib_switch:
      return "ib_switch";
  }
  return "?";
}

std::string_view to_string(LinkKind k) {
  switch (k) {
    case LinkKind::nvlink:
      return "nvlink";
    case LinkKind::pcie:
      return "pcie";
    case LinkKind::ib:
      return "ib";
    case LinkKind::ethernet:
      return "ethernet";
    case LinkKind::c2c:
      return "c2c";
  }
  return "?";
}

}  // namespace mgsim::topologies
