// `mgsim run SCHEDULE --topology T [--hw H] [-D k=v ...] [-T k=v ...] [--sweep P=FROM:TO:xF]
//  [--json] [--trace out.json]`: runs a schedule through the composition root
// (traces/simulation.hpp) and prints what traces/report.hpp makes of it: the predicted time per
// rank and stream with the roofline summary for one run, one row per point for a sweep, and the
// nccl-tests table for a sweep of a single collective.
//
// Sweeps: the schedule's `sweep:` or --sweep (which replaces it) runs the whole schedule once per
// value of one param; a -D of the schedule's sweep param runs once at that value, a -D of the
// --sweep param is an error (traces::sweep_points). With --trace, the last run of a sweep is
// traced (one slice per op per stream track, one per copy on each copy-engine track, and
// bandwidth counters under each GPU's process). Exit codes: 0, or 1 when the schedule deadlocks
// (a report on stderr), 2 for bad input.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/output_file.hpp"
#include "sim/config.hpp"
#include "sim/trace.hpp"
#include "traces/html_report.hpp"
#include "traces/report.hpp"
#include "traces/schedule.hpp"
#include "traces/simulation.hpp"

namespace mgsim::cli {
namespace {

struct RunOptions : ScheduleInputs {
  std::string sweep;
  std::string trace;
  std::string report;
  bool critical_path = false;
  bool every_rank = false;
  bool json = false;
  std::size_t top = 10;
};

}  // namespace

Overrides parse_schedule_defines(const std::vector<std::string>& defines) {
  Overrides out;
  for (const std::string& d : defines) {
    const auto eq = d.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == d.size())
      throw sim::ConfigError({"-D " + d, 0, 0}, "expected -D name=value (e.g. -D SIZE=64MiB)");
    out.emplace_back(d.substr(0, eq), d.substr(eq + 1));
  }
  return out;
}

namespace {

// "SIZE=64KiB:1GiB:x2" (the factor part is optional, default x2).
traces::Sweep parse_sweep(const std::string& text) {
  const sim::SourceLocation where{"--sweep " + text, 0, 0};
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw sim::ConfigError(where, "expected --sweep PARAM=FROM:TO[:xFACTOR]");
  traces::Sweep sw;
  sw.param = text.substr(0, eq);
  sw.where = where;
  std::vector<std::string> parts;
  std::string rest = text.substr(eq + 1);
  for (std::size_t p; (p = rest.find(':')) != std::string::npos; rest = rest.substr(p + 1))
    parts.push_back(rest.substr(0, p));
  parts.push_back(rest);
  if (parts.size() < 2 || parts.size() > 3)
    throw sim::ConfigError(where, "expected --sweep PARAM=FROM:TO[:xFACTOR]");
  const traces::Scope none;
  sw.from = traces::Expr::parse(parts[0], none, where).eval_positive({}, "sweep from");
  sw.to = traces::Expr::parse(parts[1], none, where).eval_positive({}, "sweep to");
  if (parts.size() == 3) {
    const std::string f = parts[2].starts_with('x') ? parts[2].substr(1) : parts[2];
    sw.factor = traces::Expr::parse(f, none, where).eval({});
  }
  if (sw.factor < 2) throw sim::ConfigError(where, "the sweep factor must be at least x2");
  if (sw.to < sw.from) throw sim::ConfigError(where, "the sweep's TO is smaller than its FROM");
  return sw;
}

void run_schedule(const RunOptions& o) {
  const traces::Schedule schedule = traces::load_schedule_file(o.schedule);
  const Overrides defines = parse_schedule_defines(o.defines);
  traces::param_values(schedule, defines);  // reject unknown -D before loading anything else
  const traces::Machine machine =
      traces::Machine::load(o.topology, parse_topology_defines(o.topology_defines, "-T"), o.hw);
  std::optional<traces::Sweep> sweep;
  if (!o.sweep.empty()) sweep = parse_sweep(o.sweep);

  std::unique_ptr<sim::ChromeTraceWriter> writer;
  std::unique_ptr<traces::RunTraceRecorder> recorder;
  // Opened before the simulation: a path that cannot be written fails at once.
  std::optional<OutputFile> trace_file, report_file;
  if (!o.trace.empty()) {
    trace_file.emplace(o.trace, "trace", OutputFile::Older::remove);
    writer = std::make_unique<sim::ChromeTraceWriter>();
  }
  if (!o.report.empty()) {
    report_file.emplace(o.report, "report", OutputFile::Older::remove);
    recorder = std::make_unique<traces::RunTraceRecorder>();
  }
  std::optional<sim::TraceTee> both;
  if (writer && recorder) both.emplace(*writer, *recorder);
  sim::TraceSink* sink = both     ? static_cast<sim::TraceSink*>(&*both)
                         : writer ? static_cast<sim::TraceSink*>(writer.get())
                                  : recorder.get();
  const std::vector<traces::Run> runs = traces::run_points(
      schedule, defines, sweep, machine, sink, limits_of(o),
      {.critical_path = o.critical_path || report_file.has_value(), .every_rank = o.every_rank});
  if (runs.back().result.deadlocked()) {
    std::cout.flush();
    throw CheckFailed(traces::deadlock_report(o.schedule, runs.back().result.run));
  }
  // The results first: a trace that cannot be written loses no result.
  const traces::ReportHeader header{o.schedule, &machine};
  // One collective op or group (the table shows its first transfer), or one send and the
  // receive it matches.
  const std::size_t collectives = runs.front().result.run.collectives.size();
  const bool table = collectives > 0 && (schedule.collective_count == 1 || collectives == 1);
  const std::string text = traces::runs_text(header, runs, o.top, table, o.critical_path);
  std::cout << (o.json ? traces::runs_json(header, runs) : text);
  std::cout.flush();
  if (report_file) {
    // Of the last run (a sweep's last point), as the trace; its text is the one run's.
    const std::string last = traces::runs_text(header, {runs.back()}, o.top, table);
    report_file->stream() << traces::run_report_html(o.schedule, runs.back().result, *recorder,
                                                     last);
    report_file->commit();
  }
  if (trace_file) {
    writer->write(trace_file->stream());
    trace_file->commit();
  }
}

}  // namespace

