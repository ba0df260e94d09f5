// The op units of the kernel runner: one file per op kind (op_<kind>.cpp), each stating its
// model at the top. A unit starts its op on a role and returns true when the op is over at
// once (the walker goes on), false when it ends later: by its phases (phases.hpp), or when a
// flag or barrier releases the role (walker.hpp's resume_after). A new op kind is a new file
// here plus its line in start_op (and the parser's).
#pragma once

#include "traces/kernel/runner.hpp"

namespace mgsim::traces::kernel {

bool start_load_store(Runner& x, RoleRun& r, const KernelOp& op);  // via tma | ldst
bool start_multimem(Runner& x, RoleRun& r, const KernelOp& op);    // load, store, reduce
bool start_mma(Runner& x, RoleRun& r, const KernelOp& op);
bool start_compute(Runner& x, RoleRun& r, const KernelOp& op);
bool start_mainloop(Runner& x, RoleRun& r, const KernelOp& op);
bool start_signal(Runner& x, RoleRun& r, const KernelOp& op);
bool start_wait(Runner& x, RoleRun& r, const KernelOp& op);
bool start_arrive(Runner& x, RoleRun& r, const KernelOp& op);
bool start_sync(Runner& x, RoleRun& r, const KernelOp& op);

// REQUIRES: op is not a `for` (the walker's).
inline bool start_op(Runner& x, RoleRun& r, const KernelOp& op) {
  switch (op.kind) {
    case KernelOp::Kind::load:
    case KernelOp::Kind::store:
    case KernelOp::Kind::reduce:
      return op.via == Via::multimem ? start_multimem(x, r, op) : start_load_store(x, r, op);
    case KernelOp::Kind::mma:
      return start_mma(x, r, op);
    case KernelOp::Kind::compute:
      return start_compute(x, r, op);
    case KernelOp::Kind::mainloop:
      return start_mainloop(x, r, op);
    case KernelOp::Kind::signal:
      return start_signal(x, r, op);
    case KernelOp::Kind::wait:
      return start_wait(x, r, op);
    case KernelOp::Kind::arrive:
      return start_arrive(x, r, op);
    case KernelOp::Kind::sync:
      return start_sync(x, r, op);
    case KernelOp::Kind::for_loop:
      break;
  }
  return true;
}

}  // namespace mgsim::traces::kernel
