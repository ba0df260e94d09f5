// The schedule language, host level: what each rank's host streams run (issue 2). The tile-level
// `kernels:` section (CTAs, roles, ops) is a sibling top-level key, described and parsed in
// traces/kernel_schedule.hpp; streams run kernels with the `launch` op.
//
//   params:                     # integer parameters with defaults; sizes may carry units
//     SIZE: 1GiB                #   overridable by `mgsim run -D SIZE=4MiB`
//     CHUNK: min(SIZE, 4MiB)    #   a default may use earlier params
//   sweep: {param: SIZE, from: 64KiB, to: 1GiB, factor: 2}   # optional: one run per value
//                             #   (a -D of SIZE runs once instead; traces/simulation.hpp)
//   world: 8                    # ranks taking part (default: the topology's GPU count)
//   buffers:                    # the data ops name (`buffer:`), for `mgsim check`: one instance
//     A: {bytes: M * K * 2, regions: world, input: region == rank}   # per rank, in `regions`
//     C: {bytes: M * N * 2, output: 1}      # parts; input/output: regions valid at start / end
//   streams:
//     - name: main              # one instance per rank (rank = 0 .. world-1) ...
//       if: rank < 2            # ... whose optional condition holds
//       host: 0                 # the host thread that issues its calls (default: rank, one
//                               #   thread per process; one value for all ranks: one thread
//                               #   drives every GPU)
//       ops:
//         - memcpy: {bytes: SIZE, src: rank, dst: (rank + 1) % world}   # src/dst default to rank
//         - record: done                                  # or {event: done, index: i}
//         - wait: {event: done, rank: (rank + 1) % world} # rank defaults to this rank
//         - collective: {op: all_reduce, bytes: SIZE, dtype: bf16}     # as NCCL runs it; or
//           protocol: ll, channels: 8, algorithm: ideal_ring (docs/NCCL.md)
//         - delay: 5us                                    # host time, a duration with a unit
//         - for: {var: i, from: 0, to: 4, step: 1, ops: [...]}   # or {var: p, over: ranks, ops:
//         ...}
//         - launch: {kernel: gemm, args: {TILE: i}}      # or `launch: gemm`
//         - sync: stream                                  # or device: the host waits
//         - graph: [ops]        # a CUDA graph of launch/memcpy/for ops, replayed by one call
//   Every op may carry `if: EXPR` (skipped when 0).
//
// Host and GPU (models/host.hpp): a stream is what one host thread enqueues on one CUDA stream.
// The thread makes each op's API call (paying its host cost; threads serve calls in the order
// they are made) and runs ahead; the GPU runs the enqueued ops in order, each when the previous
// one has finished: a copy, a kernel (launch.latency or launch.gap before it starts), an event
// record, a wait for an event. `delay` and `sync` are host-only: a delay holds the thread, a sync
// blocks it until the stream's (or the rank's) enqueued work is done.
//
// Values are expressions (traces/expr.hpp) over params, `rank`, `world` and loop variables. All
// names resolve when the file is read; values are evaluated lazily, when a stream reaches the op.
//
// Collectives are matched across ranks by stream name and order (the n-th collective of stream
// "main" on every rank is one operation), like NCCL calls on one communicator. `bytes` is the size
// nccl-tests reports: the whole buffer for all_reduce, broadcast and reduce, the gathered output
// for all_gather, the input for reduce_scatter, and the per-rank send buffer for all_to_all; each
// peer transfer is bytes/world.
//
// Contract: load_schedule() throws sim::ConfigError naming file:line:column for any bad input:
// not YAML, unknown keys (with the nearest valid key), wrong types, bad units, names no scope
// defines, events waited for that no stream records.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "models/power.hpp"
#include "sim/config.hpp"
#include "sim/units.hpp"
#include "traces/kernel_schedule.hpp"
#include "traces/nccl/tuner.hpp"
#include "traces/parse_util.hpp"

