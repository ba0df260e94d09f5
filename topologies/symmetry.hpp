// Node translations: the symmetry of a fabric that lets a run simulate symmetric ranks once
// (traces/simulation.hpp, issue 12).
//
// The translation by `shift` nodes moves every vertex of node n (a vertex given `node:`,
// VertexInfo::in_node) to the vertex at the same place among node n + shift's vertices (mod the
// node count N; places in file order), and leaves every shared vertex (a network switch, given no
// node) where it is. It is a symmetry of the fabric when:
//   - N is a multiple of `shift`, and every node has as many routing vertices as the node
//     `shift` after it;
//   - each vertex moves onto one with the same GPU-ness and crossing latency;
//   - each arc moves onto an arc with the same bandwidth, lanes and latency (so cheapest paths,
//     and a pair's only cheapest path, move with it);
//   - GPU rank r moves onto rank (r + period) mod GPUs, where `period` is the number of GPUs in
//     nodes 0 .. shift - 1, which are ranks 0 .. period - 1.
// Then rank r + k * period stands where rank r stands, and an arc of node n is the image of one
// arc of nodes 0 .. shift - 1, its stand-in. Arcs between two shared vertices stay put (they have
// no stand-in: every translate of a flow crossing one crosses it too).
#pragma once

#include <optional>
#include <vector>

#include "topologies/routing.hpp"

namespace mgsim::topologies {

struct Translation {
  int shift = 0;   // nodes
  int period = 0;  // GPUs of nodes 0 .. shift - 1
  // arc -> the arc of nodes 0 .. shift - 1 that it is a translate of (itself there), or -1 for
  // an arc between shared vertices.
  std::vector<int> arc_stand_in;
};

// The number of nodes of `g` (the largest node index plus one; 0 when no vertex has a node).
int node_count(const RoutingGraph& g);

// The translation by `shift` nodes if it is a symmetry of `g` (above), else nullopt.
// REQUIRES: shift > 0.
std::optional<Translation> node_translation(const RoutingGraph& g, int shift);

}  // namespace mgsim::topologies
