// signal {flag, index, rank, value | add, atomic, order, scope}: sets (or adds to) a flag in the
// memory of `rank` (models/sync.hpp states the costs).
//   - A release signal first holds the role for the fence of its scope (sync.fence_*); the store
//     is posted: the role goes on at once after it, and its kernel ends no earlier than it lands.
//   - The write lands on the owner one route latency later (at once when local), sync.atomic
//     later when atomic; atomics to one flag are applied one per sync.atomic_interval at the
//     owner, in arrival order.
//   - A waiter the write releases sees it: on the owner's GPU, sync.flag_latency later when the
//     writer was on that GPU too (a remote write's route latency includes its detection); from
//     another GPU (polling over the fabric), one route latency + sync.remote_poll later.
#include <algorithm>

#include "traces/kernel/ops.hpp"
#include "traces/kernel/walker.hpp"

namespace mgsim::traces::kernel {
namespace {

// The flag's key in the data check.
DataCheck::SyncKey check_key(const FlagKey& key) {
  return {DataCheck::flag, std::get<0>(key), std::get<1>(key), std::get<2>(key)};
}

// `snapshot`: the writer's clock in the data check, when it is checked.
void set_flag(Runner& x, const FlagKey& key, int writer, std::int64_t value, bool add,
              std::optional<std::uint32_t> snapshot) {
  if (snapshot) x.check->land(*snapshot, check_key(key), add ? x.flags.value(key) + value : value);
  x.flags.set(key, value, add, [&x, &key, writer](RoleRun& waiter) {
    if (waiter.agent)
      x.check->acquire_flag(
          *waiter.agent, check_key(key), waiter.waiting.value,
          [&x, &key] { return x.flags.text(key); }, waiter.current->where);
    const int rank = x.rank_of(waiter);
    const int owner = std::get<0>(key);
    const models::SyncSpec& sync = x.spec.sync;
    Duration seen = Duration::zero();
    if (owner != rank) {
      seen = x.fabric.latency(owner, rank) + sync.remote_poll;
    } else if (writer == owner) {
      seen = sync.flag_latency;
    }
    resume_after(x, waiter, seen);
  });
}

void store(Runner& x, LaunchRun& launch, int writer, const FlagKey& key, std::int64_t value,
           bool add, bool atomic, std::optional<std::uint32_t> snapshot) {
  const int target = std::get<0>(key);
  const models::SyncSpec& sync = x.spec.sync;
  Duration lands = Duration::zero();
  if (target != writer) {
    ++x.hint;  // as for a routed transfer: the later transfers' equal-cost choices follow it
    lands = x.fabric.latency(writer, target);
  }
  if (atomic) {
    lands += sync.atomic;
    // One address's atomic unit applies them one at a time.
    sim::Time& free = x.atomic_free[key];
    const sim::Time at = std::max(x.engine.now() + lands, free);
    free = at + sync.atomic_interval;
    lands = at - x.engine.now();
  }
  // The kernel ends no earlier than its writes land.
  launch.tail = std::max(launch.tail, x.engine.now() + lands);
  if (lands == Duration::zero()) {
    set_flag(x, key, writer, value, add, snapshot);
    return;
  }
  x.engine.schedule_in(lands, [&x, key, writer, value, add, snapshot] {
    set_flag(x, key, writer, value, add, snapshot);
  });
}

// How far apart an SM's rounds of fences of `scope` start (none within the SM: cta scope).
Duration round_gap(const models::SyncSpec& sync, MemoryScope scope) {
  switch (scope) {
    case MemoryScope::cta:
      return Duration::zero();
    case MemoryScope::gpu:
      return sync.fence_gpu_round;
    case MemoryScope::system:
      break;
  }
  return sync.fence_system_round;
}

// How much longer a fence of `scope` by CTA `cta` waits for the L2 partition that owns the
// fenced data (none at cta scope, which stays in the SM).
Duration far_wait(const models::HardwareSpec& spec, MemoryScope scope, std::int64_t cta) {
  const bool far =
      scope != MemoryScope::cta && models::SyncSpec::far_partition(cta, spec.l2.partitions);
  return far ? spec.sync.fence_far : Duration::zero();
}

// What a fence of `scope` by `warps` warps of CTA `cta`, in step, costs its role
// (models/sync.hpp).
Duration fence_cost(const models::HardwareSpec& spec, MemoryScope scope, std::int64_t warps,
                    std::int64_t cta) {
  const models::SyncSpec& sync = spec.sync;
  const Duration round = round_gap(sync, scope);
  const Duration far = far_wait(spec, scope, cta);
  switch (scope) {
    case MemoryScope::cta:
      return sync.fence(sync.fence_cta, round, sync.fence_cta_per_warp, warps);
    case MemoryScope::gpu:
      return sync.fence(sync.fence_gpu, round, sync.fence_gpu_per_warp, warps) + far;
    case MemoryScope::system:
      break;
  }
  return sync.fence(sync.fence_system, round, sync.fence_system_per_warp, warps) + far;
}

// A system-scope fence of `cost` by role `r`: it waits for the SM's writes to be acknowledged,
// then does the system scope's own part. `cost` holds a local write's acknowledgement (what a
// gpu fence waits for: fence_gpu) and that part (fence_system - fence_gpu); the writes the role
// posted to a peer (ld/st stores, op_load_store.cpp) are acknowledged at r.acked instead.
Duration wait_acked(const Runner& x, const RoleRun& r, MemoryScope scope, Duration cost) {
  const sim::Time now = x.engine.now();
  if (scope != MemoryScope::system || r.acked <= now) return cost;
  const models::SyncSpec& sync = x.spec.sync;
  return std::max(cost, r.acked - now + (sync.fence_system - sync.fence_gpu));
}

}  // namespace

bool start_signal(Runner& x, RoleRun& r, const SignalOp& op) {
  const int rank = x.rank_of(r);
  const int target = op.rank ? x.check_rank(*op.rank, r.env) : rank;
  const FlagKey key{target, op.flag, op.index.eval(r.env)};
  const std::int64_t value = op.value.eval(r.env);
  LaunchRun& launch = *r.cta->launch;
  // What the writer knew when it signalled travels with the signal.
  const std::optional<std::uint32_t> snapshot =
      r.agent ? std::optional(x.check->snapshot(*r.agent)) : std::nullopt;
  if (!op.release) {
    store(x, launch, rank, key, value, op.add, op.atomic, snapshot);
    return true;
  }
  // The fence, then the store; the role goes on when the store is posted.
  const bool add = op.add, atomic = op.atomic;
  const Duration fence =
      wait_acked(x, r, *op.release, fence_cost(x.spec, *op.release, 1, r.cta->index));
  x.engine.schedule_in(fence,  // one thread's
                       [&x, &r, &launch, rank, key, value, add, atomic, snapshot] {
                         store(x, launch, rank, key, value, add, atomic, snapshot);
                         resume_after(x, r, Duration::zero());
                       });
  return false;
}

// fence {scope, threads, in_step}: holds the role for the fence's cost by that many threads'
// warps; warps out of step (in_step: 0) take turns at the SM's rounds after their first fence.
bool start_fence(Runner& x, RoleRun& r, const FenceOp& op) {
  const std::int64_t threads =
      op.threads ? op.threads->eval_positive(r.env, "fence threads") : r.cta->launch->threads;
  constexpr std::int64_t kWarp = 32;
  const std::int64_t warps = (threads + kWarp - 1) / kWarp;
  Duration cost = fence_cost(x.spec, op.scope, warps, r.cta->index);
  const bool out_of_step = op.in_step && op.in_step->eval(r.env) == 0;
  // A round ends when its fences are acknowledged, so a far CTA's rounds are far_wait apart more.
  if (out_of_step && warps > 1 && r.fence_end)
    cost = models::SyncSpec::out_of_step(
        cost, round_gap(x.spec.sync, op.scope) + far_wait(x.spec, op.scope, r.cta->index),
        x.engine.now() - *r.fence_end);
  cost = wait_acked(x, r, op.scope, cost);
  r.fence_end = x.engine.now() + cost;
  resume_after(x, r, cost);
  return false;
}

}  // namespace mgsim::traces::kernel
