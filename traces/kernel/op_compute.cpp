// compute {flops, dtype} | {cycles}: flops on the SM's pipe of that dtype, as one flow (shared
// max-min fairly, like mma: fp32 on the FP32 pipe of flops_per_cycle_fp32 x clock, a tensor
// dtype in bf16-equivalent flops on the tensor pipe), or a fixed delay of `cycles` at the SM
// clock.
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
  const std::int64_t flops = op.flops->eval_positive(r.env, "compute flops");
  x.stats.flops += flops;
  models::Gpu& gpu = x.gpu(x.rank_of(r));
  add_phase(r, Duration::zero());
  add_flow(r, gpu.pipe(r.cta->sm, op.dtype), gpu.pipe_amount(flops, op.dtype), std::nullopt);
  run_phases(x, r);
  return false;
}

}  // namespace mgsim::traces::kernel
