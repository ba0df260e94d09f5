#include "traces/kernel/launch.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/check.hpp"
#include "traces/kernel/walker.hpp"

namespace mgsim::traces::kernel {
namespace {

void finish_launch(Runner& x, LaunchRun& l) {
  x.gpu(l.rank).kernel_ended();
  if (l.check >= 0) x.check->launch_end(l.check);
  std::function<void()> done = std::move(l.done);
  l.done = nullptr;
  if (done) done();
}

void finish_cta(Runner& x, CtaRun& c);

// The launch ends with its last CTA, or at l.tail (its last CTA without roles dispatched, its
// last signal landed: a kernel's end makes its writes visible), whichever is later.
void maybe_finish_launch(Runner& x, LaunchRun& l) {
  if (l.finished != l.grid) return;
  if (l.tail > x.engine.now()) {
    x.engine.schedule_at(l.tail, [&x, &l] { finish_launch(x, l); });
  } else {
    finish_launch(x, l);
  }
}

// Whether CTA `cta` of `l` runs any role.
bool has_roles(LaunchRun& l, std::int64_t cta) {
  const KernelDef& k = *l.def;
  l.env[static_cast<std::size_t>(k.cta_slot)] = cta;
  return std::any_of(k.roles.begin(), k.roles.end(), [&](const RoleDef& r) {
    return !r.condition || r.condition->eval(l.env) != 0;
  });
}

// When the GPU's dispatcher starts a CTA asked for now. It hands out one CTA per
// launch.per_cta, a round of sm.count CTAs (one per SM) at a time: the CTAs of a round start
// together, and the next round opens sm.count x per_cta after it (the rate, without an event per
// CTA: a kernel of up to sm.count CTAs starts at once).
sim::Time dispatch(Runner& x, int rank) {
  Dispatcher& d = x.dispatchers[static_cast<std::size_t>(rank)];
  const sim::Time now = x.engine.now();
  if (d.in_round == 0) d.round_at = std::max(now, d.next_round);
  const sim::Time at = std::max(now, d.round_at);
  if (++d.in_round == x.spec.sm.count) {
    d.in_round = 0;
    d.next_round = d.round_at + x.spec.launch.per_cta * x.spec.sm.count;
  }
  return at;
}

// An SM of `rank` with room for one more CTA of footprint `f`, searched from the dispatcher's
// cursor (so a kernel alone on the GPU puts CTA i on SM i % SMs); -1 when none has room.
int find_sm(Runner& x, int rank, const models::CtaFootprint& f) {
  Dispatcher& d = x.dispatchers[static_cast<std::size_t>(rank)];
  const int count = x.spec.sm.count;
  for (int k = 0; k < count; ++k) {
    const int sm = (d.cursor + k) % count;
    if (x.spec.sm.fits(d.sms[static_cast<std::size_t>(sm)], f)) {
      d.cursor = (sm + 1) % count;
      return sm;
    }
  }
  return -1;
}

// Starts the next CTA of `l` on `sm` (which has room for it) through the GPU's dispatcher.
void start_cta(Runner& x, LaunchRun& l, int sm) {
  const KernelDef& k = *l.def;
  models::SmLoad& load =
      x.dispatchers[static_cast<std::size_t>(l.rank)].sms[static_cast<std::size_t>(sm)];
  ++load.ctas;
  load.threads += l.footprint.threads;
  load.registers += l.footprint.registers;
  load.shared_memory += l.footprint.shared_memory;
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
    role->walker = Walker<KernelOp>(def.ops);
    if (l.check >= 0) role->agent = x.check->role_agent(l.check, cta->index, def.name);
    cta->roles.push_back(std::move(role));
  }
  cta->roles_left = static_cast<int>(cta->roles.size());
  CtaRun* c = cta.get();
  c->slot = l.ctas.size();
  l.ctas.push_back(std::move(cta));
  const sim::Time at = dispatch(x, l.rank);
  for (auto& role : c->roles) {
    RoleRun* r = role.get();
    sim::Time& begin = l.roles[static_cast<std::size_t>(r->role)].first;
    begin = std::min(begin, at);
    x.engine.schedule_at(at, [&x, r] { advance(x, *r); });
  }
}

// Places the next CTAs of the GPU's waiting launches, oldest first, while an SM has room for
// them: concurrent kernels share the SMs' CTA slots, threads, registers and shared memory, and a
// younger launch waits while an older one's next CTA does not fit. A CTA without roles only
// takes the dispatcher's time (no SM, no event). Ends the launches that are done.
void fill(Runner& x, int rank) {
  Dispatcher& d = x.dispatchers[static_cast<std::size_t>(rank)];
  while (!d.waiting.empty()) {
    LaunchRun& l = *d.waiting.front();
    while (l.next < l.grid) {
      if (!has_roles(l, l.next)) {
        l.tail = std::max(l.tail, dispatch(x, l.rank));
        ++l.next;
        ++l.finished;
        ++x.stats.ctas;
        continue;
      }
      const int sm = find_sm(x, rank, l.footprint);
      if (sm < 0) return;
      start_cta(x, l, sm);
    }
    d.waiting.pop_front();
    maybe_finish_launch(x, l);
  }
}

void finish_cta(Runner& x, CtaRun& c) {
  LaunchRun& l = *c.launch;
  models::SmLoad& load =
      x.dispatchers[static_cast<std::size_t>(l.rank)].sms[static_cast<std::size_t>(c.sm)];
  --load.ctas;
  load.threads -= l.footprint.threads;
  load.registers -= l.footprint.registers;
  load.shared_memory -= l.footprint.shared_memory;
  ++x.stats.ctas;
  ++l.finished;
  const std::size_t slot = c.slot;
  MGSIM_CHECK(slot < l.ctas.size() && l.ctas[slot].get() == &c, "finished CTA not found");
  if (slot + 1 != l.ctas.size()) {
    l.ctas[slot] = std::move(l.ctas.back());
    l.ctas[slot]->slot = slot;
  }
  l.ctas.pop_back();  // c is gone
  fill(x, l.rank);
  if (l.next == l.grid) maybe_finish_launch(x, l);
}

// Starts a launch: its grid and what one CTA takes of an SM, then its CTAs as SMs have room.
void place(Runner& x, LaunchRun& l) {
  const models::HardwareSpec& spec = x.spec;
  const KernelDef& k = *l.def;
  x.gpu(l.rank).create_sm_pipes();
  Dispatcher& d = x.dispatchers[static_cast<std::size_t>(l.rank)];
  if (d.sms.empty()) d.sms.resize(static_cast<std::size_t>(spec.sm.count));
  l.started = true;
  l.env[static_cast<std::size_t>(k.num_sms_slot)] = spec.sm.count;
  l.grid = k.grid.eval_positive(l.env, "grid");
  x.budget.spend(k.grid.where(), l.grid);  // every CTA costs at least its dispatch
  // Hopper and Blackwell launch clusters of up to 8 CTAs portably, 16 with
  // cudaFuncAttributeNonPortableClusterSizeAllowed; a grid is a whole number of them.
  constexpr std::int64_t kMaxCluster = 16;
  l.cluster = k.cluster.eval_positive(l.env, "cluster");
  if (l.cluster > kMaxCluster)
    k.cluster.fail(
        fmt::format("a cluster of {} CTAs: at most {} (8 portably)", l.cluster, kMaxCluster));
  if (l.grid % l.cluster != 0)
    k.grid.fail(fmt::format("kernel '{}' has {} CTAs, not a whole number of clusters of {}", k.name,
                            l.grid, l.cluster));
  models::CtaResources res;
  res.threads =
      static_cast<int>(std::min<std::int64_t>(k.threads.eval_positive(l.env, "threads"), 1 << 30));
  res.registers_per_thread =
      static_cast<int>(std::min<std::int64_t>(k.registers.eval(l.env), 1 << 30));
  res.shared_memory = Bytes(k.shared_memory.eval(l.env));
  if (res.registers_per_thread < 0 || res.shared_memory.count() < 0)
    throw sim::ConfigError(k.where, fmt::format("kernel '{}': registers and shared_memory "
                                                "cannot be negative",
                                                k.name));
  l.threads = res.threads;
  const int per_sm = spec.sm.ctas_per_sm(res);
  if (per_sm == 0)
    throw sim::ConfigError(
        k.where, fmt::format("kernel '{}': one CTA ({} threads, {} registers per thread, {} "
                             "shared memory) does not fit on an SM of {}",
                             k.name, res.threads, res.registers_per_thread,
                             sim::to_string(res.shared_memory), spec.name));
  l.footprint = spec.sm.footprint(res);
  const std::int64_t slots = static_cast<std::int64_t>(per_sm) * spec.sm.count;
  if (k.persistent && l.grid > slots)
    k.grid.fail(
        fmt::format("persistent kernel '{}' has {} CTAs but only {} fit at once "
                    "({} per SM x {} SMs)",
                    k.name, l.grid, slots, per_sm, spec.sm.count));
  x.gpu(l.rank).kernel_started();
  d.waiting.push_back(&l);
  fill(x, l.rank);
}

}  // namespace

