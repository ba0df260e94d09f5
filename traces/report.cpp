#include "traces/report.hpp"

#include <fmt/format.h>

#include "sim/check.hpp"
#include "sim/json.hpp"
#include "traces/roofline_format.hpp"

namespace mgsim::traces {
namespace {

// nccl-tests' busbw / algbw per collective.
double bus_factor(CollectiveKind kind, int n) {
  if (kind == CollectiveKind::all_reduce) return 2.0 * (n - 1) / n;
  if (kind == CollectiveKind::broadcast || kind == CollectiveKind::reduce ||
      kind == CollectiveKind::send || kind == CollectiveKind::recv)
    return 1.0;
  return static_cast<double>(n - 1) / n;
}

std::string params_text(const Overrides& params, std::string_view sep) {
  std::vector<std::string> p;
  for (const auto& [k, v] : params) p.push_back(fmt::format("{}={}", k, v));
  return fmt::format("{}", fmt::join(p, sep));
}

// " (N ranks simulated, ...)" when symmetric ranks were simulated once, " (every rank simulated:
// why)" when they could not be after all (traces/simulation.hpp).
std::string folded_text(const RunResult& r) {
  if (!r.unfolded.empty()) return fmt::format(" (every rank simulated: {})", r.unfolded);
  if (r.simulated >= r.world) return "";
  return fmt::format(" ({} ranks simulated, each standing for {} symmetric ones)", r.simulated,
                     r.world / r.simulated);
}

std::string single_run_text(const Run& run, std::size_t top, bool critical_path) {
  std::string out;
  if (!run.params.empty()) out += fmt::format("params: {}\n", params_text(run.params, " "));
  const RunResult& r = run.result.run;
  out += fmt::format("{:>5}  {:<16} {:>16} {:>18} {:>8}\n", "rank", "stream", "time (us)",
                     "time (ps)", "ops");
  for (const auto& s : r.streams)
    out += fmt::format("{:>5}  {:<16} {:>16.6f} {:>18} {:>8}\n", s.rank, s.stream,
                       s.end.since_start().microseconds(), s.end.picoseconds(), s.ops);
  out += fmt::format("total: {:.6f} us ({} ps), world {}{}\n", r.end.since_start().microseconds(),
                     r.end.picoseconds(), r.world, folded_text(r));
  for (const ClockResult& c : r.clocks) {
    if (c.capped == sim::Duration::zero()) continue;  // a GPU that stayed at sm.clock
    out += fmt::format(
        "gpu{}: power-limited {:.3f} ms of {:.3f} ms busy, SM clock {:.0f} MHz on average, down "
        "to {:.0f} MHz (sm.clock {:.0f} MHz), {:.3f} J\n",
        c.rank, c.capped.microseconds() * 1e-3, c.busy.microseconds() * 1e-3,
        static_cast<double>(c.mean_clock.hertz()) * 1e-6,
        static_cast<double>(c.min_clock.hertz()) * 1e-6,
        static_cast<double>(c.max_clock.hertz()) * 1e-6, c.energy_joules);
  }
  out += roofline_summary(run.result.roofline, top);
  const std::vector<PathStep>& path = r.critical_path;
  if (!critical_path || path.empty()) return out;
  const double total = std::max(1.0, static_cast<double>(r.end.picoseconds()));
  const std::vector<PathShare> shares = path_shares(path);
  out += fmt::format("critical path: {} steps; where its time went (top {} of {}):\n", path.size(),
                     std::min(top, shares.size()), shares.size());
  for (std::size_t i = 0; i < shares.size() && i < top; ++i)
    out += fmt::format("  {:>14.3f} us {:>6.1f} %  {:>6} x  {:<24} {}\n",
                       shares[i].held.microseconds(),
                       100.0 * static_cast<double>(shares[i].held.picoseconds()) / total,
                       shares[i].steps, shares[i].place, shares[i].what);
  return out;
}

// One row per point: what changed, what it took, and where the bound is.
std::string sweep_text(const std::vector<Run>& runs) {
  std::string out =
      fmt::format("{:>5}  {:>16} {:>18} {:>14} {:>9}  {:<24} {}\n", "point", "total (us)",
                  "total (ps)", "bound (us)", "fraction", "bottleneck", "params");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Result& r = runs[i].result;
    const UnitTerm* b = r.roofline.bottleneck();
    out += fmt::format("{:>5}  {:>16.6f} {:>18} {:>14.6f} {:>9.6f}  {:<24} {}\n", i,
                       r.run.end.since_start().microseconds(), r.run.end.picoseconds(),
                       r.roofline.bound.microseconds(), r.roofline.fraction(), b ? b->group : "-",
                       params_text(runs[i].params, " "));
  }
  return out;
}

// The members every report opens with: what ran on which machine.
sim::JsonWriter& header_json(sim::JsonWriter& w, const ReportHeader& h) {
  return w.key("schedule")
      .value(h.schedule)
      .key("topology")
      .value(h.machine->topology().name)
      .key("hw")
      .value(h.machine->hardware().name);
}

std::string nccl_table(const std::vector<Run>& runs) {
  const RunResult& first = runs.front().result.run;
  std::string out = "#\n";
  out += fmt::format("# {} ({}), world {}{}\n", to_string(first.collectives.front().kind),
                     first.collectives.front().stream, first.world, folded_text(first));
  // nccl-tests' columns, then what NCCL_DEBUG=INFO would say it chose.
  out += fmt::format(
      "#{:>11}  {:>12}  {:>8}  {:>6}  {:>6}  {:>9}  {:>7}  {:>7}  {:<10} {:<6} {:>3}\n", "size",
      "count", "type", "redop", "root", "time", "algbw", "busbw", "algorithm", "proto", "ch");
  out += fmt::format("#{:>11}  {:>12}  {:>8}  {:>6}  {:>6}  {:>9}  {:>7}  {:>7}\n", "(B)",
                     "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)");
  for (const Run& run : runs) {
    const CollectiveResult& c = run.result.run.collectives.front();
    const CollectiveRow r = collective_row(c);
    out += fmt::format(
        "{:>12}  {:>12}  {:>8}  {:>6}  {:>6}  {:>9.2f}  {:>7.2f}  {:>7.2f}  {:<10} {:<6} {:>3}\n",
        r.size, r.count, r.type, r.redop, c.root, r.time_us, r.algbw, r.busbw, c.algorithm,
        c.protocol, c.channels);
  }
  return out;
}

// A run's clocks (power-governed GPUs) and critical path (when recorded), as two arrays.
void power_and_path_json(sim::JsonWriter& w, const RunResult& r) {
  w.key("critical_path").array();
  for (const PathStep& p : r.critical_path)
    w.object()
        .key("place")
        .value(step_place(p))
        .key("what")
        .value(step_label(p))
        .key("begin_ps")
        .value(p.begin.picoseconds())
        .key("end_ps")
        .value(p.end.picoseconds())
        .end();
  w.end().key("clocks").array();
  for (const ClockResult& c : r.clocks)
    w.object()
        .key("rank")
        .value(c.rank)
        .key("min_clock_hz")
        .value(c.min_clock.hertz())
        .key("mean_clock_hz")
        .value(c.mean_clock.hertz())
        .key("capped_ps")
        .value(c.capped.picoseconds())
        .key("busy_ps")
        .value(c.busy.picoseconds())
        .key("energy_j")
        .value(c.energy_joules, 6)
        .end();
  w.end();
}

}  // namespace

