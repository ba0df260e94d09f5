#include "traces/kernel/walker.hpp"

#include "traces/kernel/launch.hpp"
#include "traces/kernel/ops.hpp"
#include "traces/kernel/trace.hpp"

namespace mgsim::traces::kernel {
namespace {

// Enters a `for` body when its range is not empty.
void enter_loop(RoleRun& r, const KernelOp& op) {
  const KernelFor& loop = op.loop.front();
  const std::int64_t from = loop.from.eval(r.env);
  const std::int64_t to = loop.to.eval(r.env);
  const std::int64_t step = loop.step.eval_positive(r.env, "a loop step");
  if (from < to) {
    r.env[static_cast<std::size_t>(loop.slot)] = from;
    r.frames.push_back({&loop.body, 0, loop.slot, to, step});
  }
}

}  // namespace

void advance(Runner& x, RoleRun& r) {
  while (!r.frames.empty()) {
    Frame& f = r.frames.back();
    if (f.pc == f.ops->size()) {
      if (f.slot >= 0) {
        std::int64_t& v = r.env[static_cast<std::size_t>(f.slot)];
        v += f.step;
        if (v < f.to) {
          f.pc = 0;
          continue;
        }
      }
      r.frames.pop_back();
      continue;
    }
    const KernelOp& op = (*f.ops)[f.pc++];
    if (op.condition && op.condition->eval(r.env) == 0) continue;
    ++x.stats.ops;
    r.current = &op;
    r.began = x.engine.now();
    r.traced_bytes = -1;
    r.traced_peer = -1;
    if (op.kind == KernelOp::Kind::for_loop) {
      enter_loop(r, op);
      continue;
    }
    if (!start_op(x, r, op)) return;
  }
  r.done = true;
  r.current = nullptr;
  role_done(x, *r.cta);
}

void op_done(Runner& x, RoleRun& r) {
  if (x.engine.trace() != nullptr) trace_op(x, r);
  advance(x, r);
}

void resume_after(Runner& x, RoleRun& r, Duration after) {
  r.waiting.clear();
  x.engine.schedule_in(after, [&x, &r] { op_done(x, r); });
}

}  // namespace mgsim::traces::kernel
