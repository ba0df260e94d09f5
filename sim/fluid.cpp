// FluidNetwork: max-min fair sharing by progressive filling, re-solved per connected component.
//
// Bookkeeping (why it is shaped like this):
//   - Each resource keeps the list of active flows crossing it (with the flow's path index, so a
//     swap-remove can fix the moved flow's back-pointer in O(1)). That list is what makes the
//     incremental re-solve possible: the component of a touched resource is found by a
//     breadth-first walk resource -> flows -> resources, and nothing outside it is visited.
//   - A start or end only records its resources as "dirty" and schedules one solve event at the
//     same instant with the lowest priority (INT_MAX). Flows that start or end at the same
//     picosecond (a collective step, a batch of completions) then cost one re-solve, not one
//     each. Queries (rate, stats) solve first, so callers never see stale rates.
//   - Progress is lazy: a flow stores `remaining` bytes as of `last_update`; it is advanced only
//     when its component is re-solved, and its completion event is cancelled and re-scheduled
//     only when its rate actually changed.
//
// Numerics: rates are doubles in bytes/s; remaining is a double in bytes. Advancing uses
// remaining -= rate * dt_ps / 1e12 (dividing by 1e12, an exact double, rather than multiplying
// by the inexact 1e-12), and the completion delay is t = remaining * 1e12 / rate picoseconds,
// rounded up, except that t is first snapped to the nearest integer when within
// 1e-6 + 1e-12 * t of it. The snap absorbs the few-ulp noise of the divisions (so 1 MB at
// 50 GB/s is exactly 20'000'000 ps, not 20'000'001), and at worst ends a flow < 1 ps early.
// With whole-number rates and bytes that divide exactly, completion times are exact.
//
// Water-filling: resources sit in an indexed min-heap keyed by their fair share (remaining
// capacity / unfixed flows, re-sifted when it changes), capped flows in a list sorted by cap. Each
// step fixes either the smallest cap (one flow) or every unfixed flow of the resource with the
// smallest share. Cost: O((F * path + R) log R) for a component of F flows, R resources.
#include "sim/fluid.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <vector>

#include "sim/check.hpp"
#include "sim/engine.hpp"
#include "sim/trace.hpp"

namespace mgsim::sim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPsPerSecond = 1e12;
constexpr std::uint32_t kNotInHeap = UINT32_MAX;

struct Member {
  std::uint32_t flow;  // flow slot
  std::uint32_t hop;   // index into that flow's path
};

struct Resource {
  std::string name;
  Bandwidth capacity;
  double capacity_bps = 0.0;
  std::vector<Member> flows;
  double rate_sum = 0.0;  // bytes/s allocated now
  // Statistics.
  Time last_fold;
  double busy_ps = 0.0;
  std::int64_t finished_bytes = 0;  // exact: whole flows that completed
  double partial_bytes = 0.0;       // progress of flows cancelled midway
  // Tracing.
  TraceSink* sink = nullptr;
  TrackId track;
  double traced_rate = 0.0;
  // Solver scratch.
  std::uint64_t epoch = 0;
  double free_capacity = 0.0;
  std::uint32_t unfixed = 0;
  double share = 0.0;
  std::uint32_t heap_pos = UINT32_MAX;  // kNotInHeap
  std::uint64_t touched = 0;
};

struct Flow {
  std::uint32_t generation = 1;
  bool active = false;
  std::vector<std::uint32_t> path;  // resource indices
  std::vector<std::uint32_t> pos;   // pos[k]: this flow's index in resources[path[k]].flows
  std::int64_t bytes = 0;
  double remaining = 0.0;
  double rate = 0.0;
  double cap = kInf;
  Time last_update;
  EventId done_event;
  std::function<void()> on_done;
  // Solver scratch.
  std::uint64_t epoch = 0;
  double new_rate = 0.0;
};

// Delay until `remaining` bytes have moved at `rate`, in whole picoseconds (see Numerics above).
std::int64_t completion_delay_ps(double remaining, double rate) {
  if (remaining <= 0.0) return 0;
  double t = remaining * kPsPerSecond / rate;
  MGSIM_CHECK(t < 4e18, "flow completion {} ps away overflows the clock (rate {} B/s)", t, rate);
  double nearest = std::nearbyint(t);
  if (std::fabs(t - nearest) <= 1e-6 + 1e-12 * t) return static_cast<std::int64_t>(nearest);
  return static_cast<std::int64_t>(std::ceil(t));
}

}  // namespace

