// The wired fabric: a topology's links registered as capacities in a sim::FluidNetwork, and
// routes between GPU ranks as lists of those capacities. The traces and models layers move
// bytes by starting fluid flows over Fabric::route().
//
// Contract:
//   - One resource per direction of every routing-graph trunk (routing.hpp: a `group` of
//     switch chips is one vertex, parallel links are one trunk), named "<from>-><to>" with
//     vertex or group names ("gpu0->nvswitch" on HGX, whose 4 chips form group "nvswitch";
//     "n0.nic3->leaf3" on the InfiniBand preset). Capacity: the trunk's per-direction bandwidth.
//   - route(src, dst, hint) is a cheapest path by (hops, latency) that never crosses another
//     GPU; among equal-cost paths the choice is a deterministic function of (src, dst, hint),
//     weighted by bandwidth. Hints are folded into 64 classes per pair, so at most 64 routes per
//     pair are ever built. Routes are computed on first use and cached; the returned reference
//     stays valid for the Fabric's lifetime.
//   - latency: the sum of link latencies and crossed switch latencies along the path.
// Thread-safety: none (lazy caches); one Fabric per simulation.
// Ignores: per-packet adaptive routing (a flow keeps its path), congestion-aware path choice.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/fluid.hpp"
#include "sim/units.hpp"
#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace mgsim::topologies {

class Fabric {
 public:
  struct Route {
    std::vector<sim::ResourceId> resources;
    std::vector<int> arcs;  // of routing(), one per resource
    sim::Duration latency;
    bool single = false;  // the pair's only cheapest path (no equal-cost choice was made)
  };

  // Adds the fabric's resources to `net`. `topo` may be destroyed afterwards.
  // REQUIRES: links_resolved(topo) (a Machine resolves its GPUs' NVLink rates).
  Fabric(const Topology& topo, sim::FluidNetwork& net);

  int gpu_count() const { return routing_.gpu_count(); }
  // REQUIRES: src != dst, both in [0, gpu_count()).
  const Route& route(int src_gpu, int dst_gpu, std::uint64_t flow_hint = 0) const;
  // route(src_gpu, dst_gpu, any hint).latency, without building or caching the route (a flag's
  // write or poll needs only its latency: an all-to-all of flags on N GPUs would cache N^2
  // routes). REQUIRES: as route.
  sim::Duration latency(int src_gpu, int dst_gpu) const;
  // Sum of the bandwidths of the GPU's outgoing trunks (NVLink plus PCIe where present).
  sim::Bandwidth injection_bandwidth(int gpu) const;
  // The resources of the GPU's own ports: one per trunk leaving it (egress) or entering it
  // (ingress), e.g. its NVLink trunk and its PCIe link; for per-port utilisation and bounds.
  std::vector<sim::ResourceId> egress(int gpu) const;
  std::vector<sim::ResourceId> ingress(int gpu) const;
  const std::string& gpu_name(int gpu) const { return gpu_names_[gpu]; }
  int node_of(int gpu) const { return gpu_nodes_[gpu]; }
  // The GPU's NVLink domain: GPUs joined by NVLink links alone (through NVSwitches) share one
  // (an HGX board, an NVL72 rack); the number is arbitrary, only equality means something.
  int nvlink_domain(int gpu) const { return gpu_domains_[gpu]; }

  // The fluid resource of each arc of routing() (index = arc index).
  sim::ResourceId resource_of_arc(int arc) const { return arc_resources_[arc]; }
  const RoutingGraph& routing() const { return routing_; }

  static constexpr std::uint64_t kHintClasses = 64;

 private:
  RoutingGraph routing_;
  std::vector<sim::ResourceId> arc_resources_;
  std::vector<std::string> gpu_names_;
  std::vector<int> gpu_nodes_;
  std::vector<int> gpu_domains_;
  // Key: (src * gpus + dst) * (kHintClasses + 1) + class; class kHintClasses marks a pair
  // with a single cheapest path, shared by every hint.
  mutable std::unordered_map<std::uint64_t, Route> routes_;
};

}  // namespace mgsim::topologies
