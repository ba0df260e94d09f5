// The schedule language, tile level: the top-level `kernels:` section (issue 3). A kernel is a grid
// of CTAs; each CTA runs one or more concurrent roles; a role is a list of ops run in order.
//
//   kernels:
//     ag_gemm:
//       grid: num_sms             # CTAs (an expression; `num_sms` is the GPU's SM count)
//       threads: 256              # per CTA                      } occupancy: CTAs per SM from
//       registers: 168            # per thread                   } these and the SM's budgets
//       shared_memory: 160KiB     # per CTA                      } (models::SmSpec::ctas_per_sm)
//       persistent: true          # all CTAs resident at once (else: waves as slots free)
//       cluster: 2                # CTAs per thread-block cluster (default 1): what TMA
//                                 # multicast (load's and mainloop's `multicast`) shares among
//       args: {CHUNK: 0}          # kernel arguments with defaults; `launch` may bind them
//       roles:
//         - name: comm
//           if: cta < COMM_SMS    # which CTAs run this role (default: all)
//           ops:
//             - store: {bytes: 1MiB, peer: (rank + 1) % world, via: tma, buffer: A}
//             - signal: {flag: ready, index: rank, rank: (rank + 1) % world, add: 1}
//         - name: math
//           if: cta >= COMM_SMS
//           ops:
//             - wait: {flag: ready, index: (rank + world - 1) % world, value: 1}
//             - mainloop: {m: 128, n: 256, k: K, k_tile: 64, stages: 4, dtype: bf16}
//   streams:
//     - name: main
//       ops:
//         - launch: {kernel: ag_gemm, args: {CHUNK: 3}}    # or `launch: ag_gemm`
//
// Ops of a role (each may carry `if: EXPR`):
//   load / store {bytes, peer (rank; default local), via: tma|ldst|multimem (default tma),
//                 buffer (a name under `buffers:`), region (expr; default every region)}
//                 a transfer between HBM and the SM
//   load ... multicast (CTAs, via tma, default 1)     the load lands in that many CTAs of the
//                 cluster, read from memory once for them all
//   load ... working_set (bytes, optional)            the bytes the access pattern re-reads:
//                 part of the load hits the owner's L2 (models::L2Spec::hit_fraction); without
//                 it every byte comes from HBM (data streamed once)
//   store ... add (bool, default false, via tma only)  a store-add (cp.reduce.async.bulk .add): the
//                 destination's L2 adds the bytes into memory (read-modify-write)
//   reduce {bytes, via: multimem (the only choice), buffer, region}   in-network reduction
//   mma {m, n, k, dtype, a, b}                        2*m*n*k flops on the SM's tensor pipe;
//                 a, b: the operands' buffer (a name, or {buffer, region}), for `mgsim check`
//   compute {flops, dtype (default fp32)} | {cycles}  flops on the SM's pipe, or a fixed delay
//   mainloop {m, n, k, k_tile, stages, dtype, peer?, a, b}   a pipelined TMA+MMA K-loop
//                 (see kernel_exec); a, b as for mma
//   signal {flag, index (default 0), rank (default local), value | add}   set or add to a flag
//   wait {flag, index (default 0), value, rank (default local)}           block until flag >= value
//   arrive {barrier}  /  sync {barrier, count (default 1)}   CTA-local barrier between roles: the
//                     n-th sync of a role on a barrier waits for n * count arrivals at it
//   for {var, from, to, step, ops}  or  for {var, over: ranks, ops}
//
// Names bound inside a kernel: the params, `rank`, `world`, `num_sms`, the kernel's args (whose
// defaults may use the names before them), `cta` (the CTA's index in the grid; not in grid,
// threads, registers, shared_memory or args) and loop variables.
// Everything resolves when the file is read (unknown names and keys are ConfigErrors naming
// file:line:column with the nearest valid name); values are evaluated lazily, when a role reaches
// the op. Buffers and regions cost nothing: they say which data an op reads and writes, for
// `mgsim check` (traces/data_check.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "models/sm.hpp"
#include "sim/config.hpp"
#include "sim/expr.hpp"
#include "traces/parse_util.hpp"

