// A problem: what an agent (or an engineer) is asked to write, with the baseline to beat.
//
//   problem: ag_gemm
//   summary: C = all_gather(A) @ B, A sharded by rows       # one line for listings
//   params: {M: 16384, N: 4096, K: 4096}                     # the shape's names and defaults
//   shapes: [{M: 16384}, {M: 4096, K: 8192}]                 # the instances (default: params)
//   topologies: [hgx-h200-8, gb200-nvl72]                    # machines it is posed on
//   buffers:                                                 # what each rank starts and ends
//     A: {bytes: M * K * 2, regions: world, input: region == rank}   # with (traces/schedule.hpp)
//     B: {bytes: K * N * 2, input: 1}
//     C: {bytes: M * N * 2, output: 1}
//   work:                                                    # what the result requires
//     flops: 2 * M * N * K                                   #   mma flops on every rank
//     dtype: bf16                                            #   their type (the peak they run at)
//     receive: (world - 1) * M / world * K * 2               #   bytes every rank must receive
//   baseline: ../examples/field/ag_gemm_collective.yaml      # as practitioners write it today
//   tuned: ../examples/kernels/ag_gemm_inter_sm.yaml         # optional: a faster schedule
//
// A schedule for the problem uses the problem's buffers (they are parsed in the schedule's scope,
// so it declares the params they use; it cannot redeclare them, and buffers of its own are
// scratch: no input, no output) and is run with the shape's params. `evaluate` checks it
// (traces/data_check.hpp) and that every rank did the work's flops, runs it, and compares its time
// with the baseline's and with the problem's bound: the time the required work needs at the
// machine's peaks, max(flops / the GPU's dense peak for dtype, receive / the GPU's NVLink data
// bandwidth in), which does not depend on what the schedule did.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/sm.hpp"
#include "sim/config.hpp"
#include "traces/simulation.hpp"

namespace mgsim::traces {

struct Problem {
  std::string name, summary, file;
  sim::SourceLocation where;
  std::vector<Param> params;                              // over each other, in order
  std::vector<std::vector<std::pair<int, Expr>>> shapes;  // param index -> its value
  std::vector<std::string> topologies;
  sim::Node buffers;
  Expr flops, receive;  // per rank, over params and world (slots: params, then world)
  sim::SourceLocation work_where;
  models::Dtype dtype = models::Dtype::bf16;
  std::string baseline, tuned;  // paths (relative ones resolved against the problem's folder)
  int world_slot = 0;
};

Problem load_problem(const std::string& path);

// The shape's params as -D overrides of a schedule (every param, in the problem's order).
Overrides shape_defines(const Problem& p, std::size_t shape);

// `path` (or `text` when not empty, named `path` in messages) as a schedule for `p`.
Schedule load_problem_schedule(const Problem& p, const std::string& path,
                               const std::string& text = {});
Schedule load_problem_schedule(const Problem& p, const sim::Node& root);

struct Evaluation {
  std::vector<Violation> violations;  // the data check's, missing flops, a deadlock
  bool valid() const { return violations.empty(); }
  Result result;                        // the run (its time: result.run.end)
  sim::Duration bound;                  // the problem's, from its work
  std::int64_t flops = 0, receive = 0;  // the work per rank
};

// `violations` with a "deadlock" violation appended when `run` deadlocked (its first blocked
// stream, where it waits and on what).
std::vector<Violation> with_deadlock(std::vector<Violation> violations, const Result& run);

// Runs `schedule` (loaded by load_problem_schedule) checked, with shape `shape` and `defines`
// for the schedule's other params (a ConfigError for a param of the problem's), on `machine`.
Evaluation evaluate(const Problem& p, std::size_t shape, const Schedule& schedule,
                    const Machine& machine, const Limits& limits = {},
                    const Overrides& defines = {});

}  // namespace mgsim::traces