CollectiveRow collective_row(const CollectiveResult& c) {
  const sim::Duration t = c.end - c.begin;
  const double algbw = t.picoseconds() > 0 ? static_cast<double>(c.bytes) / t.seconds() * 1e-9 : 0;
  const bool reduces = c.kind == CollectiveKind::all_reduce ||
                       c.kind == CollectiveKind::reduce_scatter || c.kind == CollectiveKind::reduce;
  // nccl-tests' count column: elements per rank's send buffer for all_reduce, broadcast and
  // reduce (size / type), and size / type / nranks for the others, whose size is the whole
  // gathered/scattered buffer.
  const std::int64_t elements = c.bytes / c.dtype.size;
  const bool whole = c.kind == CollectiveKind::all_reduce || c.kind == CollectiveKind::broadcast ||
                     c.kind == CollectiveKind::reduce || c.kind == CollectiveKind::send ||
                     c.kind == CollectiveKind::recv;
  const std::int64_t count = whole ? elements : elements / c.ranks;
  return {c.bytes,
          count,
          c.dtype.name,
          reduces ? "sum" : "none",
          t.microseconds(),
          algbw,
          algbw * bus_factor(c.kind, c.ranks)};
}

std::string runs_text(const ReportHeader& h, const std::vector<Run>& runs, std::size_t top,
                      bool collective_table, bool critical_path) {
  MGSIM_CHECK(!runs.empty() && h.machine, "a report needs a machine and at least one run");
  const topologies::Topology& topo = h.machine->topology();
  std::string out = fmt::format("schedule {} on {} ({} GPUs, hw {})\n", h.schedule, topo.name,
                                topo.gpu_count(), h.machine->hardware().name);
  if (runs.size() == 1) out += single_run_text(runs.front(), top, critical_path);
  if (collective_table) return out + nccl_table(runs);
  if (runs.size() > 1) out += sweep_text(runs);
  return out;
}

