// Private to kernel_exec.cpp and kernel_ops.cpp: the state of running launches, CTAs and roles,
// and the resources the kernel runner adds. See kernel_exec.hpp for the model.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "sim/check.hpp"
#include "sim/trace.hpp"
#include "traces/kernel_exec.hpp"

namespace mgsim::traces {
namespace kernel_detail {

// Bytes in flight over a latency as a whole-bytes-per-second cap, rounded down once (at least 1).
inline sim::Bandwidth window_rate(std::int64_t bytes, sim::Duration latency) {
  if (latency <= sim::Duration::zero())
    return sim::Bandwidth::bytes_per_second(std::int64_t{1} << 62);
  const sim::Int128 r = static_cast<sim::Int128>(bytes) * 1'000'000'000'000 / latency.picoseconds();
  const sim::Int128 top = std::int64_t{1} << 62;
  return sim::Bandwidth::bytes_per_second(
      static_cast<std::int64_t>(std::clamp<sim::Int128>(r, 1, top)));
}

inline std::int64_t dtype_bytes(models::Dtype d) {
  switch (d) {
    case models::Dtype::fp8:
      return 1;
    case models::Dtype::bf16:
    case models::Dtype::fp16:
      return 2;
    case models::Dtype::tf32:
    case models::Dtype::fp32:
      return 4;
  }
  return 2;
}

inline std::int64_t mul(const Expr& at, std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) at.fail("the value overflows 64 bits");
  return out;
}

}  // namespace kernel_detail

struct KernelRunner::Impl {
  using Bandwidth = sim::Bandwidth;
  using Bytes = sim::Bytes;
  using Duration = sim::Duration;

  struct Frame {
    const std::vector<KernelOp>* ops = nullptr;
    std::size_t pc = 0;
    int slot = -1;
    std::int64_t to = 0, step = 1;
  };

  struct LaunchRun;
  struct CtaRun;
  using FlagKey = std::tuple<int, int, std::int64_t>;  // rank, flag, index

  struct FlowSpec {
    std::vector<sim::ResourceId> path;
    Bytes bytes;
    std::optional<Bandwidth> cap;
  };

  // What a role does when the flows of its current run_flows() are all done. A state, not a
  // std::function: the closures this replaces (flow specs, paths and the mainloop's parameters
  // captured by value) were too big for std::function's small buffer, and allocating them cost
  // ~20 % of a GEMM simulation's time.
  enum class Then : std::uint8_t {
    op_done,      // the op ended
    fill_done,    // mainloop: the first stage has landed
    loads_done,   // mainloop, stages == 1: all loads done, the MMAs come next
    last_mma,     // mainloop: all but the last step done, the last step's MMA comes next
    load_misses,  // load with a working set: the hits are done, the misses come next
  };

  // An op's parameters between its phases (kernel_exec.hpp states the model): a mainloop's, or
  // a split load's miss part (load_path: HBM of the owner and the peer route, rest_bytes, cap).
  struct MainloopState {
    std::vector<sim::ResourceId> load_path;
    Bandwidth cap;
    Bytes rest_bytes, rest_mma, last_mma;
    sim::ResourceId mma_pipe;
    std::int64_t steps = 1, stages = 1;
  };

  struct RoleRun {
    CtaRun* cta = nullptr;
    int role = 0;
    Env env;
    std::vector<Frame> frames;
    const KernelOp* current = nullptr;
    std::string waiting;               // non-empty while blocked on a flag or barrier
    std::optional<FlagKey> wait_flag;  // the flag it waits on, and for which value
    std::int64_t wait_value = 0;
    sim::Time began;
    std::map<int, std::int64_t> syncs;  // barrier -> syncs done
    int pending = 0;                    // flows of the current op still running
    bool done = false;
    // The flows of the pending run_flows() (staged[0 .. staged_count)) and what follows them;
    // reused from op to op so that their paths keep their capacity (no allocation per op).
    std::vector<FlowSpec> staged;
    std::size_t staged_count = 0;
    Then then = Then::op_done;
    MainloopState loop;
  };

