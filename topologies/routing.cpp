#include "topologies/routing.hpp"

#include <algorithm>
#include <map>
#include <queue>
#include <unordered_map>

#include "sim/check.hpp"

namespace mgsim::topologies {

std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

RoutingGraph::RoutingGraph(const Topology& topo) {
  const Graph& g = topo.graph;
  // Merge groups: one routing vertex per group name, in order of first appearance.
  std::vector<int> rv(boost::num_vertices(g));
  std::unordered_map<std::string, int> group_index;
  for (VertexId v = 0; v < boost::num_vertices(g); ++v) {
    const VertexInfo& info = g[v];
    const int node = info.in_node ? info.node : -1;
    if (!info.group.empty()) {
      auto [it, fresh] = group_index.emplace(info.group, static_cast<int>(names_.size()));
      rv[v] = it->second;
      if (!fresh) {
        vertex_latency_[it->second] = std::max(vertex_latency_[it->second], info.latency);
        if (node_[it->second] != node) node_[it->second] = -1;
        continue;
      }
      names_.push_back(info.group);
    } else {
      rv[v] = static_cast<int>(names_.size());
      names_.push_back(info.name);
    }
    is_gpu_.push_back(info.kind == VertexKind::gpu ? 1 : 0);
    vertex_latency_.push_back(info.latency);
    node_.push_back(node);
  }
  for (VertexId v : topo.gpus) gpu_vertex_.push_back(rv[v]);

  // Merge parallel links into trunks, keyed by the (smaller, larger) routing vertex pair.
  std::map<std::pair<int, int>, Arc> trunks;
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    int a = rv[boost::source(*it, g)];
    int b = rv[boost::target(*it, g)];
    if (a == b) continue;  // inside a group: the group is one non-blocking crossbar
    if (a > b) std::swap(a, b);
    const LinkInfo& l = g[*it];
    auto [t, fresh] = trunks.try_emplace({a, b}, Arc{a, b, 0, sim::Bandwidth(), l.latency});
    t->second.lanes += l.lanes;
    t->second.bandwidth = t->second.bandwidth + l.bandwidth;
    if (!fresh) t->second.latency = std::min(t->second.latency, l.latency);
  }
  for (const auto& [_, t] : trunks) {
    arcs_.push_back(t);
    arcs_.push_back(Arc{t.to, t.from, t.lanes, t.bandwidth, t.latency});
  }
  offsets_.assign(names_.size() + 1, 0);
  for (const Arc& a : arcs_) ++offsets_[a.from + 1];
  for (std::size_t i = 1; i < offsets_.size(); ++i) offsets_[i] += offsets_[i - 1];
  out_.resize(arcs_.size());
  std::vector<int> fill(offsets_.begin(), offsets_.end() - 1);
  for (std::size_t i = 0; i < arcs_.size(); ++i) out_[fill[arcs_[i].from]++] = static_cast<int>(i);
  costs_.resize(gpu_vertex_.size());
}

const std::vector<RoutingGraph::Cost>& RoutingGraph::costs_to(int dst_rank) const {
  MGSIM_CHECK(dst_rank >= 0 && dst_rank < gpu_count(), "GPU rank {} out of range", dst_rank);
  auto& slot = costs_[dst_rank];
  if (!slot) slot = std::make_unique<std::vector<Cost>>(compute_costs_to(dst_rank));
  return *slot;
}

std::vector<RoutingGraph::Cost> RoutingGraph::compute_costs_to(int dst_rank) const {
  MGSIM_CHECK(dst_rank >= 0 && dst_rank < gpu_count(), "GPU rank {} out of range", dst_rank);
  const int dst = gpu_vertex_[dst_rank];
  std::vector<Cost> cost(names_.size());
  // Dijkstra from dst over the reversed arcs (links are symmetric, so the arcs leaving v are
  // the reverses of those entering it with the same latency).
  using Entry = std::pair<Cost, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  cost[dst] = Cost{0, sim::Duration::zero()};
  queue.push({cost[dst], dst});
  while (!queue.empty()) {
    const auto [c, w] = queue.top();
    queue.pop();
    if (c != cost[w]) continue;
    if (is_gpu(w) && w != dst) continue;  // GPUs do not forward
    const sim::Duration through = w == dst ? sim::Duration::zero() : vertex_latency_[w];
    for (int ai : out_arcs(w)) {
      const Arc& a = arcs_[ai];
      const Cost next{c.hops + 1, c.latency + a.latency + through};
      if (next < cost[a.to]) {
        cost[a.to] = next;
        queue.push({next, a.to});
      }
    }
  }
  return cost;
}

std::vector<int> RoutingGraph::path(int src_rank, int dst_rank, std::uint64_t seed,
                                    bool* had_choice) const {
  MGSIM_CHECK(src_rank != dst_rank, "route from GPU {} to itself", src_rank);
  const std::vector<Cost>& cost = costs_to(dst_rank);
  const int dst = gpu_vertex_[dst_rank];
  int at = gpu_vertex_[src_rank];
  MGSIM_CHECK(cost[at].reachable(), "GPU {} cannot reach GPU {}", src_rank, dst_rank);
  std::vector<int> out;
  std::vector<int> candidates;
  if (had_choice) *had_choice = false;
  while (at != dst) {
    candidates.clear();
    std::int64_t total = 0;
    for (int ai : out_arcs(at)) {
      const Arc& a = arcs_[ai];
      if (a.to != dst && is_gpu(a.to)) continue;
      const sim::Duration through = a.to == dst ? sim::Duration::zero() : vertex_latency_[a.to];
      const Cost& c = cost[a.to];
      if (!c.reachable()) continue;
      if (Cost{c.hops + 1, c.latency + a.latency + through} == cost[at]) {
        candidates.push_back(ai);
        total += a.bandwidth.bytes_per_second();
      }
    }
    MGSIM_CHECK(!candidates.empty(), "no next hop from {} towards {}", names_[at], names_[dst]);
    int chosen = candidates.front();
    if (candidates.size() > 1) {
      if (had_choice) *had_choice = true;
      seed = mix64(seed);
      std::int64_t r = static_cast<std::int64_t>(seed % static_cast<std::uint64_t>(total));
      for (int ai : candidates) {
        r -= arcs_[ai].bandwidth.bytes_per_second();
        if (r < 0) {
          chosen = ai;
          break;
        }
      }
    }
    out.push_back(chosen);
    at = arcs_[chosen].to;
  }
  return out;
}

}  // namespace mgsim::topologies
