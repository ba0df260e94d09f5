// The role walker: walks a role's ops with the schedule language's one Walker (traces/walker.hpp:
// `for` bodies, `if`, every op charged to the run's one OpBudget) and starts each op through its
// op unit (ops.hpp). An op that ends later calls op_done(); a role whose ops are all
// done ends, and its CTA with its last role (launch.hpp).
// Knows nothing of what an op does: that is the op units'.
#pragma once

#include "traces/kernel/runner.hpp"

namespace mgsim::traces::kernel {

// Walks `r` from where it stands until an op has to wait (for time, bytes, a flag or a barrier)
// or the role is done.
void advance(Runner& x, RoleRun& r);
// The current op of `r` ended now: traces it and walks on.
void op_done(Runner& x, RoleRun& r);
// The current op of `r`, blocked on a flag or barrier, ends `after` from now.
void resume_after(Runner& x, RoleRun& r, Duration after);

}  // namespace mgsim::traces::kernel
