// Routing over a topology: groups merged, shortest paths, equal-cost multipath.
//
// RoutingGraph is the topology with every `group` merged into one vertex and all links that
// then join the same two vertices merged into one trunk (bandwidths and lanes add; latency is
// the smallest of them, as a trunk is a set of equivalent parallel links). It is stored as a
// compact array of directed arcs: trunk k gives arcs 2k and 2k + 1, one per direction (so the
// reverse of arc a is arc a ^ 1).
//
// Paths: the cost of a path is (hops, latency) compared lexicographically; latency is the sum
// of the arcs' latencies and of the latencies of the vertices crossed (not the endpoints). GPUs
// never forward traffic: a GPU is only ever a path's first or last vertex.
//
// ECMP: Routes to one destination come from one cost table per destination (a Dijkstra from
// it, computed on first use and kept). Every neighbour on a cheapest path is a valid next hop;
// a route picks one per hop, pseudo-randomly from a 64-bit seed, with probability proportional
// to the arc's bandwidth so that, over many flows, traffic splits in proportion to capacity.
//
// Thread-safety: none (the tables are filled lazily); one RoutingGraph per simulation.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/units.hpp"
#include "topologies/topology.hpp"

namespace mgsim::topologies {

class RoutingGraph {
 public:
  struct Arc {
    int from = 0;
    int to = 0;
    int lanes = 0;
    sim::Bandwidth bandwidth;  // this direction
    sim::Duration latency;
  };
  struct Cost {
    std::int32_t hops = std::numeric_limits<std::int32_t>::max();
    sim::Duration latency;
    bool reachable() const { return hops != std::numeric_limits<std::int32_t>::max(); }
    auto operator<=>(const Cost&) const = default;
  };

  explicit RoutingGraph(const Topology& topo);

  int vertex_count() const { return static_cast<int>(names_.size()); }
  const std::string& name(int v) const { return names_[v]; }
  bool is_gpu(int v) const { return is_gpu_[v] != 0; }
  const std::vector<Arc>& arcs() const { return arcs_; }
  // Indices into arcs() of the arcs leaving v.
  std::span<const int> out_arcs(int v) const {
    return {out_.data() + offsets_[v], out_.data() + offsets_[v + 1]};
  }
  int gpu_vertex(int rank) const { return gpu_vertex_[rank]; }
  // The node (VertexInfo::node) a vertex belongs to, or -1 for a shared one (no `node:` given,
  // or a group whose chips are in different nodes).
  int node(int v) const { return node_[v]; }
  sim::Duration vertex_latency(int v) const { return vertex_latency_[v]; }
  int gpu_count() const { return static_cast<int>(gpu_vertex_.size()); }

  // Cost from every vertex to GPU rank `dst` (computed on first use, then cached).
  const std::vector<Cost>& costs_to(int dst_rank) const;
  // The same, computed now and not cached (for a pass over many destinations).
  std::vector<Cost> compute_costs_to(int dst_rank) const;

  // The arcs of one cheapest path from GPU rank src to GPU rank dst, choosing among equal-cost
  // next hops with `seed` (see the header comment). REQUIRES: src != dst.
  std::vector<int> path(int src_rank, int dst_rank, std::uint64_t seed, bool* had_choice) const;

 private:
  std::vector<std::string> names_;
  std::vector<char> is_gpu_;
  std::vector<sim::Duration> vertex_latency_;
  std::vector<int> node_;
  std::vector<Arc> arcs_;
  std::vector<int> offsets_;  // CSR over out_
  std::vector<int> out_;
  std::vector<int> gpu_vertex_;
  mutable std::vector<std::unique_ptr<std::vector<Cost>>> costs_;
};

// SplitMix64 finaliser: a cheap, well-mixed deterministic hash step.
std::uint64_t mix64(std::uint64_t x);

}  // namespace mgsim::topologies
