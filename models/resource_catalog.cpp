#include "models/resource_catalog.hpp"

#include <utility>

#include <fmt/format.h>

#include "sim/check.hpp"

namespace mgsim::models {

std::string_view to_string(UnitKind kind) {
  switch (kind) {
    case UnitKind::hbm:
      return "hbm";
    case UnitKind::l2:
      return "l2";
    case UnitKind::tensor_pipe:
      return "tensor_pipe";
    case UnitKind::copy_engine:
      return "copy_engine";
    case UnitKind::peer_out:
      return "peer_out";
    case UnitKind::peer_in:
      return "peer_in";
    case UnitKind::nvlink_out:
      return "nvlink_out";
    case UnitKind::nvlink_in:
      return "nvlink_in";
    case UnitKind::nvswitch_port:
      return "nvswitch_port";
    case UnitKind::pcie_out:
      return "pcie_out";
    case UnitKind::pcie_in:
      return "pcie_in";
    case UnitKind::pcie:
      return "pcie";
    case UnitKind::nic_out:
      return "nic_out";
    case UnitKind::nic_in:
      return "nic_in";
    case UnitKind::network_link:
      return "network_link";
  }
  return "?";
}

Measure measure_of(UnitKind kind) {
  return kind == UnitKind::tensor_pipe ? Measure::flops : Measure::bytes;
}

std::string gpu_group(int rank, std::string_view unit) {
  MGSIM_CHECK(rank >= 0, "gpu_group of rank {}", rank);
  return fmt::format("gpu{}.{}", rank, unit);
}

void ResourceCatalog::add(sim::ResourceId resource, UnitKind kind, int gpu, std::string group) {
  MGSIM_CHECK(!group.empty(), "resource {} registered without a unit group", resource.value);
  // Both checks come before any change, so a failed add leaves the catalog as it was.
  const auto it = by_resource_.find(resource.value);
  MGSIM_CHECK(it == by_resource_.end(), "resource {} registered twice (groups '{}' and '{}')",
              resource.value, entries_[it->second].group, group);
  const auto g = group_kinds_.find(group);
  MGSIM_CHECK(g == group_kinds_.end() || g->second == kind, "unit group '{}' mixes kinds {} and {}",
              group, to_string(g->second), to_string(kind));
  by_resource_.emplace(resource.value, entries_.size());
  group_kinds_.emplace(group, kind);
  entries_.push_back({resource, kind, gpu, std::move(group)});
}

const CatalogEntry* ResourceCatalog::find(sim::ResourceId resource) const {
  const auto it = by_resource_.find(resource.value);
  return it == by_resource_.end() ? nullptr : &entries_[it->second];
}

}  // namespace mgsim::models
