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

#include <fmt/format.h>

#include "models/hardware_loader.hpp"
#include "sim/cli/commands.hpp"
#include "sim/config.hpp"
#include "sim/json.hpp"
#include "topologies/topology.hpp"
#include "traces/fabric_interconnect.hpp"
#include "traces/roofline.hpp"
#include "traces/roofline_format.hpp"
#include "traces/schedule.hpp"

namespace mgsim::cli {
namespace {

struct BoundOptions : ScheduleInputs {
  bool json = false;
};

void bound(const BoundOptions& o) {
  const traces::Schedule schedule = traces::load_schedule_file(o.schedule);
  const traces::Env params = traces::param_values(schedule, parse_schedule_defines(o.defines));
  const topologies::Topology topo =
      topologies::load_topology(o.topology, parse_topology_defines(o.topology_defines, "-T"));
  const models::HardwareSpec hw = models::load_hardware(o.hw.empty() ? topo.gpu_model : o.hw);
  const traces::AttributedRun run = traces::run_with_roofline(schedule, params, topo, hw);
  if (!run.result.blocked.empty()) {
    const auto& b = run.result.blocked.front();
    throw CheckFailed(fmt::format(
        "{}: error: the schedule deadlocked at {} ps ({} blocked; first: {}:{}:{}: rank {} "
        "stream '{}' waits for {}); `mgsim run` reports all of them",
        o.schedule, run.result.end.picoseconds(), run.result.blocked.size(), b.where.file,
        b.where.line, b.where.column, b.rank, b.stream, b.waiting_for));
  }
  const traces::Roofline& r = run.roofline;
  if (o.json) {
    std::cout << fmt::format(
        "{{\"schedule\": {}, \"topology\": {}, \"hw\": {}, \"roofline\": {}}}\n",
        sim::json_quote(o.schedule), sim::json_quote(topo.name), sim::json_quote(hw.name),
        traces::roofline_json(r));
    return;
  }
  std::cout << fmt::format("roofline of {} on {} ({} GPUs, hw {})\n", o.schedule, topo.name,
                           topo.gpu_count(), hw.name);
  std::cout << traces::roofline_table(r);
  std::cout << fmt::format("predicted: {:.6f} us ({} ps), fraction of the bound {:.6f}\n",
                           run.result.end.since_start().microseconds(),
                           run.result.end.picoseconds(), r.fraction());
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
