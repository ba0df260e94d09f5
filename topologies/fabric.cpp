#include "topologies/fabric.hpp"

#include <fmt/format.h>
#include <boost/graph/connected_components.hpp>
#include <boost/range/iterator_range.hpp>

#include "sim/check.hpp"

namespace mgsim::topologies {

Fabric::Fabric(const Topology& topo, sim::FluidNetwork& net) : routing_(topo) {
  MGSIM_CHECK(links_resolved(topo), "topology {}: a GPU's NVLink rate was never resolved",
              topo.name);
  for (const RoutingGraph::Arc& a : routing_.arcs()) {
    const std::string from = routing_.name(a.from), to = routing_.name(a.to);
    const sim::ResourceId id = net.add_resource(fmt::format("{}->{}", from, to), a.bandwidth);
    arc_resources_.push_back(id);
    // In a trace, a GPU's links sit under the GPU: "link -> nvsw0" out of it, "link <- nvsw0"
    // into it (a direct GPU-GPU link shows under its sending GPU).
    if (routing_.is_gpu(a.from))
      net.set_trace_track(id, from, fmt::format("link -> {}", to));
    else if (routing_.is_gpu(a.to))
      net.set_trace_track(id, to, fmt::format("link <- {}", from));
  }
  // NVLink domains: components of the graph of NVLink links alone.
  boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS> nvlink(
      boost::num_vertices(topo.graph));
  for (const auto& e : boost::make_iterator_range(boost::edges(topo.graph)))
    if (topo.graph[e].kind == LinkKind::nvlink)
      boost::add_edge(boost::source(e, topo.graph), boost::target(e, topo.graph), nvlink);
  std::vector<int> component(boost::num_vertices(topo.graph));
  boost::connected_components(nvlink, component.data());
  for (VertexId v : topo.gpus) {
    gpu_names_.push_back(topo.graph[v].name);
    gpu_nodes_.push_back(topo.graph[v].node);
    gpu_domains_.push_back(component[v]);
  }
}

const Fabric::Route& Fabric::route(int src, int dst, std::uint64_t flow_hint) const {
  const int n = gpu_count();
  MGSIM_CHECK(src >= 0 && src < n && dst >= 0 && dst < n, "route({}, {}) with {} GPUs", src, dst,
              n);
  MGSIM_CHECK(src != dst, "route from GPU {} to itself", src);
  const std::uint64_t pair = static_cast<std::uint64_t>(src) * static_cast<std::uint64_t>(n) +
                             static_cast<std::uint64_t>(dst);
  const std::uint64_t single_key = pair * (kHintClasses + 1) + kHintClasses;
  if (auto it = routes_.find(single_key); it != routes_.end()) return it->second;
  // Different pairs start from different seeds so that, with the default hint, pairs spread.
  const std::uint64_t hint_class = mix64(pair ^ mix64(flow_hint)) % kHintClasses;
  const std::uint64_t key = pair * (kHintClasses + 1) + hint_class;
  if (auto it = routes_.find(key); it != routes_.end()) return it->second;

  bool had_choice = false;
  const std::vector<int> arcs = routing_.path(src, dst, mix64(pair) ^ hint_class, &had_choice);
  Route r;
  r.resources.reserve(arcs.size());
  for (int a : arcs) r.resources.push_back(arc_resources_[a]);
  r.arcs = arcs;
  r.latency = latency(src, dst);
  r.single = !had_choice;
  return routes_.emplace(had_choice ? key : single_key, std::move(r)).first->second;
}

sim::Duration Fabric::latency(int src, int dst) const {
  const int n = gpu_count();
  MGSIM_CHECK(src >= 0 && src < n && dst >= 0 && dst < n, "latency({}, {}) with {} GPUs", src, dst,
              n);
  MGSIM_CHECK(src != dst, "latency from GPU {} to itself", src);
  return routing_.costs_to(dst)[routing_.gpu_vertex(src)].latency;
}

sim::Bandwidth Fabric::injection_bandwidth(int gpu) const {
  MGSIM_CHECK(gpu >= 0 && gpu < gpu_count(), "GPU {} out of range", gpu);
  sim::Bandwidth total;
  for (int ai : routing_.out_arcs(routing_.gpu_vertex(gpu)))
    total = total + routing_.arcs()[ai].bandwidth;
  return total;
}

std::vector<sim::ResourceId> Fabric::egress(int gpu) const {
  MGSIM_CHECK(gpu >= 0 && gpu < gpu_count(), "GPU {} out of range", gpu);
  std::vector<sim::ResourceId> out;
  for (int ai : routing_.out_arcs(routing_.gpu_vertex(gpu))) out.push_back(arc_resources_[ai]);
  return out;
}

std::vector<sim::ResourceId> Fabric::ingress(int gpu) const {
  MGSIM_CHECK(gpu >= 0 && gpu < gpu_count(), "GPU {} out of range", gpu);
  // Arcs come in pairs (2k, 2k + 1), one per direction of trunk k: the reverse of an arc
  // leaving the GPU is the arc entering it.
  std::vector<sim::ResourceId> out;
  for (int ai : routing_.out_arcs(routing_.gpu_vertex(gpu))) out.push_back(arc_resources_[ai ^ 1]);
  return out;
}

}  // namespace mgsim::topologies
