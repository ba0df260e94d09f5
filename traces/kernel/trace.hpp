// The kernel runner's timeline: one slice per op that took time, on the track of its GPU
// (process "gpuN") and of its SM and role (thread "smSSS kernel.role"), named by the op's kind,
// with args {op: kind, bytes, peer} (bytes and peer when the op has them: RoleRun::traced_*).
#pragma once

#include "traces/kernel/runner.hpp"

namespace mgsim::traces::kernel {

// Records the current op of `r` as a slice [r.began, now) when a trace sink is attached.
void trace_op(Runner& x, const RoleRun& r);

}  // namespace mgsim::traces::kernel
