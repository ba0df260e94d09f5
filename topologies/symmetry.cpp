#include "topologies/symmetry.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "sim/check.hpp"

namespace mgsim::topologies {

int node_count(const RoutingGraph& g) {
  int nodes = 0;
  for (int v = 0; v < g.vertex_count(); ++v) nodes = std::max(nodes, g.node(v) + 1);
  return nodes;
}

namespace {

// The vertices of each node in order, and each vertex's place in its node.
class Places {
 public:
  Places(const RoutingGraph& g, int nodes)
      : g_(g), nodes_(nodes), members_(static_cast<std::size_t>(nodes)) {
    place_.assign(static_cast<std::size_t>(g.vertex_count()), -1);
    for (int v = 0; v < g.vertex_count(); ++v) {
      if (g.node(v) < 0) continue;
      auto& m = members_[static_cast<std::size_t>(g.node(v))];
      place_[static_cast<std::size_t>(v)] = static_cast<int>(m.size());
      m.push_back(v);
    }
  }
  // Whether each node has as many vertices as the node `shift` after it.
  bool repeats(int shift) const {
    for (int n = 0; n < nodes_; ++n) {
      if (members_[static_cast<std::size_t>(n)].size() !=
          members_[static_cast<std::size_t>((n + shift) % nodes_)].size())
        return false;
    }
    return true;
  }
  // v moved by `nodes` nodes (any sign); shared vertices stay.
  int moved(int v, int nodes) const {
    const int n = g_.node(v);
    if (n < 0) return v;
    const int to = ((n + nodes) % nodes_ + nodes_) % nodes_;
    return members_[static_cast<std::size_t>(to)][static_cast<std::size_t>(place_[v])];
  }

 private:
  const RoutingGraph& g_;
  int nodes_;
  std::vector<std::vector<int>> members_;
  std::vector<int> place_;
};

}  // namespace

std::optional<Translation> node_translation(const RoutingGraph& g, int shift) {
  MGSIM_CHECK(shift > 0, "translation by {} nodes", shift);
  const int nodes = node_count(g);
  if (nodes < 2 || shift >= nodes || nodes % shift != 0) return std::nullopt;
  const Places places(g, nodes);
  if (!places.repeats(shift)) return std::nullopt;
  for (int v = 0; v < g.vertex_count(); ++v) {
    const int w = places.moved(v, shift);
    if (g.is_gpu(v) != g.is_gpu(w) || g.vertex_latency(v) != g.vertex_latency(w))
      return std::nullopt;
  }
  const auto n = static_cast<std::uint64_t>(g.vertex_count());
  const auto key = [n](int from, int to) {
    return static_cast<std::uint64_t>(from) * n + static_cast<std::uint64_t>(to);
  };
  const auto& arcs = g.arcs();
  std::unordered_map<std::uint64_t, int> arc_of;
  arc_of.reserve(arcs.size());
  for (std::size_t a = 0; a < arcs.size(); ++a)
    arc_of.emplace(key(arcs[a].from, arcs[a].to), static_cast<int>(a));
  // The arc that `a` moves onto by `nodes` nodes, or -1.
  const auto moved_arc = [&](const RoutingGraph::Arc& a, int by) {
    const auto it = arc_of.find(key(places.moved(a.from, by), places.moved(a.to, by)));
    return it == arc_of.end() ? -1 : it->second;
  };
  for (const RoutingGraph::Arc& a : arcs) {
    const int m = moved_arc(a, shift);
    if (m < 0) return std::nullopt;
    const RoutingGraph::Arc& b = arcs[static_cast<std::size_t>(m)];
    if (b.bandwidth != a.bandwidth || b.lanes != a.lanes || b.latency != a.latency)
      return std::nullopt;
  }
  Translation t;
  t.shift = shift;
  const int gpus = g.gpu_count();
  const auto in_first = [&](int r) {
    const int node = g.node(g.gpu_vertex(r));
    return node >= 0 && node < shift;
  };
  while (t.period < gpus && in_first(t.period)) ++t.period;
  if (t.period == 0) return std::nullopt;
  for (int r = t.period; r < gpus; ++r)
    if (in_first(r)) return std::nullopt;
  for (int r = 0; r < gpus; ++r) {
    if (places.moved(g.gpu_vertex(r), shift) != g.gpu_vertex((r + t.period) % gpus))
      return std::nullopt;
  }
  t.arc_stand_in.reserve(arcs.size());
  for (const RoutingGraph::Arc& a : arcs) {
    const int node = g.node(a.from) >= 0 ? g.node(a.from) : g.node(a.to);
    if (node < 0) {
      t.arc_stand_in.push_back(-1);
      continue;
    }
    const int stand_in = moved_arc(a, -(node / shift) * shift);
    MGSIM_CHECK(stand_in >= 0, "an arc of node {} has no stand-in", node);
    t.arc_stand_in.push_back(stand_in);
  }
  return t;
}

}  // namespace mgsim::topologies