std::string runs_json(const ReportHeader& h, const std::vector<Run>& runs) {
  MGSIM_CHECK(h.machine, "a report needs a machine");
  std::string out;
  sim::JsonWriter w(out);
  header_json(w.object(), h).key("runs").array();
  for (const Run& run : runs) {
    const RunResult& r = run.result.run;
    w.object().key("params").object();
    for (const auto& [name, value] : run.params) w.key(name).raw(value);
    w.end().key("world").value(r.world).key("simulated_ranks").value(r.simulated);
    if (!r.unfolded.empty()) w.key("unfolded").value(r.unfolded);
    w.key("end_ps").value(r.end.picoseconds());
    w.key("streams").array();
    for (const StreamResult& s : r.streams)
      w.object()
          .key("rank")
          .value(s.rank)
          .key("stream")
          .value(s.stream)
          .key("end_ps")
          .value(s.end.picoseconds())
          .key("ops")
          .value(s.ops)
          .end();
    w.end().key("collectives").array();
    for (const CollectiveResult& c : r.collectives) {
      const CollectiveRow row = collective_row(c);
      w.object()
          .key("op")
          .value(to_string(c.kind))
          .key("stream")
          .value(c.stream)
          .key("size")
          .value(row.size)
          .key("count")
          .value(row.count)
          .key("type")
          .value(row.type)
          .key("redop")
          .value(row.redop)
          .key("ranks")
          .value(c.ranks)
          .key("root")
          .value(c.root)
          .key("begin_ps")
          .value(c.begin.picoseconds())
          .key("end_ps")
          .value(c.end.picoseconds())
          .key("time_us")
          .value(row.time_us, 6)
          .key("algbw_GBps")
          .value(row.algbw, 6)
          .key("busbw_GBps")
          .value(row.busbw, 6)
          .key("algorithm")
          .value(c.algorithm)
          .key("protocol")
          .value(c.protocol)
          .key("channels")
          .value(c.channels)
          .end();
    }
    w.end();
    power_and_path_json(w, r);
    w.key("kernels").array();
    for (const KernelResult& k : r.kernels) {
      w.object()
          .key("rank")
          .value(k.rank)
          .key("stream")
          .value(k.stream)
          .key("kernel")
          .value(k.kernel)
          .key("begin_ps")
          .value(k.begin.picoseconds())
          .key("end_ps")
          .value(k.end.picoseconds());
      w.key("roles").array();
      for (const KernelRunner::RoleTime& r : k.roles)
        w.object()
            .key("role")
            .value(r.role)
            .key("begin_ps")
            .value(r.begin.picoseconds())
            .key("end_ps")
            .value(r.end.picoseconds())
            .end();
      w.end().end();
    }
    w.end().key("roofline").raw(roofline_json(run.result.roofline)).end();
  }
  w.end().end();
  return out + "\n";
}

