#include "traces/resource_catalog.hpp"

#include <map>
#include <utility>

#include <fmt/format.h>

#include "sim/check.hpp"
#include "topologies/fabric.hpp"
#include "topologies/topology.hpp"

namespace mgsim::traces {

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

namespace {

// The routing graph names a grouped vertex by its group and the others by their own name
// (routing.hpp), so this is the name a topology vertex has there.
const std::string& routing_name(const topologies::VertexInfo& v) {
  return v.group.empty() ? v.name : v.group;
}

bool is_network(topologies::LinkKind k) {
  return k == topologies::LinkKind::ib || k == topologies::LinkKind::ethernet;
}

}  // namespace

void register_fabric(ResourceCatalog& catalog, const topologies::Fabric& fabric,
                     const topologies::Topology& topo) {
  using topologies::LinkKind;
  using topologies::VertexKind;
  const topologies::RoutingGraph& rg = fabric.routing();

  // Vertex kind by routing name (a group's chips share one kind).
  std::map<std::string, VertexKind> kinds;
  for (auto [v, end] = boost::vertices(topo.graph); v != end; ++v)
    kinds.emplace(routing_name(topo.graph[*v]), topo.graph[*v].kind);
  // Link kind of each trunk, by the unordered pair of routing names. A trunk merges parallel
  // links; if they differ in kind the first one in the file names it.
  std::map<std::pair<std::string, std::string>, LinkKind> links;
  for (auto [e, end] = boost::edges(topo.graph); e != end; ++e) {
    std::string a = routing_name(topo.graph[boost::source(*e, topo.graph)]);
    std::string b = routing_name(topo.graph[boost::target(*e, topo.graph)]);
    if (b < a) std::swap(a, b);
    links.emplace(std::make_pair(std::move(a), std::move(b)), topo.graph[*e].kind);
  }
  std::vector<int> rank_of(static_cast<std::size_t>(rg.vertex_count()), -1);
  for (int r = 0; r < rg.gpu_count(); ++r) rank_of[static_cast<std::size_t>(rg.gpu_vertex(r))] = r;

  const auto& arcs = rg.arcs();
  for (std::size_t i = 0; i < arcs.size(); ++i) {
    const auto& arc = arcs[i];
    const std::string& from = rg.name(arc.from);
    const std::string& to = rg.name(arc.to);
    std::pair<std::string, std::string> key =
        from < to ? std::make_pair(from, to) : std::make_pair(to, from);
    const auto lk = links.find(key);
    MGSIM_CHECK(lk != links.end(), "trunk {}->{} has no link in the topology", from, to);
    const int src = rank_of[static_cast<std::size_t>(arc.from)];
    const int dst = rank_of[static_cast<std::size_t>(arc.to)];
    // NVLink-C2C (Grace to GPU) is a host link like PCIe: it joins the pcie kinds, in its own
    // groups, so it never inflates a GPU's NVLink capacity.
    const bool c2c = lk->second == LinkKind::c2c;
    const bool pcie = lk->second == LinkKind::pcie || c2c;
    const char* host_out = c2c ? "c2c.out" : "pcie.out";
    const char* host_in = c2c ? "c2c.in" : "pcie.in";
    const sim::ResourceId id = fabric.resource_of_arc(static_cast<int>(i));
    if (src >= 0) {
      catalog.add(id, pcie ? UnitKind::pcie_out : UnitKind::nvlink_out, src,
                  gpu_group(src, pcie ? host_out : "nvlink.out"));
    } else if (dst >= 0) {
      catalog.add(id, pcie ? UnitKind::pcie_in : UnitKind::nvlink_in, dst,
                  gpu_group(dst, pcie ? host_in : "nvlink.in"));
    } else if (is_network(lk->second) && kinds[from] == VertexKind::nic) {
      catalog.add(id, UnitKind::nic_out, -1, from + ".out");
    } else if (is_network(lk->second) && kinds[to] == VertexKind::nic) {
      catalog.add(id, UnitKind::nic_in, -1, to + ".in");
    } else if (is_network(lk->second)) {
      catalog.add(id, UnitKind::network_link, -1, from + "->" + to);
    } else if (pcie) {
      catalog.add(id, UnitKind::pcie, -1, from + "->" + to);
    } else {
      catalog.add(id, UnitKind::nvswitch_port, -1, from + "->" + to);
    }
  }
}

}  // namespace mgsim::traces