traces::Limits limits_of(const LimitInputs& in) {
  traces::Limits limits;
  if (in.max_ops > 0) limits.max_ops = in.max_ops;
  if (in.max_events > 0) limits.max_events = in.max_events;
  std::string error;
  if (!in.max_time.empty() && !sim::parse_duration(in.max_time, limits.max_time, error))
    throw sim::ConfigError({"--max-time " + in.max_time, 0, 0}, error);
  limits.max_wall_seconds = in.max_wall;
  sim::Bytes memory;
  if (!in.max_memory.empty()) {
    if (!sim::parse_bytes(in.max_memory, memory, error))
      throw sim::ConfigError({"--max-memory " + in.max_memory, 0, 0}, error);
    limits.max_memory_bytes = memory.count();
  }
  return limits;
}

void add_limit_options(CLI::App* cmd, LimitInputs& in) {
  cmd->add_option("--max-ops", in.max_ops,
                  fmt::format("ops one run may execute, loop iterations included (default {})",
                              traces::OpBudget::kDefaultLimit))
      ->check(CLI::PositiveNumber);
  const traces::Limits defaults;
  cmd->add_option(
         "--max-events", in.max_events,
         fmt::format("engine events one run may process (default {})", defaults.max_events))
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-time", in.max_time,
                  fmt::format("simulated time one run may reach, e.g. 2s (default {})",
                              sim::to_string(defaults.max_time)));
  cmd->add_option("--max-wall", in.max_wall, "wall-clock seconds one run may take (default: none)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-memory", in.max_memory,
                  fmt::format("resident memory the process may reach, e.g. 8GiB (default {})",
                              sim::to_string(sim::Bytes(defaults.max_memory_bytes))));
}

void add_schedule_inputs(CLI::App* cmd, ScheduleInputs& in) {
  cmd->add_option("schedule", in.schedule, "schedule YAML file (see examples/)")->required();
  cmd->add_option("-t,--topology", in.topology, "topology preset or .yaml path")->required();
  cmd->add_option("--hw", in.hw, "hardware preset or .yaml (default: the topology's GPU)");
  cmd->add_option("-D,--define", in.defines, "override a schedule param: -D SIZE=64MiB");
  cmd->add_option("-T,--topology-define", in.topology_defines,
                  "set a topology param: -T nodes=4 (mgsim topo lists them)");
  add_limit_options(cmd, in);
}

void add_run_command(CLI::App& app) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a schedule and print the predicted times");
  add_schedule_inputs(cmd, *opts);
  cmd->add_option("--sweep", opts->sweep, "sweep one param: --sweep SIZE=64KiB:1GiB:x2");
  cmd->add_flag("--json", opts->json, "print a machine-readable JSON summary");
  cmd->add_option("--trace", opts->trace, "write a Perfetto/Chrome trace JSON to this file");
  cmd->add_flag("--critical-path", opts->critical_path,
                "print the chain of ops that set the end time, by where its time went "
                "(traces/critical_path.hpp); --json lists every step");
  cmd->add_flag("--every-rank", opts->every_rank,
                "simulate every rank, even where symmetric ranks would be simulated once (the "
                "same result, slower: traces/simulation.hpp)");
  cmd->add_option("--report", opts->report,
                  "write an HTML report: timeline, utilisation over time, roofline, the text");
  cmd->add_option("--top", opts->top, "unit groups shown in the utilisation table (default 10)");
  cmd->callback([opts] { run_schedule(*opts); });
}

}  // namespace mgsim::cli
