#include "traces/kernel/walker.hpp"

#include <algorithm>

#include "traces/kernel/launch.hpp"
#include "traces/kernel/ops.hpp"
#include "traces/kernel/trace.hpp"

namespace mgsim::traces::kernel {

void advance(Runner& x, RoleRun& r) {
  const std::int64_t before = r.walker.ops();
  while (const KernelOp* op = r.walker.next(r.env, x.budget)) {
    r.current = op;
    r.began = x.engine.now();
    r.traced_bytes = -1;
    r.traced_peer = -1;
    if (r.agent) check_data(x, r, *op);
    if (!start_op(x, r, *op)) {
      x.stats.ops += r.walker.ops() - before;
      return;
    }
  }
  x.stats.ops += r.walker.ops() - before;
  r.done = true;
  r.current = nullptr;
  sim::Time& end = r.cta->launch->roles[static_cast<std::size_t>(r.role)].second;
  end = std::max(end, x.engine.now());
  if (r.agent) x.check->role_end(*r.agent);
  role_done(x, *r.cta);
}

void op_done(Runner& x, RoleRun& r) {
  if (r.in_flight > Duration::zero()) {
    r.acked = std::max(r.acked, x.engine.now() + r.in_flight);
    LaunchRun& launch = *r.cta->launch;
    launch.tail = std::max(launch.tail, r.acked);
    r.in_flight = Duration::zero();
  }
  if (r.comm_warp) {
    x.gpu(x.rank_of(r)).add_comm_warp(r.cta->sm, *r.comm_warp, -1);
    r.comm_warp.reset();
  }
  if (x.engine.trace() != nullptr) trace_op(x, r);
  advance(x, r);
}

void resume_after(Runner& x, RoleRun& r, Duration after) {
  r.waiting.clear();
  x.engine.schedule_in(after, [&x, &r] { op_done(x, r); });
}

}  // namespace mgsim::traces::kernel
