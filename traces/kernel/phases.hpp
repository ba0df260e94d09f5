// How an op unit's work runs: a list of phases, each a delay followed by flows that run
// together; a phase starts when every flow of the one before it is done, and the op ends when
// the last phase's flows are done. An op unit builds the whole list when it starts, so the
// phases are data in the role (no continuation closure, no allocation once the role's vectors
// have grown):
//     begin_phases(r);
//     add_phase(r, latency);  add_flow(r, hbm, bytes, cap);
//     add_phase(r, Duration::zero());  add_flow(r, ...);  add_flow(r, ...);
//     run_phases(x, r);
// Each phase is one engine event, then one flow each: the order of events is part of the
// results (ties at one picosecond run in scheduling order).
#pragma once

#include <optional>

#include "traces/kernel/runner.hpp"

namespace mgsim::traces::kernel {

// Forgets the role's previous phases and flows (their vectors keep their capacity).
void begin_phases(RoleRun& r);
// Opens a phase that starts `delay` after the one before it ends (after now for the first).
void add_phase(RoleRun& r, Duration delay);
// Appends a flow to the last phase: an empty path, no cap.
FlowSpec& add_flow(RoleRun& r);
FlowSpec& add_flow(RoleRun& r, sim::ResourceId resource, Bytes bytes, std::optional<Bandwidth> cap);
// Runs the phases; when the last is done, the op is (walker.hpp's op_done).
// REQUIRES: at least one phase.
void run_phases(Runner& x, RoleRun& r);

}  // namespace mgsim::traces::kernel