struct FluidNetwork::Impl {
  explicit Impl(Engine& e) : engine(e) {}

  Engine& engine;
  std::vector<Resource> resources;
  std::vector<Flow> flows;
  std::vector<std::uint32_t> free_flows;
  std::size_t active = 0;
  std::uint64_t started = 0;
  std::uint64_t finished = 0;

  // Deferred re-solve.
  std::vector<std::uint32_t> dirty;
  bool solve_scheduled = false;
  EventId solve_event;
  std::uint64_t epoch = 0;

  // Scratch reused across solves (no allocation in steady state).
  std::vector<std::uint32_t> comp_resources;
  std::vector<std::uint32_t> comp_flows;
  std::vector<std::uint32_t> capped;
  std::vector<std::uint32_t> share_heap;
  std::vector<std::uint32_t> touched;
  std::uint64_t touch_stamp = 0;

  Flow* lookup(FlowId id) {
    std::uint64_t low = id.value & 0xFFFF'FFFFull;
    if (low == 0 || low > flows.size()) return nullptr;
    Flow& f = flows[low - 1];
    if (!f.active || f.generation != (id.value >> 32)) return nullptr;
    return &f;
  }

  void fold(Resource& r) {
    Time now = engine.now();
    r.busy_ps +=
        r.rate_sum / r.capacity_bps * static_cast<double>((now - r.last_fold).picoseconds());
    r.last_fold = now;
  }

  void advance(Flow& f) {
    Time now = engine.now();
    if (now == f.last_update) return;
    f.remaining -= f.rate * static_cast<double>((now - f.last_update).picoseconds()) / kPsPerSecond;
    if (f.remaining < 0.0) f.remaining = 0.0;
    f.last_update = now;
  }

  void mark_dirty(std::uint32_t r) {
    dirty.push_back(r);
    if (!solve_scheduled) {
      solve_scheduled = true;
      solve_event = engine.schedule_at(
          engine.now(), [this] { solve(); }, INT_MAX);
    }
  }

  std::uint32_t slot_of(const Flow& f) const {
    return static_cast<std::uint32_t>(&f - flows.data());
  }

  void schedule_completion(Flow& f) {
    std::uint32_t slot = slot_of(f);
    std::int64_t delay = completion_delay_ps(f.remaining, f.rate);
    f.done_event = engine.schedule_in(Duration::ps(delay), [this, slot] { complete(slot); });
  }

  // Detaches an active flow from its resources (folding their statistics first) and marks them
  // dirty. `moved` is the progress credited to the resources.
  void detach(Flow& f) {
    for (std::size_t k = 0; k < f.path.size(); ++k) {
      Resource& r = resources[f.path[k]];
      fold(r);
      r.rate_sum -= f.rate;
      std::uint32_t p = f.pos[k];
      r.flows[p] = r.flows.back();
      flows[r.flows[p].flow].pos[r.flows[p].hop] = p;
      r.flows.pop_back();
      if (r.flows.empty()) r.rate_sum = 0.0;  // no drift left behind on an idle resource
      mark_dirty(f.path[k]);
    }
  }

  void release(Flow& f) {
    f.active = false;
    ++f.generation;
    f.path.clear();
    f.pos.clear();
    f.on_done = nullptr;
    --active;
    free_flows.push_back(slot_of(f));
  }

  void complete(std::uint32_t slot) {
    Flow& f = flows[slot];
    for (std::uint32_t r : f.path) resources[r].finished_bytes += f.bytes;
    detach(f);
    std::function<void()> done = std::move(f.on_done);
    release(f);
    ++finished;
    if (done) done();
  }

  // Solves now instead of in the pending solve event (which is then dropped).
  void flush() {
    if (solve_scheduled) engine.cancel(solve_event);
    if (!dirty.empty()) solve();
    solve_scheduled = false;
  }

  void solve();
  void collect_component();
  void water_fill();
};