  struct CtaRun {
    LaunchRun* launch = nullptr;
    int index = 0;
    int sm = 0;
    int roles_left = 0;
    std::map<int, std::int64_t> arrivals;  // barrier -> arrivals
    std::map<int, std::vector<std::pair<RoleRun*, std::int64_t>>> syncers;
    std::vector<std::unique_ptr<RoleRun>> roles;
  };

  struct LaunchRun {
    int id = 0;
    int rank = 0;
    const KernelDef* def = nullptr;
    Env env;
    std::int64_t grid = 0, next = 0, finished = 0;
    std::function<void()> done;
    std::vector<std::unique_ptr<CtaRun>> ctas;  // live CTAs (finished ones are released)
    bool started = false;
  };

  struct FlagState {
    std::int64_t value = 0;
    std::vector<std::pair<RoleRun*, std::int64_t>> waiters;  // role, threshold
  };

  Impl(KernelRunner& owner, const KernelSet& ks, sim::Engine& e, sim::FluidNetwork& n,
       Interconnect& f, std::span<models::Gpu> g)
      : self(owner),
        kernels(ks),
        engine(e),
        net(n),
        fabric(f),
        gpus(g),
        spec(g.front().spec()),
        world(static_cast<int>(g.size())) {}

  KernelRunner& self;
  const KernelSet& kernels;
  sim::Engine& engine;
  sim::FluidNetwork& net;
  Interconnect& fabric;
  std::span<models::Gpu> gpus;
  const models::HardwareSpec& spec;
  int world;
  std::vector<std::unique_ptr<LaunchRun>> launches;
  std::map<FlagKey, FlagState> flags;
  std::uint64_t hint = 0;

  // ---- resources ----

  models::Gpu& gpu(int rank) const { return gpus[static_cast<std::size_t>(rank)]; }

  // The SM-driven peer paths: a TMA store-add has its own rate over NVLink.
  static models::PeerPath peer_kind(Via via, bool add) {
    if (via == Via::ldst) return models::PeerPath::ldst;
    return add ? models::PeerPath::tma_reduce : models::PeerPath::tma;
  }

  // [src's egress, route src -> dst, dst's ingress] for an SM-driven peer transfer.
  Duration peer_path(int src, int dst, models::PeerPath kind, std::vector<sim::ResourceId>& path) {
    const PeerRoute route = fabric.route(src, dst, hint++);
    if (const auto out = gpu(src).peer_port(kind, models::PortDirection::out)) path.push_back(*out);
    path.insert(path.end(), route.resources.begin(), route.resources.end());
    if (const auto in = gpu(dst).peer_port(kind, models::PortDirection::in)) path.push_back(*in);
    return route.latency;
  }

  // ---- launches and CTAs ----

  int launch(int rank, int kernel, Env env, std::function<void()> done) {
    auto run = std::make_unique<LaunchRun>();
    run->id = static_cast<int>(launches.size());
    run->rank = rank;
    run->def = &kernels.kernels[static_cast<std::size_t>(kernel)];
    run->env = std::move(env);
    run->done = std::move(done);
    LaunchRun* l = run.get();
    launches.push_back(std::move(run));
    engine.schedule_in(spec.launch.kernel, [this, l] { place(*l); });
    return l->id;
  }

