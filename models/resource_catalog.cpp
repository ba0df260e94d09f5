#include "models/resource_catalog.hpp"

#include <utility>

#include <fmt/format.h>

#include "sim/check.hpp"
#include "sim/names.hpp"

namespace mgsim::models {

namespace {

constexpr auto kUnitKindNames = sim::name_table<UnitKind>({
    {UnitKind::hbm, "hbm"},
    {UnitKind::l2, "l2"},
    {UnitKind::tensor_pipe, "tensor_pipe"},
    {UnitKind::copy_engine, "copy_engine"},
    {UnitKind::peer_out, "peer_out"},
    {UnitKind::peer_in, "peer_in"},
    {UnitKind::nvlink_out, "nvlink_out"},
    {UnitKind::nvlink_in, "nvlink_in"},
    {UnitKind::nvswitch_port, "nvswitch_port"},
    {UnitKind::pcie_out, "pcie_out"},
    {UnitKind::pcie_in, "pcie_in"},
    {UnitKind::pcie, "pcie"},
    {UnitKind::nic_out, "nic_out"},
    {UnitKind::nic_in, "nic_in"},
    {UnitKind::network_link, "network_link"},
});

}  // namespace

std::string_view to_string(UnitKind kind) { return kUnitKindNames.name(kind); }

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
