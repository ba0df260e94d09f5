// signal {flag, index, rank, value | add}: sets (or adds to) a flag in the memory of `rank`.
// The write lands on the target one route latency later (at once when local); the role goes on
// at once. A waiter the write releases sees it one route latency later when the flag is remote
// to it (it polls over the fabric), at once when local.
#include "traces/kernel/ops.hpp"
#include "traces/kernel/walker.hpp"

namespace mgsim::traces::kernel {
namespace {

void set_flag(Runner& x, const FlagKey& key, std::int64_t value, bool add) {
  x.flags.set(key, value, add, [&x, &key](RoleRun& waiter) {
    const int rank = x.rank_of(waiter);
    const int owner = std::get<0>(key);
    resume_after(x, waiter,
                 owner == rank ? Duration::zero() : x.fabric.route(owner, rank, 0).latency);
  });
}

}  // namespace

bool start_signal(Runner& x, RoleRun& r, const SignalOp& op) {
  const int rank = x.rank_of(r);
  const int target = op.rank ? x.check_rank(*op.rank, r.env) : rank;
  const FlagKey key{target, op.flag, op.index.eval(r.env)};
  const std::int64_t value = op.value.eval(r.env);
  const bool add = op.add;
  if (target == rank) {
    set_flag(x, key, value, add);
    return true;
  }
  const Duration latency = x.fabric.route(rank, target, x.hint++).latency;
  x.engine.schedule_in(latency, [&x, key, value, add] { set_flag(x, key, value, add); });
  return true;
}

}  // namespace mgsim::traces::kernel
