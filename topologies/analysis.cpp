#include "topologies/analysis.hpp"

#include <set>

#include <fmt/format.h>
#include <boost/graph/graphviz.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

#include "sim/check.hpp"

namespace mgsim::topologies {

TopologySummary summarize(const Topology& topo, const RoutingGraph& routing) {
  TopologySummary s;
  const Graph& g = topo.graph;
  std::set<int> nodes;
  for (auto [it, end] = boost::vertices(g); it != end; ++it) {
    ++s.vertices_by_kind[std::string(to_string(g[*it].kind))];
    if (g[*it].kind == VertexKind::gpu) nodes.insert(g[*it].node);
  }
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    ++s.links;
    s.lanes += g[*it].lanes;
  }
  s.trunks = static_cast<int>(routing.arcs().size() / 2);
  s.nodes = static_cast<int>(nodes.size());
  return s;
}

sim::Bandwidth bisection_bandwidth(const RoutingGraph& routing) {
  const int n = routing.gpu_count();
  MGSIM_CHECK(n >= 2, "bisection needs at least 2 GPUs, have {}", n);
  using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
  using FlowGraph = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::directedS, boost::no_property,
      boost::property<
          boost::edge_capacity_t, std::int64_t,
          boost::property<boost::edge_residual_capacity_t, std::int64_t,
                          boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
  const int v = routing.vertex_count();
  FlowGraph fg(static_cast<std::size_t>(v + 2));
  const int source = v;
  const int sink = v + 1;
  auto cap = boost::get(boost::edge_capacity, fg);
  auto rev = boost::get(boost::edge_reverse, fg);
  auto add = [&](int a, int b, std::int64_t c) {
    const auto e = boost::add_edge(a, b, fg).first;
    const auto r = boost::add_edge(b, a, fg).first;
    cap[e] = c;
    cap[r] = 0;
    rev[e] = r;
    rev[r] = e;
  };
  std::vector<int> side(static_cast<std::size_t>(v), -1);  // 0: sends (A), 1: receives (B)
  for (int r = 0; r < n; ++r) side[routing.gpu_vertex(r)] = r < n / 2 ? 0 : 1;
  for (const auto& a : routing.arcs()) {
    // A GPU only sends if in A and only receives if in B: no forwarding through GPUs.
    if (routing.is_gpu(a.from) && side[a.from] != 0) continue;
    if (routing.is_gpu(a.to) && side[a.to] != 1) continue;
    add(a.from, a.to, a.bandwidth.bytes_per_second());
  }
  // The source feeds each sender, and each receiver drains into the sink, as much as its links
  // carry (no cut through these edges is smaller than one through the GPU's links). Not "infinite":
  // the preflow puts the source's edges' sum in flight, which must fit in 64 bits.
  for (int r = 0; r < n; ++r) {
    const int g = routing.gpu_vertex(r);
    std::int64_t links = 0;
    for (int ai : routing.out_arcs(g)) links += routing.arcs()[ai].bandwidth.bytes_per_second();
    if (r < n / 2)
      add(source, g, links);
    else
      add(g, sink, links);
  }
  const std::int64_t flow = boost::push_relabel_max_flow(fg, source, sink);
  return sim::Bandwidth::bytes_per_second(flow);
}

Diameter gpu_diameter(const RoutingGraph& routing) {
  const int n = routing.gpu_count();
  Diameter out;
  out.exact = n <= kExactDiameterGpus;
  out.destinations = out.exact ? n : kDiameterSamples;
  for (int i = 0; i < out.destinations; ++i) {
    // Spread evenly: rank i x n / samples (as int64: 10^6 GPUs x 64 fits).
    const int d = out.exact ? i : static_cast<int>(std::int64_t{i} * n / out.destinations);
    // Not cached: the cache would hold a cost vector per GPU, O(n^2) memory.
    const std::vector<RoutingGraph::Cost> cost = routing.compute_costs_to(d);
    for (int s = 0; s < n; ++s)
      if (s != d) out.hops = std::max(out.hops, static_cast<int>(cost[routing.gpu_vertex(s)].hops));
  }
  return out;
}

void write_dot(std::ostream& out, const Topology& topo) {
  const Graph& g = topo.graph;
  auto vertex_writer = [&](std::ostream& os, VertexId v) {
    const VertexInfo& info = g[v];
    const char* shape = info.kind == VertexKind::gpu ? "box" : "ellipse";
    os << fmt::format("[label=\"{}\" shape={} kind=\"{}\"", info.name, shape, to_string(info.kind));
    if (!info.group.empty()) os << fmt::format(" group=\"{}\"", info.group);
    os << "]";
  };
  auto edge_writer = [&](std::ostream& os, Graph::edge_descriptor e) {
    const LinkInfo& l = g[e];
    os << fmt::format("[label=\"{} x{} {}\"]", to_string(l.kind), l.lanes,
                      sim::to_string(l.bandwidth));
  };
  auto graph_writer = [&](std::ostream& os) {
    os << fmt::format("label=\"{} ({} x {})\";\n", topo.name, topo.gpu_count(), topo.gpu_model);
  };
  boost::write_graphviz(out, g, vertex_writer, edge_writer, graph_writer);
}

}  // namespace mgsim::topologies