  void place(LaunchRun& l) {
    const KernelDef& k = *l.def;
    gpu(l.rank).create_sm_pipes();
    l.started = true;
    l.env[static_cast<std::size_t>(k.num_sms_slot)] = spec.sm.count;
    l.grid = k.grid.eval_positive(l.env, "grid");
    models::CtaResources res;
    res.threads = static_cast<int>(
        std::min<std::int64_t>(k.threads.eval_positive(l.env, "threads"), 1 << 30));
    res.registers_per_thread =
        static_cast<int>(std::min<std::int64_t>(k.registers.eval(l.env), 1 << 30));
    res.shared_memory = Bytes(k.shared_memory.eval(l.env));
    if (res.registers_per_thread < 0 || res.shared_memory.count() < 0)
      throw sim::ConfigError(k.where, fmt::format("kernel '{}': registers and shared_memory "
                                                  "cannot be negative",
                                                  k.name));
    const int per_sm = spec.sm.ctas_per_sm(res);
    if (per_sm == 0)
      throw sim::ConfigError(
          k.where, fmt::format("kernel '{}': one CTA ({} threads, {} registers per thread, {} "
                               "shared memory) does not fit on an SM of {}",
                               k.name, res.threads, res.registers_per_thread,
                               sim::to_string(res.shared_memory), spec.name));
    const std::int64_t slots = static_cast<std::int64_t>(per_sm) * spec.sm.count;
    if (k.persistent && l.grid > slots)
      k.grid.fail(
          fmt::format("persistent kernel '{}' has {} CTAs but only {} fit at once "
                      "({} per SM x {} SMs)",
                      k.name, l.grid, slots, per_sm, spec.sm.count));
    const std::int64_t first = std::min(l.grid, slots);
    for (std::int64_t i = 0; i < first; ++i) start_cta(l, static_cast<int>(i % spec.sm.count));
    if (l.grid == 0) finish_launch(l);
  }

  void start_cta(LaunchRun& l, int sm) {
    const KernelDef& k = *l.def;
    auto cta = std::make_unique<CtaRun>();
    cta->launch = &l;
    cta->index = static_cast<int>(l.next++);
    cta->sm = sm;
    Env env = l.env;
    env[static_cast<std::size_t>(k.cta_slot)] = cta->index;
    for (std::size_t r = 0; r < k.roles.size(); ++r) {
      const RoleDef& def = k.roles[r];
      if (def.condition && def.condition->eval(env) == 0) continue;
      auto role = std::make_unique<RoleRun>();
      role->cta = cta.get();
      role->role = static_cast<int>(r);
      role->env = env;
      role->frames.push_back({&def.ops, 0, -1, 0, 1});
      cta->roles.push_back(std::move(role));
    }
    cta->roles_left = static_cast<int>(cta->roles.size());
    CtaRun* c = cta.get();
    l.ctas.push_back(std::move(cta));
    if (c->roles.empty()) {
      engine.schedule_in(Duration::zero(), [this, c] { finish_cta(*c); });
      return;
    }
    for (auto& role : c->roles) {
      RoleRun* r = role.get();
      engine.schedule_in(Duration::zero(), [this, r] { advance(*r); });
    }
  }

  void finish_cta(CtaRun& c) {
    LaunchRun& l = *c.launch;
    const int sm = c.sm;
    ++self.stats_.ctas;
    ++l.finished;
    auto it =
        std::find_if(l.ctas.begin(), l.ctas.end(), [&](const auto& p) { return p.get() == &c; });
    MGSIM_CHECK(it != l.ctas.end(), "finished CTA not found");
    l.ctas.erase(it);
    if (l.next < l.grid) start_cta(l, sm);
    if (l.finished == l.grid) finish_launch(l);
  }

  void finish_launch(LaunchRun& l) {
    std::function<void()> done = std::move(l.done);
    l.done = nullptr;
    if (done) done();
  }

  // ---- roles ----

  void advance(RoleRun& r) {
    while (!r.frames.empty()) {
      Frame& f = r.frames.back();
      if (f.pc == f.ops->size()) {
        if (f.slot >= 0) {
          std::int64_t& v = r.env[static_cast<std::size_t>(f.slot)];
          v += f.step;
          if (v < f.to) {
            f.pc = 0;
            continue;
          }
        }
        r.frames.pop_back();
        continue;
      }
      const KernelOp& op = (*f.ops)[f.pc++];
      if (op.condition && op.condition->eval(r.env) == 0) continue;
      ++self.stats_.ops;
      r.current = &op;
      r.began = engine.now();
      if (!dispatch(r, op)) return;
    }
    r.done = true;
    r.current = nullptr;
    CtaRun& c = *r.cta;
    if (--c.roles_left == 0) finish_cta(c);
  }

