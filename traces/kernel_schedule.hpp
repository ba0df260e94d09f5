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
//                 buffer (name), region (expr)}       a transfer between HBM and the SM
//   load ... working_set (bytes, optional)            the bytes the access pattern re-reads:
//                 part of the load hits the owner's L2 (models::L2Spec::hit_fraction); without
//                 it every byte comes from HBM (data streamed once)
//   store ... add (bool, default false, via tma only)  a store-add (cp.reduce.async.bulk .add): the
//                 destination's L2 adds the bytes into memory (read-modify-write)
//   reduce {bytes, via: multimem (the only choice), buffer, region}   in-network reduction
//   mma {m, n, k, dtype}                              2*m*n*k flops on the SM's tensor pipe
//   compute {flops, dtype (default fp32)} | {cycles}  flops on the SM's pipe, or a fixed delay
//   mainloop {m, n, k, k_tile, stages, dtype, peer?}  a pipelined TMA+MMA K-loop (see kernel_exec)
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
// the op. Buffers and regions are recorded for static checks of a schedule (not built yet)
// and cost nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/sm.hpp"
#include "sim/config.hpp"
#include "sim/expr.hpp"
#include "traces/parse_util.hpp"

namespace mgsim::traces {

enum class Via { tma, ldst, multimem };
const char* to_string(Via v);

struct KernelOp;

struct KernelFor : LoopRange {
  std::vector<KernelOp> body;
};

struct KernelOp {
  enum class Kind {
    load,
    store,
    reduce,
    mma,
    compute,
    mainloop,
    signal,
    wait,
    arrive,
    sync,
    for_loop
  };
  Kind kind = Kind::compute;
  sim::SourceLocation where;
  std::optional<Expr> condition;

  // load, store, reduce
  Expr bytes;
  std::optional<Expr> peer;  // also mainloop's: where A and B come from
  Via via = Via::tma;
  int buffer = -1;  // index into KernelSet::buffer_names, -1 when not named
  std::optional<Expr> region;
  std::optional<Expr> working_set;  // load: bytes re-read, for the L2 hit model

  // mma, mainloop
  Expr m, n, k, k_tile, stages;
  models::Dtype dtype = models::Dtype::bf16;

  // compute: exactly one of flops and cycles
  std::optional<Expr> flops, cycles;

  // signal, wait
  int flag = 0;  // index into KernelSet::flag_names
  Expr index;
  std::optional<Expr> rank;
  Expr value;        // signal: the value set or added; wait: the threshold
  bool add = false;  // signal: add instead of set; store: a TMA store-add

  // arrive, sync
  int barrier = 0;  // index into KernelDef::barrier_names
  Expr count;       // sync: arrivals per phase

  std::vector<KernelFor> loop;  // exactly one element for for_loop
};

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
  bool persistent = false;
  std::vector<KernelArg> args;
  std::vector<RoleDef> roles;
  std::vector<std::string> barrier_names;
  int cta_slot = 0;
  int num_sms_slot = 0;
  int slot_count = 0;  // Env size for this kernel's roles (deepest loop nest included)
};

struct KernelSet {
  std::vector<KernelDef> kernels;
  std::vector<std::string> flag_names;
  std::vector<std::string> buffer_names;
  // The index of `name`, or -1.
  int find(const std::string& name) const;
};

// Parses the `kernels:` mapping. `host` is the scope of the schedule's top level (params, rank,
// world in their slots); kernel slots continue after them.
KernelSet parse_kernels(const sim::Node& node, const Scope& host);

}  // namespace mgsim::traces
