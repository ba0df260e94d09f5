// What a simulation's results read as: the text tables and JSON that `mgsim run` and `mgsim bound`
// print, the nccl-tests table of a collective sweep, and the deadlock report. Front ends print
// these strings; they compute nothing themselves.
//
// Contract: every function is a pure function of its arguments (fixed decimal places, results in
// the order the simulation returned them), so the same runs give the same bytes.
// busbw follows nccl-tests' doc/PERFORMANCE.md: all_reduce algbw x 2(n-1)/n; all_gather,
// reduce_scatter and all_to_all algbw x (n-1)/n; algbw = size / time in GB/s (1e9 B/s).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "traces/problem.hpp"
#include "traces/simulation.hpp"

namespace mgsim::traces {

// One row of nccl-tests' output for a collective.
struct CollectiveRow {
  std::int64_t size = 0;   // bytes, as nccl-tests reports them (schedule.hpp)
  std::int64_t count = 0;  // elements: per rank's send buffer for all_reduce, size/type/n else
  std::string type, redop;
  double time_us = 0, algbw = 0, busbw = 0;  // GB/s
};
CollectiveRow collective_row(const CollectiveResult& c);

// What a run report names besides the results: the schedule's file and the machine.
struct ReportHeader {
  std::string schedule;  // as the user gave it
  const Machine* machine = nullptr;
};

// `mgsim run`'s text: a header; for a single run its params, the time per rank and stream, the
// total and the roofline summary (the `top` most utilised unit groups); for a sweep one row per
// point (params, total, bound, fraction, bottleneck), or, when `collective_table` holds (the
// schedule is one collective), the nccl-tests table. With `critical_path`, a single run's
// critical path (where its time went, the `top` largest shares) when it was recorded.
std::string runs_text(const ReportHeader& h, const std::vector<Run>& runs, std::size_t top,
                      bool collective_table, bool critical_path = false);

// `mgsim run --json`: {"schedule", "topology", "hw", "runs": [{"params", "world", "end_ps",
// "streams", "collectives", "kernels" (each launch, with "roles": when each role ran over its
// CTAs), "roofline"}, ...]}.
std::string runs_json(const ReportHeader& h, const std::vector<Run>& runs);

// `mgsim bound`'s text: a header, the roofline table, the predicted time and the fraction.
std::string bound_text(const ReportHeader& h, const Result& run);
// `mgsim bound --json`: {"schedule", "topology", "hw", "roofline"}.
std::string bound_json(const ReportHeader& h, const Result& run);

// "<schedule>: error: the schedule deadlocked at N ps; blocked:" and one line per blocked stream
// (file:line:column of the op, rank, stream, what it waits for). No trailing newline.
// REQUIRES: !run.blocked.empty().
std::string deadlock_report(const std::string& schedule, const RunResult& run);
// The same in one line, naming the first blocked stream and how many there are.
std::string deadlock_summary(const std::string& schedule, const RunResult& run);

// `mgsim check`'s findings: one line each, "file:line:column: kind: message (N times)".
std::string violations_text(const std::vector<Violation>& violations);
// As a JSON array of {"kind", "file", "line", "column", "message", "count"}.
std::string violations_json(const std::vector<Violation>& violations);
// A schedule's evaluation against a problem, its baseline's time beside it: {"valid", "time_us",
// "baseline_us", "speedup", "bound_us", "fraction", "violations"}.
std::string evaluation_json(const Evaluation& e, sim::Duration baseline);

}  // namespace mgsim::traces
