// mainloop {m, n, k, k_tile, stages, dtype, peer?}: a pipelined TMA load + MMA K-loop, simulated
// without one event per k-step.
//
// Model: steps = ceil(k / k_tile), a stage is (m + n) x k_tile elements; operands come through
// L2 (tiles are re-read by many CTAs; the first HBM touch is ignored), from the peer's L2 over
// NVLink (the tma peer path) with `peer`. With `multicast: {a, b}` (within the kernel's
// cluster) one L2 read of an A tile lands in a CTAs and of a B tile in b: this CTA's L2 (and
// route) bytes are (m / a + n / b) x k_tile per stage, its window the same share of whole
// tiles. L = L2 hit latency (+ route latency). Phases:
//   1. fill: after L + one TMA issue (models::TmaSpec::issue_time), one stage's load;
//   2. with steps == 1: the one step's MMA. Otherwise, with stages >= 2, the remaining loads and
//      the MMA of all but the last step as two concurrent flows, then the last step's MMA; with
//      stages == 1 loads and MMAs do not overlap: the remaining loads, then the MMAs of all but
//      the last step, then the last step's.
// Time ~ fill + max(load, mma) + last MMA. The load flows' cap is
// min(stages x stage, TmaSpec::max_bytes_in_flight()) / L; MMAs run on the SM's pipe as in mma.
// The loop's own producer warp takes no share of the SM's math pipes here: its cost is inside
// the GEMM rate the tensor clock is fitted to (a separate communication role's is charged,
// models::Gpu::add_comm_warp).
// With `operands`, the MMAs' reads of their operands from shared memory hold the pipe too, as
// in mma (traces/kernel/op_mma.cpp).
// Ignores: HBM traffic of the operands, L2 bandwidth beyond the L2 resource's share.
#include <algorithm>

#include <fmt/format.h>

#include "traces/kernel/ops.hpp"
#include "traces/kernel/phases.hpp"

namespace mgsim::traces::kernel {

bool start_mainloop(Runner& x, RoleRun& r, const MainloopOp& op) {
  const models::HardwareSpec& spec = x.spec;
  const int rank = x.rank_of(r);
  const std::int64_t m = op.m.eval_positive(r.env, "m");
  const std::int64_t n = op.n.eval_positive(r.env, "n");
  const std::int64_t k = op.k.eval_positive(r.env, "k");
  const std::int64_t k_tile = std::min(k, op.k_tile.eval_positive(r.env, "k_tile"));
  const std::int64_t stages = op.stages.eval_positive(r.env, "stages");
  const std::int64_t esize = models::element_bytes(op.dtype);
  const std::int64_t steps = (k + k_tile - 1) / k_tile;
  // With multicast, the L2 serves each A tile once for multicast_a CTAs and each B tile once
  // for multicast_b: this CTA's share of the reads is m / a + n / b rows per k (rounded up).
  const std::int64_t mc_a = multicast_factor(r, op.multicast_a, "multicast a");
  const std::int64_t mc_b = multicast_factor(r, op.multicast_b, "multicast b");
  if (r.cta->launch->cluster % (mc_a * mc_b) != 0)
    op.multicast_b->fail(
        fmt::format("multicast a x b = {} does not divide the kernel's cluster "
                    "of {} CTAs",
                    mc_a * mc_b, r.cta->launch->cluster));
  const std::int64_t rows =
      (mul(op.m, m, mc_b) + mul(op.n, n, mc_a) + mc_a * mc_b - 1) / (mc_a * mc_b);  // m / a + n / b
  const std::int64_t stage_bytes = mul(op.k_tile, mul(op.k_tile, rows, k_tile), esize);
  const std::int64_t total_bytes = mul(op.k, mul(op.k, rows, k), esize);
  const std::int64_t mn2 = mul(op.n, 2 * m, n);
  const std::int64_t flops = mul(op.k, mn2, k);
  x.stats.flops += flops;

  const int peer = op.peer ? x.check_rank(*op.peer, r.env) : rank;
  r.traced_bytes = mul(op.k, mul(op.k, m + n, k), esize);  // the operands it loads
  if (peer != rank) r.traced_peer = peer;
  const sim::ResourceId l2 = x.gpu(peer).l2();
  std::vector<sim::ResourceId>& route = r.scratch;  // after the L2: the peer path, if any
  route.clear();
  Duration latency = spec.l2.hit_latency;
  if (peer != rank) latency += x.peer_path(peer, rank, models::PeerPath::tma, route);
  // The pipeline's window holds whole tiles; of them this CTA's reads are the multicast share.
  const std::int64_t window = std::min(mul(op.stages, stages, stage_bytes),
                                       spec.tma.max_bytes_in_flight() * rows / (m + n));
  const Bandwidth cap = window_rate(window, latency);
  const Duration fill = latency + spec.tma.issue_time(x.gpu(rank).sm_clock());
  models::Gpu& gpu = x.gpu(rank);
  const sim::ResourceId pipe = gpu.pipe(r.cta->sm, op.dtype);
  const std::int64_t last_k = k - (steps - 1) * k_tile;
  const Bytes last_mma = mma_amount(gpu, r, op, m, n, last_k);
  const Bytes rest_mma = mma_amount(gpu, r, op, m, n, k - last_k);
  begin_phases(r);
  add_phase(r, fill);
  add_flow(r, l2, route, Bytes(stage_bytes), cap);
  if (steps > 1) {
    add_phase(r, Duration::zero());
    add_flow(r, l2, route, Bytes(total_bytes - stage_bytes), cap);
    if (stages < 2) add_phase(r, Duration::zero());
    add_flow(r, pipe, rest_mma, std::nullopt);
  }
  add_phase(r, Duration::zero());
  add_flow(r, pipe, last_mma, std::nullopt);
  run_phases(x, r);
  return false;
}

}  // namespace mgsim::traces::kernel
