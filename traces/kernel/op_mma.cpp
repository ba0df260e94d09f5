// mma {m, n, k, dtype, instr}: 2 x m x n x k flops on the SM's tensor pipe (models::Gpu::pipe),
// as one flow, so co-resident roles share the pipe max-min fairly. Another tensor dtype than bf16,
// or mma.sync instead of the native instruction, counts bf16-equivalent flops of the native
// instruction (flops x its bf16 rate / the rate of dtype as instr: models::Gpu::pipe_amount), so
// it holds the pipe longer; fp32 goes to the SM's FP32 pipe.
// With `operands`, the reads of A and/or B from shared memory (ldmatrix, wgmma's descriptors)
// hold the pipe too: a warp (warp group) computing a tile_m x tile_n tile reads, per k, tile_m A
// and tile_n B elements, so the op reads k x m x n x element size x (a / tile_n + b / tile_m)
// bytes; that time and the pipe's combine as models::Gpu::mma_amount says.
// Ignores: instruction issue inside a role (the pipe's rate bounds it), operand delivery beyond
// shared memory (the operands are taken as resident there: a mainloop or load models their
// loads), other shared-memory traffic of the SM (TMA writes into it, ld/st staging).
#include <limits>

#include "traces/kernel/ops.hpp"
#include "traces/kernel/phases.hpp"

namespace mgsim::traces::kernel {

bool start_mma(Runner& x, RoleRun& r, const MmaOp& op) {
  const std::int64_t m = op.m.eval_positive(r.env, "m");
  const std::int64_t n = op.n.eval_positive(r.env, "n");
  const std::int64_t k = op.k.eval_positive(r.env, "k");
  const std::int64_t flops = mul(op.k, mul(op.n, 2 * m, n), k);
  x.stats.flops += flops;
  models::Gpu& gpu = x.gpu(x.rank_of(r));
  begin_phases(r);
  add_phase(r, Duration::zero());
  add_flow(r, gpu.pipe(r.cta->sm, op.dtype), mma_amount(gpu, r, op, m, n, k), std::nullopt);
  run_phases(x, r);
  return false;
}

Bytes mma_amount(const models::Gpu& gpu, const RoleRun& r, const MmaShape& op, std::int64_t m,
                 std::int64_t n, std::int64_t k) {
  const std::int64_t flops = 2 * m * n * k;  // the caller checked the product
  if (!op.operands) return gpu.pipe_amount(flops, op.dtype, op.instr);
  const SmemOperands& o = *op.operands;
  const std::int64_t tm = o.tile_m.eval_positive(r.env, "tile_m");
  const std::int64_t tn = o.tile_n.eval_positive(r.env, "tile_n");
  // k m n e (a / tn + b / tm) = k m n e (a tm + b tn) / (tm tn), rounded up.
  const sim::Int128 num = static_cast<sim::Int128>(k) * m * n * models::element_bytes(op.dtype) *
                          ((o.a ? tm : 0) + (o.b ? tn : 0));
  const sim::Int128 den = static_cast<sim::Int128>(tm) * tn;
  const sim::Int128 bytes = (num + den - 1) / den;
  if (bytes > std::numeric_limits<std::int64_t>::max())
    o.tile_m.fail("the operands' shared-memory reads overflow 64-bit bytes");
  return gpu.mma_amount(flops, op.dtype, op.instr, static_cast<std::int64_t>(bytes));
}

}  // namespace mgsim::traces::kernel
