// Runs a host-level schedule on an engine: every (rank, stream) walks its op list lazily (loops and
// values are evaluated when reached, nothing is expanded up front), copies go through Transfers
// (copy engines, HBM, the fabric's fluid resources) and collectives through CollectiveRun.
//
// Semantics (traces/schedule.hpp, models/host.hpp):
//   - a stream's host thread makes its ops' API calls in order, each holding the thread for its
//     host cost (launch, memcpy, event record, stream wait, graph launch; a collective is NCCL's
//     calls: a stream join each way and a kernel launch); streams sharing a thread (by default
//     every stream of a rank) have their calls served in the order they are made;
//   - the GPU runs a stream's enqueued ops in order, an op when the previous one has finished and
//     its call has returned; a kernel (a launch, a collective's part with sm_copies) starts
//     launch.latency after its call when the stream was idle, launch.gap after the previous op
//     when it was queued, launch.graph_node after the previous node inside a graph;
//   - record marks (rank, event, index) as happened when the GPU reaches it; wait holds the GPU
//     stream until it has (the host goes on);
//   - sync blocks the host thread until the stream's (device: the rank's streams') enqueued work
//     is done, then host.sync more;
//   - collectives match across ranks by (stream name, occurrence): the n-th collective of stream
//     "main" on every rank is one operation; all ranks of the world take part;
//   - delay holds the host thread for a fixed time.
// Results are deterministic: the same schedule, params and machine give the same picoseconds.
// A schedule that can never finish (a wait no record satisfies, a collective a rank never reaches)
// ends when nothing is left to happen and is reported in RunResult::blocked, never a hang.
//
// Errors in values found while running (a rank outside the world, a zero size, a division by
// zero) are sim::ConfigError naming the YAML value, as at load time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/hardware_spec.hpp"
#include "models/resource_catalog.hpp"
#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "sim/units.hpp"
#include "traces/collective.hpp"
#include "traces/critical_path.hpp"
#include "traces/data_check.hpp"
#include "traces/kernel_exec.hpp"
#include "traces/schedule.hpp"
#include "traces/transfers.hpp"
#include "traces/walker.hpp"

namespace mgsim::traces {

struct StreamResult {
  int rank = 0;
  std::string stream;
  sim::Time end;         // when its last op finished on the GPU (or the host, if later)
  sim::Time host_end;    // when its host thread returned from its last call (a sync included)
  std::int64_t ops = 0;  // ops executed (after loops and conditions)
};

// When the GPU reached a record op: what cudaEventElapsedTime measures between two of them.
struct EventResult {
  int rank = 0;
  std::string event;
  std::int64_t index = 0;
  sim::Time at;
};

struct CollectiveResult {
  CollectiveKind kind = CollectiveKind::all_reduce;
  std::string stream;
  std::int64_t bytes = 0;
  Dtype dtype;
  int ranks = 0;
  sim::Time begin;             // first rank reached it
  sim::Time end;               // last rank finished it
  std::int64_t sends = 0;      // peer transfers (ideal ring) or slice handovers (NCCL), all ranks
  std::string algorithm;       // "ring" or "p2p" (NCCL's), or "ideal_ring"
  std::string protocol = "-";  // NCCL's: "LL", "LL128", "Simple"
  int channels = 0;            // NCCL's channels (CTAs per rank); an ideal ring's rings
  int root = -1;               // broadcast, reduce: the root rank (-1: none, as nccl-tests prints)
};

struct BlockedStream {
  int rank = 0;
  std::string stream;
  std::string waiting_for;  // "event 'done' (index 0) on rank 3", "rank 2 to reach the all_reduce"
  sim::SourceLocation where;  // the op it is blocked in
};

// One kernel launch: from the moment its stream's GPU side reached the launch (the start latency
// is inside) until its last CTA finished.
struct KernelResult {
  int rank = 0;
  std::string stream;
  std::string kernel;
  sim::Time begin, end;
  std::vector<KernelRunner::RoleTime> roles;  // when each role ran, over its CTAs
};

// What `mgsim check` found in a run (traces/data_check.hpp).
struct CheckResult {
  std::vector<Violation> violations;
  std::vector<std::int64_t> flops;  // mma and mainloop flops per rank
};

// What a GPU's power governor did (models/power.hpp), for GPUs whose hardware has a power limit.
struct ClockResult {
  int rank = 0;
  sim::Frequency max_clock;    // sm.clock
  sim::Frequency min_clock;    // the lowest clock the governor set
  sim::Frequency mean_clock;   // over the busy time
  sim::Duration capped;        // time run below sm.clock
  sim::Duration busy;          // time with a kernel running
  double energy_joules = 0.0;  // modelled board energy while busy
};

struct RunResult {
  int world = 0;
  // Ranks simulated: the world, or fewer when symmetric ranks were simulated once (a folded
  // run, traces/simulation.hpp), each standing for world / simulated ranks; every rank's
  // results are given either way.
  int simulated = 0;
  // Why a run that could have been folded simulated every rank after all (SymmetryBroken's
  // message: "a ring's 134217728 bytes make segments of unequal sizes over 576 ranks"), else "".
  std::string unfolded;
  std::vector<StreamResult> streams;  // finished streams, by rank then stream order in the file
  std::vector<KernelResult> kernels;  // finished launches, in the order they finished
  std::vector<CollectiveResult> collectives;  // in order of first arrival
  std::vector<EventResult> recorded;          // record ops, in the order the GPUs reached them
  std::vector<BlockedStream> blocked;         // non-empty: the schedule deadlocked
  sim::Time end;                              // the last event
  std::uint64_t events = 0;                   // simulated (a folded run's are its simulated ranks')
  std::optional<CheckResult> check;           // when the run was checked
  std::vector<ClockResult> clocks;            // by rank, for governed GPUs
  std::vector<PathStep> critical_path;        // when asked and the run finished
};

// How a run goes, besides its inputs.
struct ExecuteOptions {
  CollectiveTransport transport = CollectiveTransport::sm_copies;  // moves the collectives' bytes
  std::int64_t max_ops = OpBudget::kDefaultLimit;                  // the run's op budget
  bool check = false;          // the data check follows the run (traces/data_check.hpp): run.check
  bool critical_path = false;  // run.critical_path (traces/critical_path.hpp)
};

// `params` from param_values(). The world is the schedule's `world` or the fabric's GPU count;
// every rank's GPU is a models::Gpu of `hardware`.
// REQUIRES: net uses `engine`; the fabric's resources live in `net`.
// `catalog`, if given, gets every resource the run creates (models/gpu.hpp lists them), for the
// roofline (roofline.hpp); it must outlive the call only.
RunResult execute(const Schedule& schedule, const Env& params, sim::Engine& engine,
                  sim::FluidNetwork& net, Interconnect& fabric,
                  const models::HardwareSpec& hardware, models::ResourceCatalog* catalog = nullptr,
                  const ExecuteOptions& options = {});

}  // namespace mgsim::traces