int launch(Runner& x, int rank, int kernel, Env env, sim::Duration start,
           std::function<void()> done, std::optional<DataCheck::Agent> stream) {
  auto run = std::make_unique<LaunchRun>();
  run->id = static_cast<int>(x.launches.size());
  run->rank = rank;
  run->def = &x.kernels.kernels[static_cast<std::size_t>(kernel)];
  run->roles.assign(run->def->roles.size(), {sim::Time::max(), sim::Time::zero()});
  if (stream && x.check) run->check = x.check->launch_begin(*stream, run->def->name);
  run->env = std::move(env);
  run->done = std::move(done);
  LaunchRun* l = run.get();
  x.launches.push_back(std::move(run));
  x.engine.schedule_in(start, [&x, l] { place(x, *l); });
  return l->id;
}

void role_done(Runner& x, CtaRun& cta) {
  if (--cta.roles_left == 0) finish_cta(x, cta);
}

std::string blocked_reason(const Runner& x, int id) {
  const LaunchRun& l = *x.launches.at(static_cast<std::size_t>(id));
  const KernelDef& k = *l.def;
  if (!l.started) return fmt::format("kernel '{}' to start", k.name);
  // The first blocked role of the lowest-numbered CTA (l.ctas is in no order).
  std::vector<const CtaRun*> live;
  for (const auto& c : l.ctas) live.push_back(c.get());
  std::sort(live.begin(), live.end(),
            [](const CtaRun* a, const CtaRun* b) { return a->index < b->index; });
  std::string first;
  int more = 0;
  for (const CtaRun* c : live) {
    for (const auto& r : c->roles) {
      if (r->done || !r->waiting.blocked()) continue;
      if (first.empty()) {
        const sim::SourceLocation& w = r->current->where;
        const Waiting& on = r->waiting;
        const std::string what =
            on.flag ? fmt::format("{} to reach {} (it is {})", x.flags.text(*on.flag), on.value,
                                  x.flags.value(*on.flag))
                    : fmt::format("barrier '{}' to reach {} arrivals (it has {})", *on.barrier,
                                  on.value, on.arrivals);
        first = fmt::format(
            "kernel '{}' on rank {}: CTA {} (SM {}) role '{}' waits for {} "
            "(at {}:{}:{})",
            k.name, l.rank, c->index, c->sm, k.roles[static_cast<std::size_t>(r->role)].name, what,
            w.file, w.line, w.column);
      } else {
        ++more;
      }
    }
  }
  if (first.empty())
    return fmt::format("kernel '{}' on rank {} to finish ({} of {} CTAs done)", k.name, l.rank,
                       l.finished, l.grid);
  if (more > 0) first += fmt::format("; {} more role(s) of this launch are blocked", more);
  return first;
}

}  // namespace mgsim::traces::kernel
