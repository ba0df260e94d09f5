// load / store / reduce via multimem: NVSwitch multicast and in-network reduction.
//
// Model (needs every rank in one NVLink domain, every route to cross a switch, and
// spec.nvswitch.multicast for a store, spec.nvswitch.reduction for a reduce): fixed = route latency
// + switch latency, then one flow over every resource below, capped at the op's bytes in flight
// (ldst_window) / that latency (the switch replicates and reduces in lockstep, so every member's
// share moves at one rate). A multimem op addresses the multicast object, whose members are every
// GPU of the world, the issuing one included: the switch reads (ld_reduce) or writes (st) each
// member's memory over that member's NVLink, its own too (NCCL's NVLS search charges each GPU's
// NVLink (heads + 1) x the channel speed for this reason: src/graph/search.cc,
// ncclTopoSearchTryNvls). A multimem instruction is an ld/st, so each GPU's share also crosses its
// ld/st peer ports (models::peer_bandwidth(spec, ldst): ldst.nvlink_efficiency of the copy engine's
// rate):
//   store X:  X from r's SM over its uplink and egress port, and into every member's downlink,
//             ingress port and HBM (multicast; r's own copy included);
//   reduce X (ld_reduce): X out of every member's HBM, egress port and uplink (each
//             contributor's share once, r's own included), and the sum over r's downlink and
//             ingress port once; capped also at nvswitch.reduction_bandwidth.
// A GPU's uplink into the switch is the first hop of its routes, its downlink the last hop of
// routes into it.
// The op's warp takes ldst.warp_share_* of its SM's math pipes while it runs.
#include <span>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "traces/kernel/ops.hpp"
#include "traces/kernel/phases.hpp"

namespace mgsim::traces::kernel {

namespace {

// The path and latency of rank's multimem stores (reduce false) or reduces (true), built on the
// first such op (`op` names it in an error) and kept in the runner.
const Runner::MultimemRoute& multimem_route(Runner& x, int rank, bool reduce, const KernelOp& op,
                                            const char* kind) {
  const auto [it, fresh] = x.multimem_routes.try_emplace({rank, reduce});
  if (!fresh) return it->second;
  const models::HardwareSpec& spec = x.spec;
  if ((reduce && !spec.nvswitch.reduction) || (!reduce && !spec.nvswitch.multicast))
    throw sim::ConfigError(op.where,
                           fmt::format("multimem {} needs NVSwitch {}, which {} lacks", kind,
                                       reduce ? "reduction" : "multicast", spec.name));
  if (x.world < 2)
    throw sim::ConfigError(op.where, "multimem needs a multicast group of at least 2 ranks");
  // The multicast group is every rank of the world, which one NVSwitch fabric must join:
  // NVSwitch cannot multicast or reduce across InfiniBand or any other network.
  for (int q = 1; q < x.world; ++q)
    if (x.fabric.nvlink_domain(q) != x.fabric.nvlink_domain(0))
      throw sim::ConfigError(op.where,
                             fmt::format("multimem needs every rank in one NVLink domain, but "
                                         "ranks 0 and {} are in different ones (joined by a "
                                         "network, which cannot multicast or reduce)",
                                         q));
  // Without a switch a route is a single direct link.
  auto route_of = [&](int s, int d) {
    const PeerRoute route = x.fabric.route(s, d, 0);
    if (route.resources.size() < 2)
      throw sim::ConfigError(op.where,
                             fmt::format("multimem needs an NVSwitch between the GPUs, but rank "
                                         "{} reaches rank {} over a direct link",
                                         s, d));
    return route;
  };
  const PeerRoute mine = route_of(rank, (rank + 1) % x.world);
  Runner::MultimemRoute& out = it->second;
  out.latency = mine.latency + spec.nvswitch.latency;
  // One flow over every resource the op crosses: the switch replicates (st) and reduces
  // (ld_reduce) in lockstep, so every member's share moves at the op's one rate.
  std::vector<sim::ResourceId>& path = out.path;
  // GPU q's NVLink into the switch (out) or from it (in), then its ld/st port that way.
  const auto nvlink = [&](int q, models::PortDirection dir) {
    const int next = (q + 1) % x.world;
    path.push_back(dir == models::PortDirection::out ? route_of(q, next).resources.front()
                                                     : route_of(next, q).resources.back());
    if (const auto port = x.gpu(q).peer_port(models::PeerPath::ldst, dir)) path.push_back(*port);
  };
  const auto way = reduce ? models::PortDirection::out : models::PortDirection::in;
  for (int q = 0; q < x.world; ++q) {
    nvlink(q, way);
    path.push_back(x.gpu(q).hbm());
  }
  nvlink(rank, reduce ? models::PortDirection::in : models::PortDirection::out);
  return out;
}

// A store (multicast) or a reduce (in-network reduction) of `transfer`, the transfer of `op`
// whose kind is `kind`.
bool start(Runner& x, RoleRun& r, const KernelOp& op, const TransferOp& transfer, bool reduce,
           const char* kind, std::string_view bytes_what) {
  const int rank = x.rank_of(r);
  const std::int64_t bytes = eval_transfer_bytes(transfer.bytes, r.env, bytes_what);
  r.traced_bytes = bytes;
  const Runner::MultimemRoute& route = multimem_route(x, rank, reduce, op, kind);
  const Bandwidth cap = window_rate(ldst_window(r, transfer), route.latency);
  if (transfer.own_warp)
    hold_comm_warp(x, r, models::Gpu::CommWarp::ldst);  // multimem is an ld/st instruction
  begin_phases(r);
  add_phase(r, route.latency);
  add_shared_flow(r, route.path, Bytes(bytes),
                  reduce ? std::min(cap, x.spec.nvswitch.reduction_bandwidth) : cap);
  run_phases(x, r);
  return false;
}

}  // namespace

bool start_multimem(Runner& x, RoleRun& r, const KernelOp& op, const StoreOp& store) {
  return start(x, r, op, store, false, StoreOp::kName, "store bytes");
}

bool start_multimem(Runner& x, RoleRun& r, const KernelOp& op, const ReduceOp& reduce) {
  return start(x, r, op, reduce, true, ReduceOp::kName, "reduce bytes");
}

}  // namespace mgsim::traces::kernel
