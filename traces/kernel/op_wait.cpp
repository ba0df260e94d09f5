// wait {flag, index, value, rank}: blocks the role until the flag on `rank` is >= value (the
// flags table, sync_table.hpp); released by a signal (op_signal.cpp says when it is seen).
#include "traces/kernel/ops.hpp"

namespace mgsim::traces::kernel {

bool start_wait(Runner& x, RoleRun& r, const FlagWaitOp& op) {
  const int rank = x.rank_of(r);
  const int owner = op.rank ? x.check_rank(*op.rank, r.env) : rank;
  const FlagKey key{owner, op.flag, op.index.eval(r.env)};
  const std::int64_t threshold = op.value.eval(r.env);
  if (!x.flags.wait(key, threshold, r, r.waiting)) return false;
  if (r.agent)
    x.check->acquire_flag(
        *r.agent, {DataCheck::flag, owner, op.flag, std::get<2>(key)}, threshold,
        [&x, &key] { return x.flags.text(key); }, r.current->where);
  return true;
}

}  // namespace mgsim::traces::kernel
