// arrive {barrier}: one arrival at a CTA-local barrier; the role goes on at once. Every sync it
// completes (op_sync.cpp) releases its role after mbarrier_cycles at the SM clock.
#include "traces/kernel/ops.hpp"
#include "traces/kernel/walker.hpp"

namespace mgsim::traces::kernel {

bool start_arrive(Runner& x, RoleRun& r, const ArriveOp& op) {
  const Duration release =
      sim::cycles_to_duration(x.spec.sm.mbarrier_cycles, x.gpu(x.rank_of(r)).sm_clock());
  const DataCheck::SyncKey key = barrier_key(r, op.barrier);
  if (r.agent) x.check->release(*r.agent, key);
  r.cta->barriers.arrive(op.barrier, [&x, release, &key](RoleRun& waiter) {
    if (waiter.agent) x.check->acquire(*waiter.agent, key);
    resume_after(x, waiter, release);
  });
  return true;
}

}  // namespace mgsim::traces::kernel
