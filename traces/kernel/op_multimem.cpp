// load / store / reduce via multimem: NVSwitch multicast and in-network reduction.
//
// Model (needs every route to cross a switch, and spec.nvswitch.multicast for a store,
// spec.nvswitch.reduction for a reduce): fixed = route latency + switch latency, then one phase
// of concurrent flows, each capped at the op's bytes in flight (ldst_window) / that latency:
//   store X: X over r's uplink, X over every other rank's downlink (multicast);
//   reduce X (ld_reduce): X over every other rank's uplink (each contributor's egress once), X
//            over r's downlink (the result's ingress once), that one also capped at
//            nvswitch.reduction_bandwidth.
// A GPU's own contribution and copy stay in its memory. A GPU's uplink into the switch is the
// first hop of its routes, its downlink the last hop of routes into it.
// The op's warp takes ldst.warp_share_* of its SM's math pipes while it runs.
// Ignores: the HBM traffic of multimem ops.
#include <string_view>

#include <fmt/format.h>

#include "traces/kernel/ops.hpp"
#include "traces/kernel/phases.hpp"

namespace mgsim::traces::kernel {

namespace {

// A store (multicast) or a reduce (in-network reduction) of `transfer`, the transfer of `op`
// whose kind is `kind`.
bool start(Runner& x, RoleRun& r, const KernelOp& op, const TransferOp& transfer, bool reduce,
           const char* kind, std::string_view bytes_what) {
  const models::HardwareSpec& spec = x.spec;
  const int rank = x.rank_of(r);
  const std::int64_t bytes = eval_transfer_bytes(transfer.bytes, r.env, bytes_what);
  r.traced_bytes = bytes;
  if ((reduce && !spec.nvswitch.reduction) || (!reduce && !spec.nvswitch.multicast))
    throw sim::ConfigError(op.where,
                           fmt::format("multimem {} needs NVSwitch {}, which {} lacks", kind,
                                       reduce ? "reduction" : "multicast", spec.name));
  if (x.world < 2)
    throw sim::ConfigError(op.where, "multimem needs a multicast group of at least 2 ranks");
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
  const int other = (rank + 1) % x.world;
  const PeerRoute mine = route_of(rank, other);
  const Duration latency = mine.latency + spec.nvswitch.latency;
  const Bandwidth cap = window_rate(ldst_window(r, transfer), latency);
  if (transfer.own_warp)
    hold_comm_warp(x, r, models::Gpu::CommWarp::ldst);  // multimem is an ld/st instruction
  begin_phases(r);
  add_phase(r, latency);
  for (int q = 0; q < x.world; ++q) {
    if (q == rank) continue;
    if (reduce) {
      add_flow(r, route_of(q, rank).resources.front(), Bytes(bytes), cap);
    } else {
      add_flow(r, route_of(rank, q).resources.back(), Bytes(bytes), cap);
    }
  }
  if (reduce) {
    add_flow(r, route_of(other, rank).resources.back(), Bytes(bytes),
             std::min(cap, spec.nvswitch.reduction_bandwidth));
  } else {
    add_flow(r, mine.resources.front(), Bytes(bytes), cap);
  }
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
