// The ops of a kernel role: how each maps onto events and fluid flows (model in kernel_exec.hpp).
#include <cmath>

#include "traces/kernel_exec_impl.hpp"

namespace mgsim::traces {

using kernel_detail::dtype_bytes;
using kernel_detail::mul;
using kernel_detail::window_rate;

bool KernelRunner::Impl::dispatch(RoleRun& r, const KernelOp& op) {
  CtaRun& c = *r.cta;
  const int rank = c.launch->rank;
  switch (op.kind) {
    case KernelOp::Kind::for_loop: {
      const KernelFor& loop = op.loop.front();
      const std::int64_t from = loop.from.eval(r.env);
      const std::int64_t to = loop.to.eval(r.env);
      const std::int64_t step = loop.step.eval_positive(r.env, "a loop step");
      if (from < to) {
        r.env[static_cast<std::size_t>(loop.slot)] = from;
        r.frames.push_back({&loop.body, 0, loop.slot, to, step});
      }
      return true;
    }
    case KernelOp::Kind::load:
    case KernelOp::Kind::store:
    case KernelOp::Kind::reduce:
      return transfer(r, op);
    case KernelOp::Kind::mma: {
      const std::int64_t m = op.m.eval_positive(r.env, "m");
      const std::int64_t n = op.n.eval_positive(r.env, "n");
      const std::int64_t k = op.k.eval_positive(r.env, "k");
      const std::int64_t flops = mul(op.k, mul(op.n, 2 * m, n), k);
      self.stats_.flops += flops;
      stage(r, gpu(rank).pipe(c.sm, op.dtype), gpu(rank).pipe_amount(flops, op.dtype),
            std::nullopt);
      run_flows(r, Duration::zero(), Then::op_done);
      return false;
    }
    case KernelOp::Kind::compute: {
      if (op.cycles) {
        const std::int64_t cycles = op.cycles->eval(r.env);
        if (cycles < 0) op.cycles->fail(fmt::format("cycles cannot be negative, got {}", cycles));
        engine.schedule_in(sim::cycles_to_duration(cycles, spec.sm.clock),
                           [this, &r] { op_done(r); });
        return false;
      }
      const std::int64_t flops = op.flops->eval_positive(r.env, "compute flops");
      self.stats_.flops += flops;
      stage(r, gpu(rank).pipe(c.sm, op.dtype), gpu(rank).pipe_amount(flops, op.dtype),
            std::nullopt);
      run_flows(r, Duration::zero(), Then::op_done);
      return false;
    }
    case KernelOp::Kind::mainloop:
      return mainloop(r, op);
    case KernelOp::Kind::signal:
      signal(r, op);
      return true;
    case KernelOp::Kind::wait:
      return wait(r, op);
    case KernelOp::Kind::arrive: {
      const std::int64_t now = ++c.arrivals[op.barrier];
      auto& list = c.syncers[op.barrier];
      std::erase_if(list, [&](const std::pair<RoleRun*, std::int64_t>& w) {
        if (w.second > now) return false;
        RoleRun* waiter = w.first;
        waiter->waiting.clear();
        engine.schedule_in(sim::cycles_to_duration(spec.sm.mbarrier_cycles, spec.sm.clock),
                           [this, waiter] { op_done(*waiter); });
        return true;
      });
      return true;
    }
    case KernelOp::Kind::sync: {
      const std::int64_t count = op.count.eval_positive(r.env, "sync count");
      const std::int64_t need = mul(op.count, ++r.syncs[op.barrier], count);
      if (c.arrivals[op.barrier] >= need) return true;
      c.syncers[op.barrier].emplace_back(&r, need);
      r.waiting = fmt::format("barrier '{}' to reach {} arrivals (it has {})",
                              c.launch->def->barrier_names[static_cast<std::size_t>(op.barrier)],
                              need, c.arrivals[op.barrier]);
      return false;
    }
  }
  return true;
}

bool KernelRunner::Impl::transfer(RoleRun& r, const KernelOp& op) {
  CtaRun& c = *r.cta;
  const int rank = c.launch->rank;
  const std::int64_t bytes = op.bytes.eval_positive(r.env, fmt::format("{} bytes", op_name(op)));
  if (op.via == Via::multimem) return multimem(r, op, bytes);
  const int peer = op.peer ? check_rank(*op.peer, r.env) : rank;
  const bool is_load = op.kind == KernelOp::Kind::load;
  // The memory's owner is the peer for a peer access: remote data lives in the owner's HBM and
  // is cached in the owner's L2. A load with a working set hits there with the L2's hit
  // fraction; the mean load-to-use latency mixes the two.
  const double hit =
      op.working_set
          ? spec.l2.hit_fraction(Bytes(op.working_set->eval_positive(r.env, "load working_set")))
          : 0.0;
  Duration latency = spec.hbm.latency;
  if (hit > 0.0)
    latency =
        Duration::ps(std::llround(hit * static_cast<double>(spec.l2.hit_latency.picoseconds()) +
                                  (1.0 - hit) * static_cast<double>(latency.picoseconds())));
  std::vector<sim::ResourceId>& route = r.loop.load_path;  // the path after the memory
  route.clear();
  if (peer != rank) {
    const int src = is_load ? peer : rank;
    const int dst = is_load ? rank : peer;
    latency += peer_path(src, dst, peer_kind(op.via, op.add), route);
  }
  // A store-add is read, added and written back by the destination's L2: the owner's HBM carries
  // its bytes twice (read and write; the path lists it twice).
  if (op.add) {
    route.push_back(gpu(peer).l2_reduce());
    route.push_back(gpu(peer).hbm());
  }
  Duration fixed = latency;
  Bytes moved;
  Bandwidth cap;
  if (op.via == Via::tma) {
    moved = Bytes(bytes);
    cap = window_rate(spec.tma.bytes_in_flight(bytes), latency);
    fixed += spec.tma.issue_time(spec.sm.clock);
  } else {
    moved = spec.ldst.sectors_bytes(Bytes(bytes));
    cap = window_rate(spec.ldst.bytes_in_flight_per_sm.count(), latency);
  }
  // Hits, then misses: a warp's loads retire in order, so a miss holds up the hits behind it and
  // the two times add (docs/MODELS.md, L2).
  const Bytes hits = Bytes(std::llround(hit * static_cast<double>(moved.count())));
  const Bytes misses = moved - hits;
  auto stage_part = [&](sim::ResourceId memory, Bytes amount) {
    FlowSpec& flow = stage(r);
    flow.path.assign(1, memory);
    flow.path.insert(flow.path.end(), route.begin(), route.end());
    flow.bytes = amount;
    flow.cap = cap;
  };
  if (hits.count() == 0) {
    stage_part(gpu(peer).hbm(), misses);
    run_flows(r, fixed, Then::op_done);
    return false;
  }
  stage_part(gpu(peer).l2(), hits);
  if (misses.count() == 0) {
    run_flows(r, fixed, Then::op_done);
    return false;
  }
  route.insert(route.begin(), gpu(peer).hbm());
  r.loop.rest_bytes = misses;
  r.loop.cap = cap;
  run_flows(r, fixed, Then::load_misses);
  return false;
}

// In-network reduction and multicast through NVSwitch (kernel_exec.hpp states the model).
bool KernelRunner::Impl::multimem(RoleRun& r, const KernelOp& op, std::int64_t bytes) {
  const int rank = r.cta->launch->rank;
  const bool reduce = op.kind == KernelOp::Kind::reduce;
  if ((reduce && !spec.nvswitch.reduction) || (!reduce && !spec.nvswitch.multicast))
    throw sim::ConfigError(op.where,
                           fmt::format("multimem {} needs NVSwitch {}, which {} lacks", op_name(op),
                                       reduce ? "reduction" : "multicast", spec.name));
  if (world < 2)
    throw sim::ConfigError(op.where, "multimem needs a multicast group of at least 2 ranks");
  // A GPU's uplink into the switch is the first hop of its routes, its downlink the last hop of
  // routes into it; without a switch a route is a single direct link.
  auto route_of = [&](int s, int d) {
    const PeerRoute route = fabric.route(s, d, 0);
    if (route.resources.size() < 2)
      throw sim::ConfigError(op.where,
                             fmt::format("multimem needs an NVSwitch between the GPUs, but rank "
                                         "{} reaches rank {} over a direct link",
                                         s, d));
    return route;
  };
  const int other = (rank + 1) % world;
  const PeerRoute mine = route_of(rank, other);
  const Duration latency = mine.latency + spec.nvswitch.latency;
  const Bandwidth cap = window_rate(spec.ldst.bytes_in_flight_per_sm.count(), latency);
  for (int q = 0; q < world; ++q) {
    if (q == rank) continue;
    if (reduce) {
      stage(r, route_of(q, rank).resources.front(), Bytes(bytes), cap);
    } else {
      stage(r, route_of(rank, q).resources.back(), Bytes(bytes), cap);
    }
  }
  if (reduce) {
    stage(r, route_of(other, rank).resources.back(), Bytes(bytes),
          std::min(cap, spec.nvswitch.reduction_bandwidth));
  } else {
    stage(r, mine.resources.front(), Bytes(bytes), cap);
  }
  run_flows(r, latency, Then::op_done);
  return false;
}

bool KernelRunner::Impl::mainloop(RoleRun& r, const KernelOp& op) {
  CtaRun& c = *r.cta;
  const int rank = c.launch->rank;
  const std::int64_t m = op.m.eval_positive(r.env, "m");
  const std::int64_t n = op.n.eval_positive(r.env, "n");
  const std::int64_t k = op.k.eval_positive(r.env, "k");
  const std::int64_t k_tile = std::min(k, op.k_tile.eval_positive(r.env, "k_tile"));
  const std::int64_t stages = op.stages.eval_positive(r.env, "stages");
  const std::int64_t esize = dtype_bytes(op.dtype);
  const std::int64_t steps = (k + k_tile - 1) / k_tile;
  const std::int64_t stage_bytes = mul(op.k_tile, mul(op.k_tile, m + n, k_tile), esize);
  const std::int64_t total_bytes = mul(op.k, mul(op.k, m + n, k), esize);
  const std::int64_t mn2 = mul(op.n, 2 * m, n);
  const std::int64_t flops = mul(op.k, mn2, k);
  const std::int64_t last_flops = mn2 * (k - (steps - 1) * k_tile);
  self.stats_.flops += flops;

  const int peer = op.peer ? check_rank(*op.peer, r.env) : rank;
  MainloopState& st = r.loop;
  st.load_path.clear();
  st.load_path.push_back(gpu(peer).l2());
  Duration latency = spec.l2.hit_latency;
  if (peer != rank) latency += peer_path(peer, rank, models::PeerPath::tma, st.load_path);
  const std::int64_t window =
      std::min(mul(op.stages, stages, stage_bytes), spec.tma.max_bytes_in_flight());
  st.cap = window_rate(window, latency);
  const Duration fill = latency + spec.tma.issue_time(spec.sm.clock);
  models::Gpu& g = gpu(rank);
  st.mma_pipe = g.pipe(c.sm, op.dtype);
  st.last_mma = g.pipe_amount(last_flops, op.dtype);
  st.rest_bytes = Bytes(total_bytes - stage_bytes);
  st.rest_mma = g.pipe_amount(flops - last_flops, op.dtype);
  st.steps = steps;
  st.stages = stages;
  FlowSpec& first = stage(r);
  first.path.assign(st.load_path.begin(), st.load_path.end());
  first.bytes = Bytes(stage_bytes);
  first.cap = st.cap;
  run_flows(r, fill, Then::fill_done);
  return false;
}

// Stages the flow of the loads an op left for a later phase (r.loop: path, bytes, cap).
void KernelRunner::Impl::stage_rest_load(RoleRun& r) {
  const MainloopState& st = r.loop;
  FlowSpec& load = stage(r);
  load.path.assign(st.load_path.begin(), st.load_path.end());
  load.bytes = st.rest_bytes;
  load.cap = st.cap;
}

// The next phase of a role's op once its flows are done (the mainloop's phases as above, a
// split load's misses).
void KernelRunner::Impl::continue_role(RoleRun& r) {
  MainloopState& st = r.loop;
  switch (r.then) {
    case Then::op_done:
      op_done(r);
      return;
    case Then::load_misses:
      stage_rest_load(r);
      run_flows(r, Duration::zero(), Then::op_done);
      return;
    case Then::fill_done:
      if (st.steps == 1) {
        stage(r, st.mma_pipe, st.last_mma, std::nullopt);
        run_flows(r, Duration::zero(), Then::op_done);
      } else if (st.stages >= 2) {
        stage_rest_load(r);
        stage(r, st.mma_pipe, st.rest_mma, std::nullopt);
        run_flows(r, Duration::zero(), Then::last_mma);
      } else {
        stage_rest_load(r);
        run_flows(r, Duration::zero(), Then::loads_done);
      }
      return;
    case Then::loads_done:
      stage(r, st.mma_pipe, st.rest_mma, std::nullopt);
      run_flows(r, Duration::zero(), Then::last_mma);
      return;
    case Then::last_mma:
      stage(r, st.mma_pipe, st.last_mma, std::nullopt);
      run_flows(r, Duration::zero(), Then::op_done);
      return;
  }
}

void KernelRunner::Impl::signal(RoleRun& r, const KernelOp& op) {
  const int rank = r.cta->launch->rank;
  const int target = op.rank ? check_rank(*op.rank, r.env) : rank;
  const FlagKey key{target, op.flag, op.index.eval(r.env)};
  const std::int64_t value = op.value.eval(r.env);
  const bool add = op.add;
  if (target == rank) {
    set_flag(key, value, add);
    return;
  }
  // The write travels to the target's memory: it lands one route latency later.
  const Duration latency = fabric.route(rank, target, hint++).latency;
  engine.schedule_in(latency, [this, key, value, add] { set_flag(key, value, add); });
}

void KernelRunner::Impl::set_flag(const FlagKey& key, std::int64_t value, bool add) {
  FlagState& f = flags[key];
  f.value = add ? f.value + value : value;
  const std::int64_t now = f.value;
  std::erase_if(f.waiters, [&](const std::pair<RoleRun*, std::int64_t>& w) {
    if (w.second > now) return false;
    RoleRun* waiter = w.first;
    waiter->waiting.clear();
    waiter->wait_flag.reset();
    const int rank = waiter->cta->launch->rank;
    const int owner = std::get<0>(key);
    // A remote flag is polled over the fabric: the change is seen a route latency later.
    const Duration seen = owner == rank ? Duration::zero() : fabric.route(owner, rank, 0).latency;
    engine.schedule_in(seen, [this, waiter] { op_done(*waiter); });
    return true;
  });
}

bool KernelRunner::Impl::wait(RoleRun& r, const KernelOp& op) {
  const int rank = r.cta->launch->rank;
  const int owner = op.rank ? check_rank(*op.rank, r.env) : rank;
  const FlagKey key{owner, op.flag, op.index.eval(r.env)};
  const std::int64_t value = op.value.eval(r.env);
  FlagState& f = flags[key];
  if (f.value >= value) return true;
  f.waiters.emplace_back(&r, value);
  r.waiting = flag_text(key);
  r.wait_flag = key;
  r.wait_value = value;
  return false;
}

}  // namespace mgsim::traces