void FluidNetwork::Impl::collect_component() {
  ++epoch;
  comp_resources.clear();
  comp_flows.clear();
  for (std::uint32_t seed : dirty) {
    if (resources[seed].epoch == epoch) continue;
    resources[seed].epoch = epoch;
    comp_resources.push_back(seed);
  }
  dirty.clear();
  // Breadth-first over resource -> flows -> resources; comp_resources grows while we walk it.
  for (std::size_t i = 0; i < comp_resources.size(); ++i) {
    for (const Member& m : resources[comp_resources[i]].flows) {
      Flow& f = flows[m.flow];
      if (f.epoch == epoch) continue;
      f.epoch = epoch;
      comp_flows.push_back(m.flow);
      for (std::uint32_t r : f.path) {
        if (resources[r].epoch == epoch) continue;
        resources[r].epoch = epoch;
        comp_resources.push_back(r);
      }
    }
  }
}

void FluidNetwork::Impl::water_fill() {
  // `fixed` is flagged by new_rate >= 0; unfixed flows hold -1.
  capped.clear();
  for (std::uint32_t fi : comp_flows) {
    Flow& f = flows[fi];
    f.new_rate = -1.0;
    if (f.cap < kInf) capped.push_back(fi);
  }
  std::sort(capped.begin(), capped.end(), [this](std::uint32_t a, std::uint32_t b) {
    if (flows[a].cap != flows[b].cap) return flows[a].cap < flows[b].cap;
    return a < b;
  });

  // An indexed binary min-heap of the component's resources keyed by fair share (ties by
  // index, for determinism). Fixing flows at the minimum share only raises the others' shares
  // ((C - s) / (n - 1) >= C / n when s <= C / n), so each step re-sifts the touched resources
  // once instead of pushing a new entry per fixed flow.
  std::vector<std::uint32_t>& heap = share_heap;
  heap.clear();
  auto less = [this](std::uint32_t a, std::uint32_t b) {
    double sa = resources[a].share;
    double sb = resources[b].share;
    return sa != sb ? sa < sb : a < b;
  };
  auto place = [&](std::size_t i, std::uint32_t ri) {
    heap[i] = ri;
    resources[ri].heap_pos = static_cast<std::uint32_t>(i);
  };
  auto sift_up = [&](std::size_t i) {
    std::uint32_t x = heap[i];
    while (i > 0) {
      std::size_t parent = (i - 1) / 2;
      if (!less(x, heap[parent])) break;
      place(i, heap[parent]);
      i = parent;
    }
    place(i, x);
  };
  auto sift_down = [&](std::size_t i) {
    std::uint32_t x = heap[i];
    const std::size_t n = heap.size();
    for (;;) {
      std::size_t c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && less(heap[c + 1], heap[c])) ++c;
      if (!less(heap[c], x)) break;
      place(i, heap[c]);
      i = c;
    }
    place(i, x);
  };
  auto remove = [&](std::uint32_t ri) {
    std::size_t i = resources[ri].heap_pos;
    resources[ri].heap_pos = kNotInHeap;
    std::uint32_t last = heap.back();
    heap.pop_back();
    if (i < heap.size()) {
      place(i, last);
      sift_up(i);
      sift_down(resources[last].heap_pos);
    }
  };

  for (std::uint32_t ri : comp_resources) {
    Resource& r = resources[ri];
    r.free_capacity = r.capacity_bps;
    r.unfixed = static_cast<std::uint32_t>(r.flows.size());
    if (r.unfixed == 0) continue;
    r.share = r.free_capacity / r.unfixed;
    heap.push_back(ri);
    r.heap_pos = static_cast<std::uint32_t>(heap.size() - 1);
  }
  for (std::size_t i = heap.size() / 2; i-- > 0;) sift_down(i);

  // Fixes flow f at rate x, charging every resource on its path except `skip`.
  auto fix = [&](Flow& f, double x, std::uint32_t skip) {
    f.new_rate = x;
    for (std::uint32_t ri : f.path) {
      if (ri == skip) continue;
      Resource& r = resources[ri];
      r.free_capacity -= x;
      --r.unfixed;
      if (r.touched != touch_stamp) {
        r.touched = touch_stamp;
        touched.push_back(ri);
      }
    }
  };

  std::size_t next_cap = 0;
  for (;;) {
    while (next_cap < capped.size() && flows[capped[next_cap]].new_rate >= 0.0) ++next_cap;
    double share = heap.empty() ? kInf : resources[heap.front()].share;
    double cap = next_cap < capped.size() ? flows[capped[next_cap]].cap : kInf;
    if (share == kInf && cap == kInf) break;
    ++touch_stamp;
    touched.clear();
    if (cap <= share) {
      fix(flows[capped[next_cap]], cap, UINT32_MAX);
    } else {
      std::uint32_t ri = heap.front();
      remove(ri);
      Resource& r = resources[ri];
      for (const Member& m : r.flows) {
        Flow& f = flows[m.flow];
        if (f.new_rate < 0.0) fix(f, share, ri);
      }
      r.unfixed = 0;
      r.free_capacity = 0.0;
    }
    for (std::uint32_t ti : touched) {
      Resource& t = resources[ti];
      if (t.heap_pos == kNotInHeap) continue;
      if (t.unfixed == 0) {
        remove(ti);
        continue;
      }
      // Clamp: subtracting fixed rates can leave -1e-6 of noise where exactly 0 is meant.
      t.share = std::max(t.free_capacity, 0.0) / t.unfixed;
      sift_up(t.heap_pos);
      sift_down(t.heap_pos);
    }
  }
}

