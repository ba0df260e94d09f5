// mma {m, n, k, dtype, instr}: 2 x m x n x k flops on the SM's tensor pipe (models::Gpu::pipe),
// as one flow, so co-resident roles share the pipe max-min fairly. Another tensor dtype than bf16,
// or mma.sync instead of the native instruction, counts bf16-equivalent flops of the native
// instruction (flops x its bf16 rate / the rate of dtype as instr: models::Gpu::pipe_amount), so
// it holds the pipe longer; fp32 goes to the SM's FP32 pipe.
// Ignores: instruction issue inside a role (the pipe's rate bounds it), operand delivery (the
// op's operands are taken as resident: a mainloop models their loads).
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
  add_flow(r, gpu.pipe(r.cta->sm, op.dtype), gpu.pipe_amount(flops, op.dtype, op.instr),
           std::nullopt);
  run_phases(x, r);
  return false;
}

}  // namespace mgsim::traces::kernel