std::string bound_text(const ReportHeader& h, const Result& run) {
  MGSIM_CHECK(h.machine, "a report needs a machine");
  const topologies::Topology& topo = h.machine->topology();
  return fmt::format("roofline of {} on {} ({} GPUs, hw {})\n", h.schedule, topo.name,
                     topo.gpu_count(), h.machine->hardware().name) +
         roofline_table(run.roofline) +
         fmt::format("predicted: {:.6f} us ({} ps), fraction of the bound {:.6f}\n",
                     run.run.end.since_start().microseconds(), run.run.end.picoseconds(),
                     run.roofline.fraction());
}

std::string bound_json(const ReportHeader& h, const Result& run) {
  MGSIM_CHECK(h.machine, "a report needs a machine");
  std::string out;
  sim::JsonWriter w(out);
  header_json(w.object(), h).key("roofline").raw(roofline_json(run.roofline)).end();
  return out + "\n";
}

std::string deadlock_report(const std::string& schedule, const RunResult& run) {
  MGSIM_CHECK(!run.blocked.empty(), "deadlock_report of a run that finished");
  std::string out = fmt::format("{}: error: the schedule deadlocked at {} ps; blocked:", schedule,
                                run.end.picoseconds());
  for (const BlockedStream& b : run.blocked)
    out += fmt::format("\n  {}:{}:{}: rank {} stream '{}' waits for {}", b.where.file, b.where.line,
                       b.where.column, b.rank, b.stream, b.waiting_for);
  return out;
}

std::string deadlock_summary(const std::string& schedule, const RunResult& run) {
  MGSIM_CHECK(!run.blocked.empty(), "deadlock_summary of a run that finished");
  const BlockedStream& b = run.blocked.front();
  return fmt::format(
      "{}: error: the schedule deadlocked at {} ps ({} blocked; first: {}:{}:{}: rank {} "
      "stream '{}' waits for {}); `mgsim run` reports all of them",
      schedule, run.end.picoseconds(), run.blocked.size(), b.where.file, b.where.line,
      b.where.column, b.rank, b.stream, b.waiting_for);
}

std::string violations_text(const std::vector<Violation>& violations) {
  std::string out;
  for (const Violation& v : violations)
    out += fmt::format("{}:{}:{}: {}: {}{}\n", v.where.file, v.where.line, v.where.column, v.kind,
                       v.message, v.count > 1 ? fmt::format(" ({} times)", v.count) : "");
  return out;
}

std::string violations_json(const std::vector<Violation>& violations) {
  std::string out;
  sim::JsonWriter j(out, sim::JsonWriter::Style::compact);
  j.array();
  for (const Violation& v : violations) {
    j.object();
    j.key("kind").value(v.kind).key("file").value(v.where.file);
    j.key("line").value(v.where.line).key("column").value(v.where.column);
    j.key("message").value(v.message).key("count").value(v.count);
    j.end();
  }
  j.end();
  return out;
}

std::string evaluation_json(const Evaluation& e, sim::Duration baseline) {
  const double time = e.result.run.end.since_start().microseconds();
  std::string out;
  sim::JsonWriter j(out, sim::JsonWriter::Style::compact);
  j.object();
  j.key("valid").raw(e.valid() ? "true" : "false");
  j.key("time_us").value_shortest(time);
  j.key("baseline_us").value_shortest(baseline.microseconds());
  j.key("speedup").value_shortest(baseline.microseconds() / time);
  j.key("bound_us").value_shortest(e.bound.microseconds());
  j.key("fraction").value_shortest(e.bound.microseconds() / time);
  j.key("violations").raw(violations_json(e.violations));
  j.end();
  return out;
}

}  // namespace mgsim::traces