  // The op ended: trace it and go on.
  void op_done(RoleRun& r) {
    trace_op(r);
    advance(r);
  }

  void trace_op(const RoleRun& r) {
    sim::TraceSink* trace = engine.trace();
    if (!trace || !r.current) return;
    const CtaRun& c = *r.cta;
    const KernelDef& k = *c.launch->def;
    const sim::TrackId track = trace->track(
        fmt::format("gpu{}", c.launch->rank),
        fmt::format("sm{:03} {}.{}", c.sm, k.name, k.roles[static_cast<std::size_t>(r.role)].name));
    trace->slice(track, op_name(*r.current), r.began, engine.now());
  }

  static const char* op_name(const KernelOp& op) {
    switch (op.kind) {
      case KernelOp::Kind::load:
        return "load";
      case KernelOp::Kind::store:
        return "store";
      case KernelOp::Kind::reduce:
        return "reduce";
      case KernelOp::Kind::mma:
        return "mma";
      case KernelOp::Kind::compute:
        return "compute";
      case KernelOp::Kind::mainloop:
        return "mainloop";
      case KernelOp::Kind::signal:
        return "signal";
      case KernelOp::Kind::wait:
        return "wait";
      case KernelOp::Kind::arrive:
        return "arrive";
      case KernelOp::Kind::sync:
        return "sync";
      case KernelOp::Kind::for_loop:
        return "for";
    }
    return "?";
  }

  int check_rank(const Expr& e, const Env& env) const {
    const std::int64_t v = e.eval(env);
    if (v < 0 || v >= world)
      e.fail(fmt::format("rank {} is outside the world (ranks 0 to {})", v, world - 1));
    return static_cast<int>(v);
  }

  // Appends an empty flow to r's staged flows (cleared, its path's capacity kept).
  FlowSpec& stage(RoleRun& r) {
    if (r.staged_count == r.staged.size()) r.staged.emplace_back();
    FlowSpec& f = r.staged[r.staged_count++];
    f.path.clear();
    f.cap.reset();
    return f;
  }

  FlowSpec& stage(RoleRun& r, sim::ResourceId resource, Bytes bytes, std::optional<Bandwidth> cap) {
    FlowSpec& f = stage(r);
    f.path.push_back(resource);
    f.bytes = bytes;
    f.cap = cap;
    return f;
  }

  // Runs r's staged flows together after `delay`; when all are done, `then`. One event, then
  // one flow each, as before this was allocation-free: the order of events is part of the
  // results (ties at one picosecond run in scheduling order).
  void run_flows(RoleRun& r, Duration delay, Then then) {
    r.then = then;
    engine.schedule_in(delay, [this, &r] { start_staged(r); });
  }

  void start_staged(RoleRun& r) {
    const std::size_t n = r.staged_count;
    r.staged_count = 0;  // the specs stay readable below until a continuation stages more
    r.pending = static_cast<int>(n);
    if (n == 0) {
      continue_role(r);
      return;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const FlowSpec& f = r.staged[i];
      net.start_flow(f.path, f.bytes, f.cap, [this, &r] {
        if (--r.pending == 0) continue_role(r);
      });
    }
  }

  void continue_role(RoleRun& r);

  bool dispatch(RoleRun& r, const KernelOp& op);
  bool transfer(RoleRun& r, const KernelOp& op);
  bool multimem(RoleRun& r, const KernelOp& op, std::int64_t bytes);
  bool mainloop(RoleRun& r, const KernelOp& op);
  void stage_rest_load(RoleRun& r);
  void signal(RoleRun& r, const KernelOp& op);
  bool wait(RoleRun& r, const KernelOp& op);
  void set_flag(const FlagKey& key, std::int64_t value, bool add);
  std::string flag_text(const FlagKey& key) const;
  std::string blocked_reason(int id) const;
};

}  // namespace mgsim::traces
