// `mgsim run SCHEDULE --topology T [--hw H] [-D k=v ...] [--sweep P=FROM:TO:xF] [--json]
//  [--trace out.json]`: runs a schedule and prints the predicted time per rank and stream, and for
// a schedule with one collective, a table in nccl-tests' format (one row per size of the sweep).
//
// Sweeps: the schedule's `sweep:` or --sweep (which wins) runs the whole schedule once per value of
// one param. busbw follows nccl-tests' doc/PERFORMANCE.md: all_reduce algbw x 2(n-1)/n,
// all_gather / reduce_scatter / all_to_all algbw x (n-1)/n; algbw = size / time in GB/s (1e9).
// With --trace, the last run of a sweep is traced (one slice per op per stream track, one per copy
// on each copy-engine track, and bandwidth counters: each GPU's links, HBM, L2, ports and SM pipes
// under that GPU's process, switch-to-switch links on their own). Every run is attributed
// (traces/roofline.hpp): the communication-aware bound, the fraction of it achieved, the bottleneck
// unit group and each group's mean utilisation; the text output shows them for a single run (the
// --top most utilised groups), --json for every run (all groups). Exit codes: 0, or 1 when the
// schedule deadlocks (a report on stderr), 2 for bad input.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/hardware_loader.hpp"
#include "sim/cli/commands.hpp"
#include "sim/config.hpp"
#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "sim/json.hpp"
#include "sim/trace.hpp"
#include "topologies/fabric.hpp"
#include "topologies/topology.hpp"
#include "traces/executor.hpp"
#include "traces/fabric_interconnect.hpp"
#include "traces/roofline.hpp"
#include "traces/roofline_format.hpp"
#include "traces/schedule.hpp"