void FluidNetwork::Impl::solve() {
  solve_scheduled = false;  // a later start at this instant schedules a fresh solve
  if (dirty.empty()) return;
  collect_component();
  for (std::uint32_t fi : comp_flows) advance(flows[fi]);
  for (std::uint32_t ri : comp_resources) fold(resources[ri]);
  water_fill();

  for (std::uint32_t fi : comp_flows) {
    Flow& f = flows[fi];
    MGSIM_CHECK(f.new_rate > 0.0, "flow over '{}' got no bandwidth",
                resources[f.path.front()].name);
    if (f.new_rate == f.rate) continue;
    f.rate = f.new_rate;
    engine.cancel(f.done_event);
    schedule_completion(f);
  }
  TraceSink* sink = engine.trace();
  for (std::uint32_t ri : comp_resources) {
    Resource& r = resources[ri];
    double sum = 0.0;
    for (const Member& m : r.flows) sum += flows[m.flow].rate;
    r.rate_sum = sum;
    if (sink != nullptr && sum != r.traced_rate) {
      if (r.sink != sink) {
        std::string_view name = r.name;
        std::size_t dot = name.find('.');
        r.track = dot == std::string_view::npos
                      ? sink->track(name, name)
                      : sink->track(name.substr(0, dot), name.substr(dot + 1));
        r.sink = sink;
      }
      sink->counter(r.track, "GB/s", engine.now(), sum / 1e9);
      r.traced_rate = sum;
    }
  }
}

FluidNetwork::FluidNetwork(Engine& engine) : impl_(new Impl(engine)) {}

// The engine may outlive the network: cancel every event that would call back into it.
FluidNetwork::~FluidNetwork() {
  Impl& m = *impl_;
  if (m.solve_scheduled) m.engine.cancel(m.solve_event);
  for (Flow& f : m.flows) {
    if (f.active) m.engine.cancel(f.done_event);
  }
  delete impl_;
}

ResourceId FluidNetwork::add_resource(std::string name, Bandwidth capacity) {
  MGSIM_CHECK(capacity.bytes_per_second() > 0, "resource '{}' needs a positive capacity", name);
  Resource r;
  r.name = std::move(name);
  r.capacity = capacity;
  r.capacity_bps = static_cast<double>(capacity.bytes_per_second());
  r.last_fold = impl_->engine.now();
  impl_->resources.push_back(std::move(r));
  return ResourceId{static_cast<std::uint32_t>(impl_->resources.size() - 1)};
}