namespace mgsim::traces {

// send and recv are NCCL's point-to-point calls (ncclSend, ncclRecv) with one `peer`.
enum class CollectiveKind {
  all_reduce,
  all_gather,
  reduce_scatter,
  all_to_all,
  broadcast,
  reduce,
  send,
  recv
};

std::string_view to_string(CollectiveKind k);

struct Dtype {
  std::string name;  // as nccl-tests prints it: "float", "half", "bfloat16", ...
  std::int64_t size = 4;
};

// The syntax tree of a host op: where it is, its condition, and one struct per op kind in a
// std::variant (an op is exactly one kind; no field of another kind can be set).
struct EventRef {
  int name = 0;               // index into Schedule::event_names
  std::optional<Expr> index;  // distinguishes events recorded in a loop; default 0
  std::optional<Expr> rank;   // wait only: whose event; default this rank
};

struct MemcpyOp {
  Expr bytes;
  std::optional<Expr> src;  // default: this rank
  std::optional<Expr> dst;  // default: this rank
  BufferRef data;           // read on src, written on dst (for `mgsim check`)
  // A local copy's: the bytes its pattern passes over again and again (source and destination
  // together); when the L2 keeps them (models::L2Spec::keeps_copy) the source is read from it.
  std::optional<Expr> working_set;
};

struct RecordOp {
  EventRef event;
  // A timing event (CUDA's default) costs the GPU launch.event after the work before it;
  // `timing: false` (cudaEventDisableTiming) costs it nothing (event_gap.csv).
  bool timing = true;
};

struct WaitOp {
  EventRef event;  // with `rank` when it waits on another rank's event
};

// How a collective runs: as NCCL runs it (traces/nccl/: `auto` lets NCCL's tuner choose, `ring`
// and `nvls` force its ring or its NVLS algorithm, as NCCL_ALGO does), or `ideal_ring`: a ring of
// peer copies at the peer path's saturated rate, with no protocol, buffer or SM cost
// (traces/collective.hpp), the most a ring can do.
enum class CollectiveAlgorithm { automatic, ring, nvls, ideal_ring };
std::string_view to_string(CollectiveAlgorithm a);

struct CollectiveOp {
  CollectiveKind kind = CollectiveKind::all_reduce;
  Expr bytes;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::automatic;
  std::optional<nccl::Protocol> protocol;  // NCCL_PROTO; default: NCCL's choice
  std::optional<Expr> channels;            // NCCL_MIN/MAX_NCHANNELS; default: NCCL's choice
  std::optional<Expr> chunk;               // ideal_ring only: pipelining granularity
  std::optional<Expr> root;                // broadcast and reduce: the root rank (default 0)
  std::optional<Expr> peer;                // send and recv: the other rank
  std::optional<Expr> region;              // send and recv: the region of `buffer` (default all)
  Dtype dtype;
  // The data (indices into KernelSet::buffers; -1: not named), for `mgsim check`: `buffer` is
  // read, and written in place unless `output` is named (traces/data_check.hpp says which
  // regions each collective reads and writes).
  int buffer = -1, output = -1;
};

// Runs kernel `kernel` (an index into Schedule::kernels.kernels); the stream continues when its
// last CTA has finished.
struct LaunchOp {
  int kernel = 0;
  std::vector<std::pair<int, Expr>> args;  // (index into the kernel's args, value over the stream)
};

// `delay`: the thread works (busy) for `duration`; `sleep` (idle): it sleeps, and the first API
// call after it pays the host's and the GPU's wake-up (models::HostSpec::wake_1ms ...).
struct DelayOp {
  sim::Duration duration;  // host time, >= 0
  bool idle = false;
};

// cudaStreamSynchronize (this stream) or cudaDeviceSynchronize (every stream of the rank).
struct SynchronizeOp {
  bool device = false;
};

struct Op;

// A CUDA graph: its body (launch, memcpy and for ops only, checked when read) is enqueued by
// one cudaGraphLaunch; kernel nodes after the first are launch.graph_node apart.
struct GraphOp {
  std::vector<Op> body;
};

struct ForOp : LoopRange {
  std::vector<Op> body;
};

// ncclGroupStart .. ncclGroupEnd around sends and receives (collective send / recv ops, `for`
// and `if` around them, checked when read): one NCCL call for all of them, a kernel per p2p round
// (traces/nccl/kernels.yaml, nccl_sendrecv).
struct GroupOp {
  std::vector<Op> body;
};

struct Op {
  sim::SourceLocation where;
  std::optional<Expr> condition;
  std::variant<MemcpyOp, RecordOp, WaitOp, CollectiveOp, DelayOp, ForOp, LaunchOp, SynchronizeOp,
               GraphOp, GroupOp>
      what;
};

// For the walker (traces/walker.hpp): the loop of a `for` op, nullptr for other ops.
inline const ForOp* loop_of(const Op& op) { return std::get_if<ForOp>(&op.what); }

struct StreamDef {
  std::string name;
  sim::SourceLocation where;
  std::optional<Expr> condition;  // which ranks run this stream
  std::optional<Expr> host;       // its host thread; default: the rank
  std::vector<Op> ops;
};

struct Param {
  std::string name;
  Expr default_value;  // may use earlier params
  sim::SourceLocation where;
};

struct Sweep {
  std::string param;
  std::int64_t from = 0, to = 0, factor = 2;  // from, from*factor, ... while <= to
  sim::SourceLocation where;
};

// `power:`: how the GPUs' SM clocks are set (models/power.hpp).
struct PowerSetting {
  // The governor's average at time 0 (idle when not given; given, the hardware needs a power
  // limit).
  std::optional<models::PowerStart> start;
  sim::SourceLocation start_where;
  std::optional<Expr> clock;  // MHz, per rank: locks the SM clock (no governor), as nvidia-smi -lgc
};

struct Schedule {
  std::string file;
  sim::SourceLocation params_where;  // for errors about -D overrides
  std::vector<Param> params;         // slots 0 .. params.size()-1
  int rank_slot = 0;
  int world_slot = 0;
  int slot_count = 0;  // Env size needed (params, rank, world, deepest loop nest)
  std::optional<Expr> world;
  std::optional<Sweep> sweep;
  PowerSetting power;
  std::vector<StreamDef> streams;
  std::vector<std::string> event_names;
  int collective_count = 0;  // collective ops in the file (statically; a group counts once)
  bool nccl = false;         // some collective runs NCCL's kernels (added to `kernels`)
  // Every rank runs the same program and names no other rank: no expression reads `rank`, no
  // stream names its host thread, no op names a peer (a copy's src or dst, a wait's rank, a
  // root, a send's peer), every kernel is local (KernelDef::local; NCCL's are not). Such a
  // schedule on a symmetric fabric may be simulated folded (traces/simulation.hpp).
  bool same_program = false;
  KernelSet kernels;  // the `kernels:` section (empty when absent)
};

// `given_buffers`: a problem's `buffers:` (traces/problem.hpp), parsed in the schedule's scope
// before its own.
Schedule load_schedule(const sim::Node& root, const sim::Node* given_buffers = nullptr);
Schedule load_schedule_file(const std::string& path);

// Values of the params after applying `overrides` ("NAME", "value" as written after -D, with
// units allowed). An override of an undeclared param is a ConfigError at the `params:` key.
Env param_values(const Schedule& s,
                 const std::vector<std::pair<std::string, std::string>>& overrides);

// The sizes a sweep visits, in order.
std::vector<std::int64_t> sweep_values(const Sweep& sweep);

}  // namespace mgsim::traces
