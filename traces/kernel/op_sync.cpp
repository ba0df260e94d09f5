// sync {barrier, count}: the n-th sync of a role on a barrier waits until its CTA has n x count
// arrivals there (op_arrive.cpp); it costs mbarrier_cycles only when it had to wait.
#include "traces/kernel/ops.hpp"

namespace mgsim::traces::kernel {

bool start_sync(Runner& x, RoleRun& r, const SyncOp& op) {
  const std::int64_t count = op.count.eval_positive(r.env, "sync count");
  const std::int64_t need = mul(op.count, ++r.syncs[op.barrier], count);
  const KernelDef& k = *r.cta->launch->def;
  if (!r.cta->barriers.sync(op.barrier, k.barrier_names[static_cast<std::size_t>(op.barrier)], need,
                            r, r.waiting))
    return false;
  if (r.agent) x.check->acquire(*r.agent, barrier_key(r, op.barrier));
  return true;
}

}  // namespace mgsim::traces::kernel
