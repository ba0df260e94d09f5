// The op units of the kernel runner: one file per op kind (op_<kind>.cpp), each stating its
// model at the top. A unit starts its op (the KernelOp, for its location, and its kind's struct)
// on a role and returns true when the op is over at once (the walker goes on), false when it
// ends later: by its phases (phases.hpp), or when a flag or barrier releases the role
// (walker.hpp's resume_after). A new op kind is a new file here plus its line in start_op (and
// its struct in kernel_schedule.hpp).
#pragma once

#include <variant>

#include <fmt/format.h>

#include "sim/check.hpp"
#include "traces/kernel/runner.hpp"

namespace mgsim::traces::kernel {

// via tma | ldst (op_load_store.cpp)
bool start_load_store(Runner& x, RoleRun& r, const LoadOp& load);
bool start_load_store(Runner& x, RoleRun& r, const StoreOp& store);
// via multimem (op_multimem.cpp)
bool start_multimem(Runner& x, RoleRun& r, const KernelOp& op, const StoreOp& store);
bool start_multimem(Runner& x, RoleRun& r, const KernelOp& op, const ReduceOp& reduce);
bool start_mma(Runner& x, RoleRun& r, const MmaOp& op);
bool start_compute(Runner& x, RoleRun& r, const ComputeOp& op);
bool start_mainloop(Runner& x, RoleRun& r, const MainloopOp& op);
bool start_signal(Runner& x, RoleRun& r, const SignalOp& op);
bool start_wait(Runner& x, RoleRun& r, const FlagWaitOp& op);
bool start_arrive(Runner& x, RoleRun& r, const ArriveOp& op);
bool start_sync(Runner& x, RoleRun& r, const SyncOp& op);
bool start_fence(Runner& x, RoleRun& r, const FenceOp& op);  // op_signal.cpp
// The bytes an ld/st or multimem access keeps in flight per CTA: threads x vector x unroll, each
// the op's or its default (the CTA's threads, 16 B, 4); op_load_store.cpp.
std::int64_t ldst_window(const RoleRun& r, const TransferOp& op);
// The tensor-pipe amount of an m x n x k slice of `op`: its flops as op.instr, with its
// operands' shared-memory reads when op.operands says so (models::Gpu::mma_amount); op_mma.cpp.
Bytes mma_amount(const models::Gpu& gpu, const RoleRun& r, const MmaShape& op, std::int64_t m,
                 std::int64_t n, std::int64_t k);

// A CTA's barrier in the data check.
inline DataCheck::SyncKey barrier_key(const RoleRun& r, int barrier) {
  return {DataCheck::barrier, r.cta->launch->check, r.cta->index, barrier};
}

// What `op` reads and writes, and its mma flops, told to the run's data check (data.cpp).
// REQUIRES: r.agent.
void check_data(Runner& x, RoleRun& r, const KernelOp& op);

// Starts `op` on `r` through its kind's unit. REQUIRES: op is not a `for` (the walker's).
inline bool start_op(Runner& x, RoleRun& r, const KernelOp& op) {
  struct Start {
    Runner& x;
    RoleRun& r;
    const KernelOp& op;
    bool operator()(const LoadOp& o) const { return start_load_store(x, r, o); }
    bool operator()(const StoreOp& o) const {
      return o.via == Via::multimem ? start_multimem(x, r, op, o) : start_load_store(x, r, o);
    }
    bool operator()(const ReduceOp& o) const { return start_multimem(x, r, op, o); }
    bool operator()(const MmaOp& o) const { return start_mma(x, r, o); }
    bool operator()(const ComputeOp& o) const { return start_compute(x, r, o); }
    bool operator()(const MainloopOp& o) const { return start_mainloop(x, r, o); }
    bool operator()(const SignalOp& o) const { return start_signal(x, r, o); }
    bool operator()(const FlagWaitOp& o) const { return start_wait(x, r, o); }
    bool operator()(const ArriveOp& o) const { return start_arrive(x, r, o); }
    bool operator()(const SyncOp& o) const { return start_sync(x, r, o); }
    bool operator()(const FenceOp& o) const { return start_fence(x, r, o); }
    bool operator()(const KernelForOp&) const {
      throw sim::InternalError(
          fmt::format("{}:{}: the walker enters for loops itself", op.where.file, op.where.line));
    }
  };
  return std::visit(Start{x, r, op}, op.what);
}

}  // namespace mgsim::traces::kernel