namespace mgsim::traces {

enum class Via { tma, ldst, multimem };
std::string_view to_string(Via v);

// The syntax tree of a kernel op: where it is, its condition, and one struct per op kind in a
// std::variant (an op is exactly one kind; no field of another kind can be set). Each kind's
// kName is its key in the YAML, which the timeline and messages show.

// A named piece of memory (the schedule's top-level `buffers:`, traces/schedule.hpp): one
// instance on every rank (symmetric memory), in `regions` equal parts. What it holds when the
// run starts (`input`) and must hold at its end (`output`) are expressions over the params,
// `rank`, `world` and `region`, nonzero for the regions they cover.
struct BufferDef {
  std::string name;
  sim::SourceLocation where;
  Expr bytes;    // per rank
  Expr regions;  // default 1
  std::optional<Expr> input, output;
  // The inputs an output's data must come from: (buffer index, every rank's or only its own).
  std::vector<std::pair<int, bool>> needs;
  int region_slot = 0;  // where `region` is bound for input and output
  bool given = false;   // declared by a problem (traces/problem.hpp), not by the schedule
};

// The data an op reads or writes: a buffer and one of its regions (every region when unset).
struct BufferRef {
  int buffer = -1;  // index into KernelSet::buffers; -1 when not named (not checked)
  std::optional<Expr> region;
};

// What load, store and reduce share: a transfer between memory and the SM.
struct TransferOp {
  Expr bytes;
  std::optional<Expr> peer;  // the rank whose memory it reads or writes; default this rank
  Via via = Via::tma;
  BufferRef data;
  // ld/st and multimem: what sets the bytes in flight (threads x vector x unroll), each defaulted
  // when omitted: the CTA's threads, 16 B (a 128-bit access), 4 accesses in flight per thread.
  std::optional<Expr> threads, vector, unroll;
  // An ld/st load: the latencies a thread waits per `unroll` accesses (default 1: the compiled
  // loop issues all of them before it uses any; more when it uses a load before issuing the rest,
  // as register reuse or a dependent address chain makes it).
  std::optional<Expr> rounds;
  // tma: bytes per message (default min(bytes, tma.max_message)) and messages outstanding
  // (default tma.messages_in_flight).
  std::optional<Expr> message, outstanding;
  // A load's bytes re-read, for the L2 hit model; a copy loop's (store `from`) source and
  // destination passed over again and again, whose source the L2 may keep.
  std::optional<Expr> working_set;
  // false: issued by a warp another op of the CTA already accounts for (a GEMM's producer,
  // inside its mainloop op), so it takes no share of the SM's math pipes.
  bool own_warp = true;
};

struct LoadOp : TransferOp {
  static constexpr const char* kName = "load";
  // A TMA load multicast to this many CTAs of the kernel's cluster (default 1): the bytes are
  // read once for all of them, so each CTA's share of the memory's traffic is bytes / multicast.
  std::optional<Expr> multicast;
};

// Where an ld/st store's data is loaded from when the same threads load it first (`from`: a
// copy loop, each warp's stores after its loads): the rank whose memory is read (default this
// rank) and the data read.
struct CopySource {
  std::optional<Expr> peer;
  BufferRef data;
};

struct StoreOp : TransferOp {
  static constexpr const char* kName = "store";
  bool add = false;  // a TMA store-add
  std::optional<CopySource> from;
};

// Always via multimem (the parser's check).
struct ReduceOp : TransferOp {
  static constexpr const char* kName = "reduce";
};

// Which operands an MMA reads from shared memory on the way to the tensor pipe, and the tile one
// warp (mma.sync) or warp group (wgmma) computes, over which it reuses each operand fragment.
struct SmemOperands {
  bool a = false, b = false;
  Expr tile_m, tile_n;
};

// What mma and mainloop share: an m x n x k product of `dtype` operands.
struct MmaShape {
  Expr m, n, k;
  models::Dtype dtype = models::Dtype::bf16;
  models::MmaInstr instr = models::MmaInstr::native;
  BufferRef a, b;  // the operands' data (m x k and k x n elements), when named
  std::optional<SmemOperands> operands;  // none: operands taken as resident in registers
};

struct MmaOp : MmaShape {
  static constexpr const char* kName = "mma";
};

// Exactly one of flops and cycles.
struct ComputeOp {
  static constexpr const char* kName = "compute";
  // Exactly one: flops (of dtype), special-function ops (sfu), integer multiply-adds (int32), or
  // a fixed number of SM cycles.
  std::optional<Expr> flops, sfu, int32, cycles;
  models::Dtype dtype = models::Dtype::fp32;
  models::MmaInstr instr = models::MmaInstr::native;  // with tensor-type flops only
};

struct MainloopOp : MmaShape {
  static constexpr const char* kName = "mainloop";
  Expr k_tile, stages;
  std::optional<Expr> peer;  // where A and B come from; default this rank
  // TMA multicast within the kernel's cluster (default 1 each): each A tile is read from L2 once
  // for `multicast_a` CTAs (the cluster's CTAs along n, which share it), each B tile once for
  // `multicast_b` (along m).
  std::optional<Expr> multicast_a, multicast_b;
};

// What signal and wait share: one flag of a flag array on a rank.
struct FlagRef {
  int flag = 0;  // index into KernelSet::flag_names
  Expr index;
  std::optional<Expr> rank;  // default this rank
  Expr value;                // signal: the value set or added; wait: the threshold
};

// The scope of a fence or of a release (PTX's .cta, .gpu, .sys).
enum class MemoryScope { cta, gpu, system };

struct SignalOp : FlagRef {
  static constexpr const char* kName = "signal";
  bool add = false;     // add `value` instead of setting it (an atomic add)
  bool atomic = false;  // an atomic write (atomicExch); always true with `add`
  // A release store: a fence of this scope first. Unset: a relaxed (volatile) store.
  std::optional<MemoryScope> release;
};

// A kernel's `wait` (named apart from the host's traces::WaitOp on events). `acquire` is
// accepted for what the code does and costs nothing more (models/sync.hpp).
struct FlagWaitOp : FlagRef {
  static constexpr const char* kName = "wait";
  bool acquire = false;
};

// fence {scope, threads, in_step}: __threadfence_block / __threadfence / __threadfence_system.
struct FenceOp {
  static constexpr const char* kName = "fence";
  MemoryScope scope = MemoryScope::gpu;
  std::optional<Expr> threads;  // how many of the CTA's threads fence (default: all of them)
  std::optional<Expr> in_step;  // 0: the warps fence out of step (default: in step)
};

struct ArriveOp {
  static constexpr const char* kName = "arrive";
  int barrier = 0;  // index into KernelDef::barrier_names
};

struct SyncOp {
  static constexpr const char* kName = "sync";
  int barrier = 0;  // index into KernelDef::barrier_names
  Expr count;       // arrivals per phase
};

struct KernelOp;

struct KernelForOp : LoopRange {
  static constexpr const char* kName = "for";
  std::vector<KernelOp> body;
};

struct KernelOp {
  sim::SourceLocation where;
  std::optional<Expr> condition;
  std::variant<LoadOp, StoreOp, ReduceOp, MmaOp, ComputeOp, MainloopOp, SignalOp, FlagWaitOp,
               ArriveOp, SyncOp, FenceOp, KernelForOp>
      what;
};

// For the walker (traces/walker.hpp): the loop of a `for` op, nullptr for other ops.
inline const KernelForOp* loop_of(const KernelOp& op) { return std::get_if<KernelForOp>(&op.what); }

// The op's kind as written in the YAML ("load", "for", ...).
inline const char* kind_name(const KernelOp& op) {
  return std::visit([](const auto& what) { return what.kName; }, op.what);
}

struct RoleDef {
  std::string name;
  sim::SourceLocation where;
  std::optional<Expr> condition;  // over the kernel's names, `cta` included
  std::vector<KernelOp> ops;
};

struct KernelArg {
  std::string name;
  int slot = 0;
  Expr default_value;  // over params, rank, world, earlier args
};

struct KernelDef {
  std::string name;
  sim::SourceLocation where;
  Expr grid, threads, registers, shared_memory;
  Expr cluster;  // CTAs per thread-block cluster (default 1); the grid is a multiple of it
  bool persistent = false;
  std::vector<KernelArg> args;
  std::vector<RoleDef> roles;
  std::vector<std::string> barrier_names;
  int cta_slot = 0;
  int num_sms_slot = 0;
  int slot_count = 0;  // Env size for this kernel's roles (deepest loop nest included)
  // It touches only its own GPU: no expression reads `rank`, no op names a peer or another rank's
  // flag or goes through multimem (a folded run may run it: traces/simulation.hpp).
  bool local = false;
};

struct KernelSet {
  std::vector<KernelDef> kernels;
  std::vector<std::string> flag_names;
  std::vector<BufferDef> buffers;  // the schedule's `buffers:` (a problem's first)
  // The index of kernel `name`, or -1.
  int find(const std::string& name) const;
  // The index of buffer `name`; a ConfigError at `at` naming the declared buffers otherwise.
  int buffer(const sim::Node& at, const std::string& name) const;
};

// An op's `buffer` and `region` keys from `r` (both optional; a region needs a buffer), the
// buffer looked up in `set`, the region parsed in `scope`.
BufferRef parse_data(sim::MapReader& r, const KernelSet& set, const Scope& scope);

// Parses the `kernels:` mapping. `host` is the scope of the schedule's top level (params, rank,
// world in their slots); kernel slots continue after them.
KernelSet parse_kernels(const sim::Node& node, const Scope& host);
// The same, appending to `set`: its kernels after those already there, flag names shared with
// them, buffers named in ops looked up in set.buffers.
void parse_kernels_into(const sim::Node& node, const Scope& host, KernelSet& set);

// The env a launch of `k` starts from (the CTA's and loops' slots still 0): the host's first
// `host_slots` slots (params, rank, world) copied from `host`, `num_sms`, then each arg: its
// binding in `bound` (arg index, value over the host's names) evaluated over `host`, or else its
// default, which may use the names before it.
Env launch_env(const KernelDef& k, const Env& host, int host_slots, std::int64_t num_sms,
               const std::vector<std::pair<int, Expr>>& bound);

}  // namespace mgsim::traces
