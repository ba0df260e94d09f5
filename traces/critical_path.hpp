// The critical path of a run: the chain of ops that set its end time, each with the time it held
// the chain (issue 12's report; `mgsim run --critical-path`).
//
// The executor records every host call and every op a stream runs on its GPU (a Step) with what
// could have held it back: the stream's previous op, the host call that enqueued it, the record a
// wait waited for, the GPU work a sync waited for; a host call, the previous call on its thread and
// the stream's previous call. Walking back from the op that ended last, each step's predecessor is
// the one of those that finished last; the step held the chain from then to its own end (a kernel's
// share includes its launch latency). A collective is held by the rank that reached it last: the
// chain goes on from that rank. Kernels are single steps: flags between kernels of different GPUs
// do not move the chain from one to the other.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/units.hpp"

namespace mgsim::traces {

struct Step {
  bool host = false;  // a host call (on thread `thread`), else an op on a stream's GPU queue
  int rank = 0;
  int thread = 0;          // host calls: the host thread's id
  std::string_view where;  // the stream's name (outlives the run: the schedule's)
  std::string_view what;   // "cudaLaunchKernel", "gemm", "all_reduce", "wait" (static)
  sim::Time begin, end = sim::Time::max();  // end: max while unfinished
  int prev = -1;   // the stream's previous GPU op; a host call's previous call on its thread
  int call = -1;   // a GPU op: the call that enqueued it; a host call: the stream's previous
  int cause = -1;  // a wait: the record it waited for; a sync: the GPU op it waited for last
  int group = -1;  // a collective's steps on every rank share one group
};

struct PathStep {
  bool host = false;
  int rank = 0;
  int thread = 0;
  std::string where, what;
  sim::Time begin, end;  // the time this step held the chain (ends at its own end)
  int waited_for = -1;   // a collective held by a later rank: that rank
};

// Where a step ran: "host thread 0" or "rank 1 stream main".
std::string step_place(const PathStep& p);
// What it was: "gemm", "all_reduce (after rank 3)".
std::string step_label(const PathStep& p);

// The path's time by place and op, largest first: what to shorten to finish sooner.
struct PathShare {
  std::string place, what;
  int steps = 0;
  sim::Duration held;
};
std::vector<PathShare> path_shares(const std::vector<PathStep>& path);

// From the finished GPU op that ended last (or, with none, the host call) back to the start, in
// time order. Empty when `steps` is. REQUIRES: indices in steps point to earlier steps.
std::vector<PathStep> critical_path(const std::vector<Step>& steps);

}  // namespace mgsim::traces
