// `mgsim check SCHEDULE --topology T [--problem P [--shape N]] [-D k=v ...] [--json]`: runs the
// schedule with the data check (traces/data_check.hpp) and reports every violation with its
// file:line:column: reads of data that is not valid yet, stale flag waits, outputs not fully
// written, inputs never read, a deadlock. A schedule with a `sweep:` is checked at every point
// (unless -D sets its param).
//
// With --problem (traces/problem.hpp) the schedule is checked against the problem: its buffers,
// the work its result requires (mma flops on every rank), for each of the problem's shapes (or
// --shape N; -D sets the schedule's other params); and its time is compared with the problem's
// baseline schedule and bound.
// Exit codes: 0 no violation; 1 violations (or a deadlock); 2 bad input; 5 a run limit.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "sim/config.hpp"
#include "sim/json.hpp"
#include "traces/problem.hpp"
#include "traces/report.hpp"
#include "traces/schedule.hpp"
#include "traces/simulation.hpp"

namespace mgsim::cli {
namespace {

struct CheckOptions : ScheduleInputs {
  std::string problem;
  int shape = -1;
  bool json = false;
};

// One checked run: its params, what was found, and with a problem, the comparison.
struct Checked {
  traces::Overrides params;
  std::vector<traces::Violation> violations;
  sim::Duration time;
  std::optional<traces::Evaluation> problem;
  sim::Duration baseline;
};

std::vector<Checked> check_alone(const CheckOptions& o, const traces::Machine& machine) {
  const traces::Schedule schedule = traces::load_schedule_file(o.schedule);
  const Overrides defines = parse_schedule_defines(o.defines);
  std::vector<Checked> out;
  for (traces::Run& run : traces::run_points(schedule, defines, std::nullopt, machine, nullptr,
                                             limits_of(o), {.check = true})) {
    Checked c;
    c.params = run.params;
    c.violations = traces::with_deadlock(run.result.run.check->violations, run.result);
    c.time = run.result.run.end.since_start();
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<Checked> check_problem(const CheckOptions& o, const traces::Machine& machine) {
  const traces::Problem p = traces::load_problem(o.problem);
  const Overrides defines = parse_schedule_defines(o.defines);
  if (o.shape >= static_cast<int>(p.shapes.size()))
    throw sim::ConfigError({fmt::format("--shape {}", o.shape), 0, 0},
                           fmt::format("problem '{}' has {} shapes (0 to {})", p.name,
                                       p.shapes.size(), p.shapes.size() - 1));
  const traces::Schedule schedule = traces::load_problem_schedule(p, o.schedule);
  // Checking the baseline itself: its time is the schedule's.
  std::error_code ec;
  const bool is_baseline = std::filesystem::equivalent(o.schedule, p.baseline, ec);
  const traces::Schedule baseline =
      is_baseline ? traces::Schedule{} : traces::load_problem_schedule(p, p.baseline);
  std::vector<Checked> out;
  for (std::size_t s = 0; s < p.shapes.size(); ++s) {
    if (o.shape >= 0 && s != static_cast<std::size_t>(o.shape)) continue;
    Checked c;
    c.params = traces::shape_defines(p, s);
    traces::Evaluation e = traces::evaluate(p, s, schedule, machine, limits_of(o), defines);
    c.violations = e.violations;
    c.time = e.result.run.end.since_start();
    c.baseline =
        is_baseline
            ? c.time
            : traces::evaluate(p, s, baseline, machine, limits_of(o)).result.run.end.since_start();
    c.problem = std::move(e);
    out.push_back(std::move(c));
  }
  return out;
}

std::string params_text(const traces::Overrides& params) {
  std::string out;
  for (const auto& [name, value] : params)
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, value);
  return out;
}

void print_text(const CheckOptions& o, const std::vector<Checked>& runs) {
  for (const Checked& c : runs) {
    std::cout << fmt::format("{} [{}]: {:.3f} us", o.schedule, params_text(c.params),
                             c.time.microseconds());
    if (c.problem)
      std::cout << fmt::format(
          "; baseline {:.3f} us (speedup {:.3f}x); problem bound {:.3f} us (fraction {:.3f})",
          c.baseline.microseconds(), c.baseline.microseconds() / c.time.microseconds(),
          c.problem->bound.microseconds(), c.problem->bound.microseconds() / c.time.microseconds());
    std::cout << "\n" << traces::violations_text(c.violations);
  }
}

// {"schedule", "runs": [{"params", then the evaluation's keys (traces::evaluation_json) with a
// problem, else "valid", "time_us", "violations"}]}.
void print_json(const CheckOptions& o, const std::vector<Checked>& runs) {
  std::string out;
  sim::JsonWriter j(out);
  j.object();
  j.key("schedule").value(o.schedule);
  j.key("runs").array();
  for (const Checked& c : runs) {
    j.object();
    j.key("params").object();
    for (const auto& [name, value] : c.params) j.key(name).value(value);
    j.end();
    if (c.problem) {
      j.key("evaluation").raw(traces::evaluation_json(*c.problem, c.baseline));
    } else {
      j.key("valid").raw(c.violations.empty() ? "true" : "false");
      j.key("time_us").value_shortest(c.time.microseconds());
      j.key("violations").raw(traces::violations_json(c.violations));
    }
    j.end();
  }
  j.end();
  j.end();
  std::cout << out << "\n";
}

void check(const CheckOptions& o) {
  const traces::Machine machine =
      traces::Machine::load(o.topology, parse_topology_defines(o.topology_defines, "-T"), o.hw);
  const std::vector<Checked> runs =
      o.problem.empty() ? check_alone(o, machine) : check_problem(o, machine);
  if (o.json) {
    print_json(o, runs);
  } else {
    print_text(o, runs);
  }
  std::cout.flush();
  std::size_t found = 0;
  for (const Checked& c : runs) found += c.violations.size();
  if (found > 0)
    throw CheckFailed(fmt::format("{}: check failed: {} violation(s)", o.schedule, found));
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto opts = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand(
      "check", "Check a schedule's data and synchronisation (and, with --problem, its work)");
  add_schedule_inputs(cmd, *opts);
  cmd->add_option("--problem", opts->problem, "a problem file (problems/): check against it");
  cmd->add_option("--shape", opts->shape, "with --problem: only this shape (default: all)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", opts->json, "print the result as JSON");
  cmd->callback([opts] { check(*opts); });
}

}  // namespace mgsim::cli
