// Private to the kernel runner (traces/kernel_exec.hpp): the state of running launches, CTAs and
// roles, and what every part of the runner shares. The parts, one job each:
//   launch.cpp     launch and CTA placement (occupancy, waves)
//   walker.cpp     the role walker (on traces/walker.hpp's Walker); one op at a time
//   ops.hpp        the op units, one file per op kind (op_*.cpp), each with its model
//   phases.cpp     how an op's phases run: each a delay, then flows together
//   sync_table.cpp flags and barriers
//   trace.cpp      the timeline
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/gpu.hpp"
#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "traces/kernel/sync_table.hpp"
#include "traces/kernel_exec.hpp"
#include "traces/walker.hpp"

namespace mgsim::traces::kernel {

using sim::Bandwidth;
using sim::Bytes;
using sim::Duration;

struct CtaRun;

struct FlowSpec {
  std::vector<sim::ResourceId> path;
  // A path the runner keeps for the whole run (Runner::multimem_routes), used instead of `path`
  // when set: one copy, not one per CTA.
  std::span<const sim::ResourceId> shared_path;
  Bytes bytes;
  std::optional<Bandwidth> cap;
  std::optional<sim::Window> window;  // what it keeps in flight (sim/fluid.hpp)
};

// One phase of an op: after `delay`, flows[first .. first + count) run together; the next phase
// starts when all are done.
struct Phase {
  Duration delay;
  std::size_t first = 0, count = 0;
};

struct RoleRun {
  CtaRun* cta = nullptr;
  int role = 0;
  Env env;
  Walker<KernelOp> walker;  // over the role's ops
  const KernelOp* current = nullptr;
  sim::Time began;  // when the current op began
  bool done = false;
  Waiting waiting;                    // set while blocked on a flag or barrier
  std::map<int, std::int64_t> syncs;  // barrier -> syncs done
  // The current op's phases (phases[0 .. phase_count), the next one phases[next_phase]) and
  // their flows (flows[0 .. flow_count)). Reused from op to op so that their vectors keep their
  // capacity: no allocation per op (closures capturing an op's flows cost ~20 % of a GEMM
  // simulation's time when they were allocated).
  std::vector<FlowSpec> flows;
  std::size_t flow_count = 0;
  std::vector<Phase> phases;
  std::size_t phase_count = 0, next_phase = 0;
  int pending = 0;  // flows of the running phase still moving
  // What the current op's trace slice shows besides its kind (-1: not shown); the op units set
  // them, the walker resets them.
  std::int64_t traced_bytes = -1;
  int traced_peer = -1;
  std::vector<sim::ResourceId> scratch;  // a path being built by an op unit
  // The communication warp the current op holds on its SM (models::Gpu::add_comm_warp), given
  // back when the op is done.
  std::optional<models::Gpu::CommWarp> comm_warp;
  std::optional<DataCheck::Agent> agent;  // in the data check, when its launch is checked
  std::optional<sim::Time> fence_end;     // when its last fence op ended
  // Writes the current op leaves in flight when it ends (an ld/st store to a peer is posted:
  // the op ends when its bytes are issued), acknowledged this long after: op_done folds it into
  // `acked`. Zero: none.
  Duration in_flight;
  // When every write the role posted is acknowledged: its system-scope fences wait for it, and
  // its kernel does not end before it.
  sim::Time acked;
};

struct LaunchRun;

struct CtaRun {
  LaunchRun* launch = nullptr;
  std::size_t slot = 0;  // its place in launch->ctas
  int index = 0;
  int sm = 0;
  int roles_left = 0;
  Barriers barriers;
  std::vector<std::unique_ptr<RoleRun>> roles;
};

struct LaunchRun {
  int id = 0;
  int rank = 0;
  const KernelDef* def = nullptr;
  Env env;
  std::int64_t grid = 0, next = 0, finished = 0;
  std::int64_t cluster = 1;        // CTAs per thread-block cluster, evaluated when placed
  std::int64_t threads = 0;        // per CTA, evaluated when placed
  models::CtaFootprint footprint;  // what one CTA takes of an SM
  std::function<void()> done;
  sim::Time tail;  // when its last CTA without roles was dispatched, or its last signal lands
  int check = -1;  // its launch in the data check; -1: not checked
  // Per role of the kernel: its first CTA's start and its last CTA's end (max, 0: never ran).
  std::vector<std::pair<sim::Time, sim::Time>> roles;
  // Live CTAs, in no order (a finished one is swapped with the last and released).
  std::vector<std::unique_ptr<CtaRun>> ctas;
  bool started = false;
};

// A GPU's CTA dispatcher (launch.cpp's dispatch()): the round it is filling, what each SM holds,
// and the launches whose next CTAs wait for room, oldest first.
struct Dispatcher {
  sim::Time round_at;    // when the current round's CTAs start
  sim::Time next_round;  // the earliest the next round can open
  int in_round = 0;      // CTAs handed out in the current round
  std::vector<models::SmLoad> sms;
  int cursor = 0;                  // where the search for an SM with room starts
  std::deque<LaunchRun*> waiting;  // launches with CTAs still to place
};

// What every part of the runner shares: the machine, the flags, the launches, the statistics.
struct Runner {
  Runner(const KernelSet& ks, sim::Engine& e, sim::FluidNetwork& n, Interconnect& f,
         std::span<models::Gpu> g, OpBudget& b, KernelRunner::Stats& s)
      : kernels(ks),
        engine(e),
        net(n),
        fabric(f),
        gpus(g),
        spec(g.front().spec()),
        world(static_cast<int>(g.size())),
        budget(b),
        stats(s),
        flags(ks),
        dispatchers(g.size()) {}

