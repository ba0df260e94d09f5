// `mgsim bound SCHEDULE --topology T [--hw H] [-D k=v ...] [--json]`: the communication-aware
// roofline of a schedule (traces/roofline.hpp): for every unit group that carries work, the
// amount, its capacity and the time it needs at full rate, sorted by that time; the bound (the
// largest) and the bottleneck.
//
// The amounts are what the schedule makes each unit carry on the routes a run picks, so the
// command runs the schedule once (with the schedule's defaults and -D overrides; a `sweep:` is
// not expanded) and also reports the predicted time and the fraction of the bound it achieves.
// Exit codes: 0, 1 when the schedule deadlocks, 2 for bad input.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "sim/config.hpp"
#include "traces/report.hpp"
#include "traces/schedule.hpp"
#include "traces/simulation.hpp"

namespace mgsim::cli {
namespace {

struct BoundOptions : ScheduleInputs {
  bool json = false;
};

void bound(const BoundOptions& o) {
  const traces::Schedule schedule = traces::load_schedule_file(o.schedule);
  const traces::Env params = traces::param_values(schedule, parse_schedule_defines(o.defines));
  const traces::Machine machine =
      traces::Machine::load(o.topology, parse_topology_defines(o.topology_defines, "-T"), o.hw);
  const traces::Result run = traces::simulate(schedule, params, machine, nullptr, limits_of(o));
  if (run.deadlocked()) throw CheckFailed(traces::deadlock_summary(o.schedule, run.run));
  const traces::ReportHeader header{o.schedule, &machine};
  std::cout << (o.json ? traces::bound_json(header, run) : traces::bound_text(header, run));
}

}  // namespace

void add_bound_command(CLI::App& app) {
  auto opts = std::make_shared<BoundOptions>();
  CLI::App* cmd = app.add_subcommand(
      "bound", "The communication-aware roofline of a schedule: time per unit at full rate");
  add_schedule_inputs(cmd, *opts);
  cmd->add_flag("--json", opts->json, "print the roofline as JSON");
  cmd->callback([opts] { bound(*opts); });
}

}  // namespace mgsim::cli
