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
#include <span>

#include "traces/kernel/runner.hpp"

namespace mgsim::traces::kernel {

// Inline: these run several times per op on the simulation's hot path.

// The current op's warp takes its share of the SM's math pipes (models::Gpu::add_comm_warp)
// until the op is done (op_done gives it back).
inline void hold_comm_warp(Runner& x, RoleRun& r, models::Gpu::CommWarp kind) {
  r.comm_warp = kind;
  x.gpu(x.rank_of(r)).add_comm_warp(r.cta->sm, kind, +1);
}

// Forgets the role's previous phases and flows (their vectors keep their capacity).
inline void begin_phases(RoleRun& r) {
  r.flow_count = 0;
  r.phase_count = 0;
  r.next_phase = 0;
}

// Opens a phase that starts `delay` after the one before it ends (after now for the first).
inline void add_phase(RoleRun& r, Duration delay) {
  if (r.phase_count == r.phases.size()) r.phases.emplace_back();
  r.phases[r.phase_count++] = {delay, r.flow_count, 0};
}

// Appends a flow to the last phase: an empty path, no cap. REQUIRES: a phase was added.
inline FlowSpec& add_flow(RoleRun& r) {
  if (r.flow_count == r.flows.size()) r.flows.emplace_back();
  FlowSpec& f = r.flows[r.flow_count++];
  f.path.clear();
  f.shared_path = {};
  f.cap.reset();
  f.window.reset();
  ++r.phases[r.phase_count - 1].count;
  return f;
}

inline FlowSpec& add_flow(RoleRun& r, sim::ResourceId resource, Bytes bytes,
                          std::optional<Bandwidth> cap) {
  FlowSpec& f = add_flow(r);
  f.path.push_back(resource);
  f.bytes = bytes;
  f.cap = cap;
  return f;
}

// A flow over [first, rest...].
inline FlowSpec& add_flow(RoleRun& r, sim::ResourceId first, std::span<const sim::ResourceId> rest,
                          Bytes bytes, std::optional<Bandwidth> cap) {
  FlowSpec& f = add_flow(r, first, bytes, cap);
  f.path.insert(f.path.end(), rest.begin(), rest.end());
  return f;
}

// A flow over `path`, which outlives the run (FlowSpec::shared_path).
inline FlowSpec& add_shared_flow(RoleRun& r, std::span<const sim::ResourceId> path, Bytes bytes,
                                 std::optional<Bandwidth> cap) {
  FlowSpec& f = add_flow(r);
  f.shared_path = path;
  f.bytes = bytes;
  f.cap = cap;
  return f;
}

// Runs the phases; when the last is done, the op is (walker.hpp's op_done).
// REQUIRES: at least one phase.
void run_phases(Runner& x, RoleRun& r);

}  // namespace mgsim::traces::kernel