  const KernelSet& kernels;
  sim::Engine& engine;
  sim::FluidNetwork& net;
  Interconnect& fabric;
  std::span<models::Gpu> gpus;
  const models::HardwareSpec& spec;
  int world;
  OpBudget& budget;  // the run's, shared with the host streams
  KernelRunner::Stats& stats;
  Flags flags;
  std::vector<std::unique_ptr<LaunchRun>> launches;
  std::uint64_t hint = 0;                    // spreads peer routes over equal-cost paths
  std::vector<Dispatcher> dispatchers;       // per rank (launch.cpp)
  std::map<FlagKey, sim::Time> atomic_free;  // per flag: when its owner applies the next atomic
  DataCheck* check = nullptr;                // `mgsim check`'s, when the run is checked
  // A multimem op's flow path and latency by (rank, reduce): the same for every CTA of the rank
  // and hundreds of links long on a big NVSwitch domain, so built once (op_multimem.cpp).
  struct MultimemRoute {
    std::vector<sim::ResourceId> path;
    Duration latency;
  };
  std::map<std::pair<int, bool>, MultimemRoute> multimem_routes;

  models::Gpu& gpu(int rank) const { return gpus[static_cast<std::size_t>(rank)]; }
  int rank_of(const RoleRun& r) const;  // the rank of r's launch

  // The value of rank expression `e`. Throws a ConfigError naming it when outside the world.
  int check_rank(const Expr& e, const Env& env) const;

  // Appends [src's egress of `path`, route src -> dst, dst's ingress of `path`] to `out` for
  // an SM-driven peer transfer; returns the route's latency.
  Duration peer_path(int src, int dst, models::PeerPath path, std::vector<sim::ResourceId>& out);
};

// `a` x `b`; a ConfigError naming `at` when it overflows 64 bits.
inline std::int64_t mul(const Expr& at, std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) at.fail("the value overflows 64 bits");
  return out;
}

// A TMA multicast factor `e` (1 when absent): the CTAs of r's cluster one read lands in. A
// ConfigError naming `e` unless it divides the kernel's cluster.
std::int64_t multicast_factor(const RoleRun& r, const std::optional<Expr>& e,
                              std::string_view what);

// Bytes in flight over a latency as a whole-bytes-per-second cap, rounded down once (at least 1).
inline Bandwidth window_rate(std::int64_t bytes, Duration latency) {
  if (latency <= Duration::zero()) return Bandwidth::bytes_per_second(std::int64_t{1} << 62);
  const sim::Int128 r = static_cast<sim::Int128>(bytes) * 1'000'000'000'000 / latency.picoseconds();
  const sim::Int128 top = std::int64_t{1} << 62;
  return Bandwidth::bytes_per_second(static_cast<std::int64_t>(std::clamp<sim::Int128>(r, 1, top)));
}

inline int Runner::rank_of(const RoleRun& r) const { return r.cta->launch->rank; }

}  // namespace mgsim::traces::kernel
