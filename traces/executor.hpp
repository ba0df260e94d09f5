// Runs a host-level schedule on an engine: every (rank, stream) walks its op list lazily (loops and
// values are evaluated when reached, nothing is expanded up front), copies go through Transfers
// (copy engines, HBM, the fabric's fluid resources) and collectives through CollectiveRun.
//
// Semantics:
//   - a stream runs its ops in order; an op starts when the previous one has finished;
//   - record marks (rank, event, index) as happened, at once; wait blocks until it has;
//   - collectives match across ranks by (stream name, occurrence): the n-th collective of stream
//     "main" on every rank is one operation; all ranks of the world take part;
//   - delay holds the stream for a fixed time.
// Results are deterministic: the same schedule, params and machine give the same picoseconds.
// A schedule that can never finish (a wait no record satisfies, a collective a rank never reaches)
// ends when nothing is left to happen and is reported in RunResult::blocked, never a hang.
//
// Errors in values found while running (a rank outside the world, a zero size, a division by
// zero) are sim::ConfigError naming the YAML value, as at load time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/hardware_spec.hpp"
#include "models/resource_catalog.hpp"
#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "sim/units.hpp"
#include "traces/collective.hpp"
#include "traces/schedule.hpp"
#include "traces/transfers.hpp"
#include "traces/walker.hpp"

namespace mgsim::traces {

struct StreamResult {
  int rank = 0;
  std::string stream;
  sim::Time end;         // when its last op finished
  std::int64_t ops = 0;  // ops executed (after loops and conditions)
};

struct CollectiveResult {
  CollectiveKind kind = CollectiveKind::all_reduce;
  std::string stream;
  std::int64_t bytes = 0;
  Dtype dtype;
  int ranks = 0;
  sim::Time begin;  // first rank reached it
  sim::Time end;    // last rank finished it
  std::int64_t sends = 0;
};

struct BlockedStream {
  int rank = 0;
  std::string stream;
  std::string waiting_for;  // "event 'done' (index 0) on rank 3", "rank 2 to reach the all_reduce"
  sim::SourceLocation where;  // the op it is blocked in
};

// One kernel launch: from the moment its stream reached the launch op (the launch cost is inside)
// until its last CTA finished.
struct KernelResult {
  int rank = 0;
  std::string stream;
  std::string kernel;
  sim::Time begin, end;
};

struct RunResult {
  int world = 0;
  std::vector<StreamResult> streams;  // finished streams, by rank then stream order in the file
  std::vector<KernelResult> kernels;  // finished launches, in the order they finished
  std::vector<CollectiveResult> collectives;  // in order of first arrival
  std::vector<BlockedStream> blocked;         // non-empty: the schedule deadlocked
  sim::Time end;                              // the last event
  std::uint64_t events = 0;
};

// `params` from param_values(). The world is the schedule's `world` or the fabric's GPU count;
// every rank's GPU is a models::Gpu of `hardware`. `transport` moves the collectives' bytes.
// REQUIRES: net uses `engine`; the fabric's resources live in `net`.
// `catalog`, if given, gets every resource the run creates (models/gpu.hpp lists them), for the
// roofline (roofline.hpp); it must outlive the call only.
RunResult execute(const Schedule& schedule, const Env& params, sim::Engine& engine,
                  sim::FluidNetwork& net, Interconnect& fabric,
                  const models::HardwareSpec& hardware, models::ResourceCatalog* catalog = nullptr,
                  CollectiveTransport transport = CollectiveTransport::sm_copies,
                  std::int64_t max_ops = OpBudget::kDefaultLimit);

}  // namespace mgsim::traces
