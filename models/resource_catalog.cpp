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
  const std::size_t id = resource.value;
  MGSIM_CHECK(id >= entry_of_.size() || entry_of_[id] < 0,
              "resource {} registered twice (groups '{}' and '{}')", resource.value,
              entries_[static_cast<std::size_t>(entry_of_[id])].group, group);
  // A group's resources mostly come one after another (a GPU's SM pipes): only a group other
  // than the last one's is looked up.
  const bool as_last = !entries_.empty() && entries_.back().group == group;
  if (as_last) {
    MGSIM_CHECK(entries_.back().kind == kind, "unit group '{}' mixes kinds {} and {}", group,
                to_string(entries_.back().kind), to_string(kind));
  } else {
    const auto g = group_kinds_.find(group);
    MGSIM_CHECK(g == group_kinds_.end() || g->second == kind,
                "unit group '{}' mixes kinds {} and {}", group, to_string(g->second),
                to_string(kind));
    group_kinds_.emplace(group, kind);
  }
  if (id >= entry_of_.size()) entry_of_.resize(id + 1, -1);
  entry_of_[id] = static_cast<std::int64_t>(entries_.size());
  entries_.push_back({resource, kind, gpu, std::move(group)});
}

const CatalogEntry* ResourceCatalog::find(sim::ResourceId resource) const {
  const std::size_t id = resource.value;
  if (id >= entry_of_.size() || entry_of_[id] < 0) return nullptr;
  return &entries_[static_cast<std::size_t>(entry_of_[id])];
}

}  // namespace mgsim::models
