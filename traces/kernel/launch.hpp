// Launch and CTA placement (traces/kernel_exec.hpp states the model): a launch starts after the
// delay its stream computed (launch.latency or launch.gap), then its CTAs are placed by
// occupancy, in waves when the grid is larger than the slots, each through the GPU's dispatcher
// (one every launch.per_cta); a CTA runs its roles (those whose `if` holds) concurrently and ends
// with its last.
#pragma once

#include <functional>
#include <string>

#include "traces/kernel/runner.hpp"

namespace mgsim::traces::kernel {

// Launches kernel `kernel` on `rank` (KernelRunner::launch). Returns the launch's id.
int launch(Runner& x, int rank, int kernel, Env env, sim::Duration start,
           std::function<void()> done, std::optional<DataCheck::Agent> stream);
// The last role of `cta` ended now: the CTA ends, and the next CTA of a wave takes its SM.
void role_done(Runner& x, CtaRun& cta);
// KernelRunner::blocked_reason.
std::string blocked_reason(const Runner& x, int id);

}  // namespace mgsim::traces::kernel
