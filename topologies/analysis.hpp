// Whole-topology figures for `mgsim topo`: counts, bisection bandwidth, diameter, Graphviz.
//
// Bisection bandwidth: the GPUs are split by rank order into A = [0, n/2) and B = [n/2, n); the
// figure is the maximum rate A can send to B, one direction, computed exactly as a max-flow /
// min-cut (Boost push-relabel) on the routing graph (groups and trunks merged, routing.hpp),
// with GPUs allowed to send or receive but never to forward. For rank-ordered halves this is the
// bisection of the rank split, not the minimum over all balanced splits (that is NP-hard).
//
// Diameter: the largest hop count of a cheapest route between two GPUs.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>

#include "sim/units.hpp"
#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace mgsim::topologies {

struct TopologySummary {
  std::map<std::string, int> vertices_by_kind;  // kind name -> count
  int links = 0;                                // links as declared (after generators)
  std::int64_t lanes = 0;                       // their lanes summed
  int trunks = 0;                               // links after merging groups and parallels
  int nodes = 0;                                // distinct node indices of GPUs
};

TopologySummary summarize(const Topology& topo, const RoutingGraph& routing);

// One direction, A = first half of the ranks to B = the rest. REQUIRES: at least 2 GPUs.
sim::Bandwidth bisection_bandwidth(const RoutingGraph& routing);

// Largest hop count of a route between two GPUs (0 with a single GPU): over all ordered pairs up
// to kExactDiameterGpus GPUs (O(GPUs x graph) time, O(graph) memory); beyond, over the routes
// to kDiameterSamples destinations spread evenly over the ranks, a lower bound.
struct Diameter {
  int hops = 0;
  bool exact = true;
  int destinations = 0;  // the GPUs whose routes were measured
};
inline constexpr int kExactDiameterGpus = 2048;
inline constexpr int kDiameterSamples = 64;
Diameter gpu_diameter(const RoutingGraph& routing);

// The topology as declared (one DOT edge per link, groups not merged), via boost::write_graphviz.
void write_dot(std::ostream& out, const Topology& topo);

}  // namespace mgsim::topologies
