// The one composition root: everything that runs a schedule (the CLI, validate, benchmarks,
// tests, and later the Python module and sweeps) assembles and runs a simulation here.
//
//   Machine  a topology and a GPU hardware spec, loaded once and shared by many runs
//   simulate(schedule, params, machine, trace) -> Result{RunResult, Roofline}
//   run_one(schedule, defines, machine) -> one Run (the Python module, `mgsim serve`)
//   run_points(schedule, defines, sweep, machine, trace) -> one Run per point of a sweep
//
// A run builds its own engine, fluid network, fabric and GPU resources from the Machine, so runs
// are independent: the same inputs give the same picoseconds, in any order, thread or process.
// Contract: a Machine is immutable once built; several threads may run schedules on one Machine
// at once (each run owns every mutable object it touches). Errors in values are sim::ConfigError
// naming the YAML value (or the -D / --sweep argument); a deadlock is not an error here, it is a
// Result whose run.blocked is non-empty (report.hpp words it).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/hardware_loader.hpp"
#include "models/hardware_spec.hpp"
#include "sim/trace.hpp"
#include "topologies/symmetry.hpp"
#include "topologies/topology.hpp"
#include "traces/executor.hpp"
#include "traces/roofline.hpp"
#include "traces/schedule.hpp"
#include "traces/walker.hpp"

namespace mgsim::traces {

class Machine {
 public:
  // Resolves the topology's GPU NVLink links to the hardware's rate (topologies::
  // resolve_gpu_links); ConfigError when the two disagree.
  Machine(topologies::Topology topology, models::HardwareSpec hardware);

  // `topology`: a preset name or a .yaml path, with its params (`-T nodes=4`); `hardware`: a
  // preset name or a .yaml path, empty for the topology's own GPU model, with `overrides` of its
  // parameters ({"hbm.bandwidth", "9TB/s"}: what-if values, checked as the file's).
  static Machine load(const std::string& topology,
                      const std::map<std::string, std::int64_t>& topology_params,
                      const std::string& hardware,
                      const std::vector<models::HardwareOverride>& overrides = {});

  const topologies::Topology& topology() const { return topology_; }
  const models::HardwareSpec& hardware() const { return hardware_; }
  // The smallest node translation that is a symmetry of the fabric and turns the ideal ring's
  // rings onto themselves (topologies/symmetry.hpp, ring_turns), if any: what a folded run
  // uses.
  const std::optional<topologies::Translation>& symmetry() const { return symmetry_; }

 private:
  topologies::Topology topology_;
  models::HardwareSpec hardware_;
  std::optional<topologies::Translation> symmetry_;
};

// Bounds on one run. Passing one is a sim::LimitError that says which and how to raise it (exit 5
// in the CLI, mgsim.LimitError in Python), never a hang. Sweeps and RL loops that expect huge
// schedules raise them; an RL loop lowers them to bound a rollout's cost.
struct Limits {
  // Ops executed, host and kernel ops together, a loop's every iteration counting one.
  std::int64_t max_ops = OpBudget::kDefaultLimit;
  // Engine events (about 3 million a second of wall time: docs/PERFORMANCE.md).
  std::uint64_t max_events = 2'000'000'000;
  // Simulated time: a schedule's end.
  sim::Duration max_time = sim::Duration::ms(60'000);
  // Wall time of the run; zero: none.
  double max_wall_seconds = 0;
  // The process's resident memory, checked while the run goes (shared by runs on other threads).
  std::int64_t max_memory_bytes = std::int64_t{16} << 30;
};

// Limits from a mapping {max_ops: N, max_events: N, max_time: "2s", max_wall: seconds,
// max_memory: "8GiB"} (a `mgsim serve` request's, the Python module's), each key optional, over
// `base`. ConfigError for an unknown key or a malformed value.
Limits parse_limits(const sim::Node& node, Limits base);

// What a run records beside its times, each only when asked (they cost time and memory).
struct Recording {
  bool check = false;          // the data check (traces/data_check.hpp): run.check
  bool critical_path = false;  // run.critical_path (traces/critical_path.hpp)
  bool every_rank = false;     // simulate every rank, never symmetric ranks once (simulate())
};

struct Result {
  RunResult run;      // times per rank and stream, collectives, blocked streams, events
  Roofline roofline;  // elapsed = run.end
  bool deadlocked() const { return !run.blocked.empty(); }
};

// Runs `schedule` with `params` (param_values()) on `machine` within `limits`. `trace`, if set,
// receives the run's slices and counters; `record` says what else the run records (Recording).
// Throws what execute() throws.
//
// Symmetric ranks are simulated once (issue 12): when the schedule runs one program on every rank
// (Schedule::same_program: local kernels only) over the whole fabric, the machine has a symmetry
// (Machine::symmetry), and nothing is traced, checked or followed back (trace, record), and the
// caller did not ask for every rank (Recording::every_rank), the run is folded: only the
// ranks of the translation's first nodes are simulated, each standing for its translates, over
// the fabric's stand-in links (traces/fabric_interconnect.hpp). Its results are the whole run's,
// to the picosecond (tests/traces/fold_test.cpp); RunResult::simulated says how many ranks ran,
// `events` counts theirs, and the roofline lists their units only (every translate's are the
// same: the bound and the bottleneck's time are the whole run's). Where the symmetry does not
// hold after all (SymmetryBroken: an equal-cost route, unequal segments) or the run deadlocks,
// every rank is run instead, and RunResult::unfolded says why.
Result simulate(const Schedule& schedule, const Env& params, const Machine& machine,
                sim::TraceSink* trace = nullptr, const Limits& limits = {}, Recording record = {});

// (name, value) pairs as written after -D, with units allowed ("SIZE", "64MiB").
using Overrides = std::vector<std::pair<std::string, std::string>>;

// One point of a run_points() sweep.
struct Run {
  Overrides params;  // every param of the schedule with its value, in declaration order
  Result result;
};

// One run of `schedule` with its params set by `defines` (the schedule's own sweep ignored).
Run run_one(const Schedule& schedule, const Overrides& defines, const Machine& machine,
            sim::TraceSink* trace = nullptr, const Limits& limits = {}, Recording record = {});

// The param settings a run visits: one per value of the sweep, or one when there is none.
// `sweep` (from the command line) replaces the schedule's own. `defines` always win: a define of
// the schedule's sweep param turns its sweep off (one run at the defined value); a define of the
// param of a command-line `sweep` is a ConfigError (the two ask for different things).
std::vector<Overrides> sweep_points(const Schedule& schedule, const Overrides& defines,
                                    const std::optional<Sweep>& sweep);

// Runs every point of sweep_points() in order; `trace`, if set, traces the last one. A deadlocked
// point ends the sweep: it is the last Run returned.
// For a process that runs many schedules (the Python module, `mgsim serve`): memory freed by a
// run stays in the process for the next one instead of going back to the kernel and being
// faulted in again (glibc's trim and mmap thresholds raised; python/bench_rollouts.py measures
// what it gives).
void keep_freed_memory();

std::vector<Run> run_points(const Schedule& schedule, const Overrides& defines,
                            const std::optional<Sweep>& sweep, const Machine& machine,
                            sim::TraceSink* trace = nullptr, const Limits& limits = {},
                            Recording record = {});

}  // namespace mgsim::traces