FlowId FluidNetwork::start_flow(std::span<const ResourceId> path, Bytes bytes,
                                std::optional<Bandwidth> cap, std::function<void()> on_done) {
  Impl& m = *impl_;
  MGSIM_CHECK(bytes.count() >= 0, "flow of negative size {} B", bytes.count());
  MGSIM_CHECK(!path.empty() || cap.has_value(), "a flow with an empty path needs a rate cap");
  MGSIM_CHECK(!cap || cap->bytes_per_second() > 0, "flow rate cap must be positive");
  for (ResourceId r : path) {
    MGSIM_CHECK(r.value < m.resources.size(), "unknown resource id {}", r.value);
  }
  std::uint32_t slot;
  if (!m.free_flows.empty()) {
    slot = m.free_flows.back();
    m.free_flows.pop_back();
  } else {
    MGSIM_CHECK(m.flows.size() < 0xFFFF'FFFFu, "more than 2^32 active flows");
    slot = static_cast<std::uint32_t>(m.flows.size());
    m.flows.emplace_back();
  }
  Flow& f = m.flows[slot];
  f.active = true;
  f.bytes = bytes.count();
  f.remaining = static_cast<double>(bytes.count());
  f.rate = 0.0;
  f.cap = cap ? static_cast<double>(cap->bytes_per_second()) : kInf;
  f.last_update = m.engine.now();
  f.on_done = std::move(on_done);
  f.epoch = 0;
  ++m.active;
  ++m.started;
  FlowId id{(static_cast<std::uint64_t>(f.generation) << 32) | (slot + 1ull)};

  if (bytes.count() == 0 || path.empty()) {
    // Nothing to share: a zero-byte flow ends now; a pathless flow runs at its own cap.
    f.rate = f.cap < kInf ? f.cap : 0.0;
    m.schedule_completion(f);
    return id;
  }
  f.path.reserve(path.size());
  f.pos.reserve(path.size());
  for (std::size_t k = 0; k < path.size(); ++k) {
    Resource& r = m.resources[path[k].value];
    f.path.push_back(path[k].value);
    f.pos.push_back(static_cast<std::uint32_t>(r.flows.size()));
    r.flows.push_back(Member{slot, static_cast<std::uint32_t>(k)});
  }
  m.mark_dirty(path[0].value);
  return id;
}

bool FluidNetwork::cancel_flow(FlowId id) {
  Impl& m = *impl_;
  Flow* f = m.lookup(id);
  if (f == nullptr) return false;
  m.advance(*f);
  double moved = static_cast<double>(f->bytes) - f->remaining;
  for (std::uint32_t r : f->path) m.resources[r].partial_bytes += moved;
  m.engine.cancel(f->done_event);
  m.detach(*f);
  m.release(*f);
  return true;
}

double FluidNetwork::rate(FlowId id) const {
  impl_->flush();
  const Flow* f = impl_->lookup(id);
  return f == nullptr ? 0.0 : f->rate;
}

std::size_t FluidNetwork::active_flows() const { return impl_->active; }

std::size_t FluidNetwork::resource_count() const { return impl_->resources.size(); }

const std::string& FluidNetwork::name(ResourceId r) const {
  MGSIM_CHECK(r.value < impl_->resources.size(), "unknown resource id {}", r.value);
  return impl_->resources[r.value].name;
}

Bandwidth FluidNetwork::capacity(ResourceId r) const {
  MGSIM_CHECK(r.value < impl_->resources.size(), "unknown resource id {}", r.value);
  return impl_->resources[r.value].capacity;
}

ResourceStats FluidNetwork::stats(ResourceId r) {
  Impl& m = *impl_;
  MGSIM_CHECK(r.value < m.resources.size(), "unknown resource id {}", r.value);
  m.flush();
  Resource& res = m.resources[r.value];
  m.fold(res);
  double partial = res.partial_bytes;
  for (const Member& mem : res.flows) {
    Flow& f = m.flows[mem.flow];
    m.advance(f);
    partial += static_cast<double>(f.bytes) - f.remaining;
  }
  ResourceStats s;
  s.bytes_carried = Bytes(res.finished_bytes + std::llround(partial));
  s.busy_ps = res.busy_ps;
  return s;
}

std::uint64_t FluidNetwork::flows_started() const { return impl_->started; }

std::uint64_t FluidNetwork::flows_finished() const { return impl_->finished; }

}  // namespace mgsim::sim
