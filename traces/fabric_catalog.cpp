#include "traces/fabric_catalog.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sim/check.hpp"
#include "topologies/fabric.hpp"
#include "topologies/symmetry.hpp"
#include "topologies/topology.hpp"

namespace mgsim::traces {

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

void register_fabric(models::ResourceCatalog& catalog, const topologies::Fabric& fabric,
                     const topologies::Topology& topo, const topologies::Translation* folded) {
  using models::gpu_group;
  using models::UnitKind;
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
    if (folded && folded->arc_stand_in[i] >= 0 && folded->arc_stand_in[i] != static_cast<int>(i))
      continue;
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
      catalog.add(id, UnitKind::nic_out, -1, fmt::format("{}.out", from));
    } else if (is_network(lk->second) && kinds[to] == VertexKind::nic) {
      catalog.add(id, UnitKind::nic_in, -1, fmt::format("{}.in", to));
    } else if (is_network(lk->second)) {
      catalog.add(id, UnitKind::network_link, -1, fmt::format("{}->{}", from, to));
    } else if (pcie) {
      catalog.add(id, UnitKind::pcie, -1, fmt::format("{}->{}", from, to));
    } else {
      catalog.add(id, UnitKind::nvswitch_port, -1, fmt::format("{}->{}", from, to));
    }
  }
}

}  // namespace mgsim::traces
