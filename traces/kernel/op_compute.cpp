// compute {flops, dtype} | {sfu} | {int32} | {cycles}: flops on the SM's pipe of that dtype, as
// one flow (shared max-min fairly, like mma: fp32 on the FP32 pipe of flops_per_cycle_fp32 x
// clock, a tensor dtype in bf16-equivalent flops of the native MMA on the tensor pipe, `instr:
// mma_sync` at mma.sync's rate); special-function ops (exp2,
// rcp, rsqrt, sin: one per thread per instruction) on the SM's SFU at sfu_ops_per_cycle x clock;
// 32-bit integer multiply-adds on its INT32 pipe at int32_ops_per_cycle x clock; or a fixed delay
// of `cycles` at the SM clock. Validated on validate/data/h200-single/sm_pipes.csv.
#include <fmt/format.h>

#include "traces/kernel/ops.hpp"
#include "traces/kernel/phases.hpp"

namespace mgsim::traces::kernel {

bool start_compute(Runner& x, RoleRun& r, const ComputeOp& op) {
  begin_phases(r);
  if (op.cycles) {
    const std::int64_t cycles = op.cycles->eval(r.env);
    if (cycles < 0) op.cycles->fail(fmt::format("cycles cannot be negative, got {}", cycles));
    add_phase(r, sim::cycles_to_duration(cycles, x.gpu(x.rank_of(r)).sm_clock()));
    run_phases(x, r);
    return false;
  }
  models::Gpu& gpu = x.gpu(x.rank_of(r));
  add_phase(r, Duration::zero());
  if (op.sfu || op.int32) {  // operations on the SFU or the INT32 pipe (not flops)
    const auto pipe = op.sfu ? models::Gpu::Pipe::sfu : models::Gpu::Pipe::int32;
    const std::int64_t ops = (op.sfu ? *op.sfu : *op.int32)
                                 .eval_positive(r.env, op.sfu ? "compute sfu" : "compute int32");
    add_flow(r, gpu.pipe(r.cta->sm, pipe), Bytes(ops), std::nullopt);
    run_phases(x, r);
    return false;
  }
  const std::int64_t flops = op.flops->eval_positive(r.env, "compute flops");
  x.stats.flops += flops;
  add_flow(r, gpu.pipe(r.cta->sm, op.dtype), gpu.pipe_amount(flops, op.dtype, op.instr),
           std::nullopt);
  run_phases(x, r);
  return false;
}

}  // namespace mgsim::traces::kernel