namespace mgsim::cli {
namespace {

struct RunOptions : ScheduleInputs {
  std::string sweep;
  std::string trace;
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

double bus_factor(traces::CollectiveKind kind, int n) {
  if (kind == traces::CollectiveKind::all_reduce) return 2.0 * (n - 1) / n;
  return static_cast<double>(n - 1) / n;
}

struct CollectiveRow {
  std::int64_t size, count;
  std::string type, redop;
  double time_us, algbw, busbw;
};

CollectiveRow row_of(const traces::CollectiveResult& c) {
  const sim::Duration t = c.end - c.begin;
  const double algbw = t.picoseconds() > 0 ? static_cast<double>(c.bytes) / t.seconds() * 1e-9 : 0;
  const bool reduces = c.kind == traces::CollectiveKind::all_reduce ||
                       c.kind == traces::CollectiveKind::reduce_scatter;
  // nccl-tests' count column: elements per rank's send buffer for all_reduce (size / type), and
  // size / type / nranks for the others, whose size is the whole gathered/scattered buffer.
  const std::int64_t elements = c.bytes / c.dtype.size;
  const std::int64_t count =
      c.kind == traces::CollectiveKind::all_reduce ? elements : elements / c.ranks;
  return {c.bytes,
          count,
          c.dtype.name,
          reduces ? "sum" : "none",
          t.microseconds(),
          algbw,
          algbw * bus_factor(c.kind, c.ranks)};
}

struct Run {
  Overrides params;  // every param's value, by name
  traces::RunResult result;
  traces::Roofline roofline;
};

void print_text(const RunOptions& o, const topologies::Topology& topo, const std::string& hw,
                const std::vector<Run>& runs, bool table) {
  std::cout << fmt::format("schedule {} on {} ({} GPUs, hw {})\n", o.schedule, topo.name,
                           topo.gpu_count(), hw);
  if (runs.size() == 1) {
    const Run& run = runs.front();
    std::vector<std::string> p;
    for (const auto& [k, v] : run.params) p.push_back(fmt::format("{}={}", k, v));
    if (!p.empty()) std::cout << fmt::format("params: {}\n", fmt::join(p, " "));
    std::cout << fmt::format("{:>5}  {:<16} {:>16} {:>18} {:>8}\n", "rank", "stream", "time (us)",
                             "time (ps)", "ops");
    for (const auto& s : run.result.streams)
      std::cout << fmt::format("{:>5}  {:<16} {:>16.6f} {:>18} {:>8}\n", s.rank, s.stream,
                               s.end.since_start().microseconds(), s.end.picoseconds(), s.ops);
    std::cout << fmt::format("total: {:.6f} us ({} ps), world {}\n",
                             run.result.end.since_start().microseconds(),
                             run.result.end.picoseconds(), run.result.world);
    std::cout << traces::roofline_summary(run.roofline, o.top);
  }
  if (!table) return;
  std::cout << "#\n";
  std::cout << fmt::format(
      "# {} ({}), world {}\n", traces::to_string(runs.front().result.collectives.front().kind),
      runs.front().result.collectives.front().stream, runs.front().result.world);
  std::cout << fmt::format("#{:>11}  {:>12}  {:>8}  {:>6}  {:>6}  {:>9}  {:>7}  {:>7}\n", "size",
                           "count", "type", "redop", "root", "time", "algbw", "busbw");
  std::cout << fmt::format("#{:>11}  {:>12}  {:>8}  {:>6}  {:>6}  {:>9}  {:>7}  {:>7}\n", "(B)",
                           "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)");
  for (const Run& run : runs) {
    const CollectiveRow r = row_of(run.result.collectives.front());
    std::cout << fmt::format("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}  {:>9.2f}  {:>7.2f}  {:>7.2f}\n",
                             r.size, r.count, r.type, r.redop, -1, r.time_us, r.algbw, r.busbw);
  }
}

void print_json(const RunOptions& o, const topologies::Topology& topo, const std::string& hw,
                const std::vector<Run>& runs) {
  std::string out =
      fmt::format("{{\"schedule\": {}, \"topology\": {}, \"hw\": {}, \"runs\": [",
                  sim::json_quote(o.schedule), sim::json_quote(topo.name), sim::json_quote(hw));
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const traces::RunResult& r = runs[i].result;
    out += i ? ", " : "";
    out += "{\"params\": {";
    for (std::size_t p = 0; p < runs[i].params.size(); ++p)
      out += fmt::format("{}{}: {}", p ? ", " : "", sim::json_quote(runs[i].params[p].first),
                         runs[i].params[p].second);
    out += fmt::format("}}, \"world\": {}, \"end_ps\": {}, \"streams\": [", r.world,
                       r.end.picoseconds());
    for (std::size_t s = 0; s < r.streams.size(); ++s)
      out += fmt::format("{}{{\"rank\": {}, \"stream\": {}, \"end_ps\": {}, \"ops\": {}}}",
                         s ? ", " : "", r.streams[s].rank, sim::json_quote(r.streams[s].stream),
                         r.streams[s].end.picoseconds(), r.streams[s].ops);
    out += "], \"collectives\": [";
    for (std::size_t c = 0; c < r.collectives.size(); ++c) {
      const CollectiveRow row = row_of(r.collectives[c]);
      out += fmt::format(
          "{}{{\"op\": \"{}\", \"stream\": {}, \"size\": {}, \"count\": {}, \"type\": \"{}\", "
          "\"redop\": \"{}\", \"ranks\": {}, \"begin_ps\": {}, \"end_ps\": {}, \"time_us\": "
          "{:.6f}, "
          "\"algbw_GBps\": {:.6f}, \"busbw_GBps\": {:.6f}}}",
          c ? ", " : "", traces::to_string(r.collectives[c].kind),
          sim::json_quote(r.collectives[c].stream), row.size, row.count, row.type, row.redop,
          r.collectives[c].ranks, r.collectives[c].begin.picoseconds(),
          r.collectives[c].end.picoseconds(), row.time_us, row.algbw, row.busbw);
    }
    out += "], \"roofline\": " + traces::roofline_json(runs[i].roofline) + "}";
  }
  std::cout << out << "]}\n";
}

void run_schedule(const RunOptions& o) {
  const traces::Schedule schedule = traces::load_schedule_file(o.schedule);
  const Overrides defines = parse_schedule_defines(o.defines);
  traces::param_values(schedule, defines);  // reject unknown -D before loading anything else
  const topologies::Topology topo =
      topologies::load_topology(o.topology, parse_topology_defines(o.topology_defines, "-T"));
  const std::string hw_name = o.hw.empty() ? topo.gpu_model : o.hw;
  const models::HardwareSpec hw = models::load_hardware(hw_name);

  std::optional<traces::Sweep> sweep = schedule.sweep;
  if (!o.sweep.empty()) sweep = parse_sweep(o.sweep);
  std::vector<Overrides> settings;
  if (sweep) {
    for (const std::int64_t v : traces::sweep_values(*sweep)) {
      Overrides d = defines;
      d.emplace_back(sweep->param, std::to_string(v));
      settings.push_back(std::move(d));
    }
  } else {
    settings.push_back(defines);
  }

  std::vector<Run> runs;
  std::unique_ptr<sim::ChromeTraceWriter> writer;
  for (std::size_t i = 0; i < settings.size(); ++i) {
    const traces::Env params = traces::param_values(schedule, settings[i]);
    if (!o.trace.empty() && i + 1 == settings.size())
      writer = std::make_unique<sim::ChromeTraceWriter>();
    Run run;
    for (std::size_t p = 0; p < schedule.params.size(); ++p)
      run.params.emplace_back(schedule.params[p].name, std::to_string(params[p]));
    traces::AttributedRun attributed =
        traces::run_with_roofline(schedule, params, topo, hw, writer.get());
    run.result = std::move(attributed.result);
    run.roofline = std::move(attributed.roofline);
    if (!run.result.blocked.empty()) {
      std::cout.flush();
      std::string report = fmt::format("{}: error: the schedule deadlocked at {} ps; blocked:\n",
                                       o.schedule, run.result.end.picoseconds());
      for (const auto& b : run.result.blocked)
        report += fmt::format("  {}:{}:{}: rank {} stream '{}' waits for {}\n", b.where.file,
                              b.where.line, b.where.column, b.rank, b.stream, b.waiting_for);
      report.pop_back();  // main() ends the message with its own newline
      throw CheckFailed(report);
    }
    runs.push_back(std::move(run));
  }

  if (writer) {
    std::ofstream out(o.trace);
    if (!out) throw sim::ConfigError({o.trace, 0, 0}, "cannot write the trace file");
    writer->write(out);
  }
  const bool table = schedule.collective_count == 1 && !runs.front().result.collectives.empty();
  if (o.json) {
    print_json(o, topo, hw.name, runs);
  } else {
    print_text(o, topo, hw.name, runs, table);
  }
}

}  // namespace

void add_schedule_inputs(CLI::App* cmd, ScheduleInputs& in) {
  cmd->add_option("schedule", in.schedule, "schedule YAML file (see examples/)")->required();
  cmd->add_option("-t,--topology", in.topology, "topology preset or .yaml path")->required();
  cmd->add_option("--hw", in.hw, "hardware preset or .yaml (default: the topology's GPU)");
  cmd->add_option("-D,--define", in.defines, "override a schedule param: -D SIZE=64MiB");
  cmd->add_option("-T,--topology-define", in.topology_defines,
                  "set a topology param: -T nodes=4 (mgsim topo lists them)");
}

void add_run_command(CLI::App& app) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a schedule and print the predicted times");
  add_schedule_inputs(cmd, *opts);
  cmd->add_option("--sweep", opts->sweep, "sweep one param: --sweep SIZE=64KiB:1GiB:x2");
  cmd->add_flag("--json", opts->json, "print a machine-readable JSON summary");
  cmd->add_option("--trace", opts->trace, "write a Perfetto/Chrome trace JSON to this file");
  cmd->add_option("--top", opts->top, "unit groups shown in the utilisation table (default 10)");
  cmd->callback([opts] { run_schedule(*opts); });
}

}  // namespace mgsim::cli
