// FluidNetwork's private state (shared by sim/fluid.cpp, the public API and event handling,
// and sim/detail/fluid_solve.cpp, the re-solve). Not part of the public interface.
//
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
// Bundles: flows started at one instant with the same path, bytes, cap and window get the same
// rate at every solve until they end together (max-min fairness treats equal flows alike), so
// the later ones join the first (start_flow) instead of being solved apart: the first flow's slot
// is the bundle's leader, with `members` equal flows, and counts that many times on each resource
// (its share of a resource's unfixed flows, what it takes of the capacity, rate_sum, the bytes
// carried); each later member is an alias slot that holds only its callback and its id (rate(),
// cancel_flow). When the leader completes, its callback runs, then its aliases' in the order they
// joined, all at that picosecond. A bundle is joined only while none of it has moved (its
// last_update is now and nothing is done), so a member's rate and end are exactly those it would
// have had alone: the kernels' CTAs that start one multimem op together (a GPU's 132 or 148) are
// one flow to the solver, not 132 over the same hundreds of links.
//
// Water-filling: resources sit in an indexed min-heap keyed by their fair share (remaining
// capacity / unfixed flows, re-sifted when it changes), capped flows in a min-heap by cap (both
// sim/detail/heap.hpp). Each
// step fixes either the smallest cap (one flow) or every unfixed flow of the resource with the
// smallest share. Cost: O((F * path + R) log R) for a component of F flows, R resources. A flow
// alone on all its resources is fixed at min(cap, capacities) without entering either heap.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sim/check.hpp"
#include "sim/detail/heap.hpp"
#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "sim/trace.hpp"

namespace mgsim::sim {

namespace detail {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kPsPerSecond = 1e12;
inline constexpr std::uint32_t kNotInHeap = UINT32_MAX;
// Queueing (fluid.hpp): the utilisation a delay is computed at is held at or below kMaxQueueRho,
// so the delay is at most 19 x the coefficient: a real queue holds what its clients keep in
// flight, not M/M/1's unbounded line (on the H200, 850 ns, about the most a read waited beyond
// one CTA's in validate/data/h200-single/mlp.csv: 908 ns, the median of its rows above 0.95 of
// the HBM; at 0.99 a resource saturated by stores held reads 4.4 us); a re-solve stops when every
// queueing resource's utilisation is within kQueueTolerance of the one its delay was computed at,
// or after kMaxQueueSteps water-fillings.
inline constexpr double kMaxQueueRho = 0.95;
inline constexpr double kQueueTolerance = 1e-4;
inline constexpr int kMaxQueueSteps = 24;
inline constexpr std::uint32_t kNoMarker = UINT32_MAX;

// How a window flow waits (Window): its path's first `waited` hops, whose queues it waits in;
// as a closed loop (none: customers 0), its customers, the waits per window, and the seconds
// each customer's bytes take at the station per cycle.
struct Loop {
  std::uint32_t waited = 0;
  std::uint32_t customers = 0;
  double waits = 1.0;
  double demand = 0.0;
  bool operator==(const Loop&) const = default;
};

// What a flow must share with a bundle besides its path (Bundles): its bytes, its static cap,
// and its window's bytes per wait, hold and loop.
struct Shape {
  std::int64_t bytes = 0;
  double cap = kInf;
  double window = 0.0;
  double hold = 0.0;
  Loop loop;
};

struct Member {
  std::uint32_t flow;  // flow slot
  std::uint32_t hop;   // index into that flow's path
};

struct Resource {
  std::string name;
  Bandwidth capacity;
  double capacity_bps = 0.0;
  std::vector<Member> flows;
  std::uint32_t extra_members = 0;  // its flows' bundles' members beyond one each (as counted)
  double rate_sum = 0.0;            // bytes/s allocated now
  // Queueing (set_queueing): the coefficient (seconds), the utilisation the last solve settled
  // at and its delay (seconds); the re-solve's bracket of the utilisation where the rates agree
  // with the delay they give.
  double queue_coefficient = 0.0;
  double queue_rho = 0.0;
  double queue_delay = 0.0;
  // set_queueing's QueueMix: the flows that also cross `queue_marker` mixed with the rest add
  // queue_extra = queue_mix x 2 rho_m rho_u / rho seconds to the delay (as the last fill had
  // them).
  std::uint32_t queue_marker = kNoMarker;
  double queue_mix = 0.0;
  double queue_extra = 0.0;
  double lo = 0.0, hi = 0.0;
  bool have_lo = false, have_hi = false;
  // Statistics.
  Time last_fold;
  double busy_ps = 0.0;
  std::int64_t finished_bytes = 0;  // exact: whole flows that completed
  double partial_bytes = 0.0;       // progress of flows cancelled midway
  // Tracing.
  TraceSink* sink = nullptr;
  std::string track_process, track_thread;  // empty: split from the name
  std::string counter = "GB/s";             // the rate counter's name
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

// Per-hop values of a flow, held inline up to kInline hops (the presets' paths have 1 to 6), on
// the heap beyond (kept when the flow slot is reused). Inline because with std::vector, reading
// a flow's path and back-pointers cost a cache miss of its own at every start, completion and
// solve of a GEMM simulation.
class Hops {
 public:
  static constexpr std::uint32_t kInline = 6;

  const std::uint32_t* begin() const { return data(); }
  const std::uint32_t* end() const { return data() + size_; }
  std::size_t size() const { return size_; }
  std::uint32_t front() const { return data()[0]; }
  std::uint32_t& operator[](std::size_t i) { return data()[i]; }
  std::uint32_t operator[](std::size_t i) const { return data()[i]; }
  void clear() { size_ = 0; }
  void push_back(std::uint32_t v) {
    if (size_ == capacity()) grow();
    data()[size_++] = v;
  }

 private:
  std::uint32_t capacity() const { return heap_ ? heap_capacity_ : kInline; }
  std::uint32_t* data() { return heap_ ? heap_.get() : inline_; }
  const std::uint32_t* data() const { return heap_ ? heap_.get() : inline_; }
  void grow() {
    const std::uint32_t n = 2 * capacity();
    auto bigger = std::make_unique<std::uint32_t[]>(n);
    std::copy(begin(), end(), bigger.get());
    heap_ = std::move(bigger);
    heap_capacity_ = n;
  }

  std::uint32_t inline_[kInline] = {};
  std::uint32_t size_ = 0;
  std::uint32_t heap_capacity_ = 0;
  std::unique_ptr<std::uint32_t[]> heap_;
};

// The water-filling's order of resources: by fair share, ties by index (for determinism); a
// resource's heap_pos follows it through the heap.
struct ShareLess {
  const std::vector<Resource>* resources;
  bool operator()(std::uint32_t a, std::uint32_t b) const {
    const double sa = (*resources)[a].share;
    const double sb = (*resources)[b].share;
    return sa != sb ? sa < sb : a < b;
  }
};
struct HeapPos {
  std::vector<Resource>* resources;
  void operator()(std::uint32_t ri, std::size_t i) const {
    (*resources)[ri].heap_pos = static_cast<std::uint32_t>(i);
  }
};
using ShareHeap = Heap<std::uint32_t, 2, ShareLess, HeapPos>;
// (cap, flow slot) pairs; distinct, so popped in one order whatever the heap's history.
using CapHeap = Heap<std::pair<double, std::uint32_t>, 2, std::less<>>;

inline constexpr std::uint32_t kNoLeader = UINT32_MAX;

struct Flow {
  std::uint32_t generation = 1;
  bool active = false;
  // A bundle's leader (Bundles, above): `members` equal flows, its aliases' slots in join order.
  // An alias: `leader` is its leader's slot, and it is on no resource.
  std::uint32_t members = 1;
  std::uint32_t counted = 1;  // members its resources' extra_members hold (count_members)
  std::uint32_t leader = kNoLeader;
  std::vector<std::uint32_t> aliases;
  bool headless = false;  // a leader whose own member was cancelled: it carries its aliases
  Hops path;              // resource indices
  Hops pos;               // pos[k]: this flow's index in resources[path[k]].flows
  std::int64_t bytes = 0;
  double remaining = 0.0;
  double rate = 0.0;
  double cap = kInf;         // the smaller of static_cap and the window's cap
  double static_cap = kInf;  // start_flow's cap
  double window = 0.0;       // bytes in flight (0: not a window flow)
  double hold = 0.0;         // seconds each holds its slot, before queueing
  Loop loop;                 // how a window flow waits
  Time last_update;
  EventId done_event;
  std::function<void()> on_done;
  // Solver scratch.
  std::uint64_t epoch = 0;
  std::uint64_t queue_stamp = 0;  // settle_queues: it crosses the queue's marker
  std::uint32_t queue_marks = 0;  // settle_queues: its hops on that marker not yet counted
  double new_rate = 0.0;
};

// Delay until `remaining` bytes have moved at `rate`, in whole picoseconds (see Numerics above).
inline std::int64_t completion_delay_ps(double remaining, double rate) {
  if (remaining <= 0.0) return 0;
  double t = remaining * kPsPerSecond / rate;
  if (!(t < 4e18))
    throw ClockOverflow(
        fmt::format("a transfer would end {:.3g} s from now, past the simulator's "
                    "clock (about 106 days of simulated time): {:.3g} bytes left "
                    "at {:.3g} B/s",
                    t / kPsPerSecond, remaining, rate));
  double nearest = std::nearbyint(t);
  if (std::fabs(t - nearest) <= 1e-6 + 1e-12 * t) return static_cast<std::int64_t>(nearest);
  return static_cast<std::int64_t>(std::ceil(t));
}

}  // namespace detail

struct FluidNetwork::Impl {
  using Member = detail::Member;
  using Resource = detail::Resource;
  using Flow = detail::Flow;

  explicit Impl(Engine& e)
      : engine(e), share_heap(detail::ShareLess{&resources}, detail::HeapPos{&resources}) {}
  Impl(const Impl&) = delete;  // the heaps point at `resources`
  Impl& operator=(const Impl&) = delete;

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
  detail::CapHeap capped_keys;
  detail::ShareHeap share_heap;
  std::vector<std::uint32_t> touched;
  std::uint64_t touch_stamp = 0;
  std::vector<std::uint32_t> comp_queues;  // the component's queueing resources
  std::uint64_t queue_stamp = 0;        // settle_queues: marks the flows crossing a queue's marker
  std::size_t window_flows_active = 0;  // none: solves skip the window caps and queues
  // settle_queues: a queueing resource's window flows: window and hold per wait (the hold
  // besides that resource's delay), and what else limits the flow.
  struct WindowFlow {
    double window, hold, limit, members;
    detail::Loop loop;
  };
  std::vector<WindowFlow> window_flows;
  struct QueueLoad {
    double load, windowed, marked;  // bytes/s
  };
  QueueLoad queue_load(std::uint32_t ri);
  // Bundles open for joining: the leaders started at the current instant, in an open-addressing
  // table by a hash of what must be equal (start_flow; no allocation per flow). An entry counts
  // only if its stamp is the instant's (a new instant empties the table by a new stamp); with
  // the leader's generation, since a slot may be reused within the instant.
  struct OpenBundle {
    std::uint64_t key = 0;
    std::uint64_t stamp = 0;
    std::uint32_t slot = 0, generation = 0;
  };
  std::vector<OpenBundle> open_bundles;  // a power of two long, at most half full
  std::size_t open_count = 0;
  // Leaders whose members have grown since their resources' extra_members counted them: a
  // member joins in O(1), and count_members adds each bundle's growth over its path once, before
  // anything reads extra_members (a solve, a detach, a cancel).
  std::vector<std::uint32_t> uncounted;
  std::uint64_t open_stamp = 0;
  Time bundle_time;

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
    f.remaining -=
        f.rate * static_cast<double>((now - f.last_update).picoseconds()) / detail::kPsPerSecond;
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
    std::int64_t delay = detail::completion_delay_ps(f.remaining, f.rate);
    f.done_event = engine.schedule_in(Duration::ps(delay), [this, slot] { complete(slot); });
  }

  // Detaches an active flow from its resources (folding their statistics first) and marks them
  // dirty. `moved` is the progress credited to the resources.
  void detach(Flow& f) {
    count_members();
    for (std::size_t k = 0; k < f.path.size(); ++k) {
      Resource& r = resources[f.path[k]];
      fold(r);
      r.rate_sum -= f.rate * f.members;
      r.extra_members -= f.members - 1;
      std::uint32_t p = f.pos[k];
      r.flows[p] = r.flows.back();
      flows[r.flows[p].flow].pos[r.flows[p].hop] = p;
      r.flows.pop_back();
      if (r.flows.empty()) r.rate_sum = 0.0;  // no drift left behind on an idle resource
      mark_dirty(f.path[k]);
    }
  }

  void release(Flow& f) {
    if (f.window > 0.0) --window_flows_active;
    f.window = 0.0;
    f.members = 1;
    f.counted = 1;
    f.leader = detail::kNoLeader;
    f.aliases.clear();
    f.active = false;
    ++f.generation;
    f.path.clear();
    f.pos.clear();
    f.on_done = nullptr;
    if (!f.headless) --active;
    f.headless = false;
    free_flows.push_back(slot_of(f));
  }

  void complete(std::uint32_t slot) {
    Flow& f = flows[slot];
    for (std::uint32_t r : f.path) resources[r].finished_bytes += f.bytes * f.members;
    detach(f);
    std::function<void()> done = std::move(f.on_done);  // none if the leader was cancelled
    finished += f.members;
    if (f.aliases.empty()) {
      release(f);
      if (done) done();
      return;
    }
    // The callbacks may start flows, which may take these slots: take everything out first.
    const std::vector<std::uint32_t> aliases = std::move(f.aliases);
    release(f);
    std::vector<std::function<void()>> more;
    more.reserve(aliases.size());
    for (std::uint32_t a : aliases) {
      more.push_back(std::move(flows[a].on_done));
      release(flows[a]);
    }
    if (done) done();
    for (auto& d : more)
      if (d) d();
  }

  // Solves now instead of in the pending solve event (which is then dropped).
  void flush() {
    if (solve_scheduled) engine.cancel(solve_event);
    if (!dirty.empty()) solve();
    solve_scheduled = false;
  }

  void solve();
  void collect_component();
  // Fixes the flows alone on all their resources; returns how many. REQUIRES: every flow of the
  // component has new_rate < 0 (unfixed).
  std::size_t fix_lone_flows();
  void water_fill();
  // Bundles (above; defined below, inline: start_flow's hot path): what a flow must share with a
  // bundle to join it, hashed; the table opened for the current instant; the leader of an open
  // bundle equal to such a flow (started at this instant, nothing moved); a bundle opened, led by
  // `slot`.
  static std::uint64_t bundle_key(std::span<const ResourceId> path, const detail::Shape& shape);
  void open_instant();
  std::optional<std::uint32_t> find_bundle(std::uint64_t key, std::span<const ResourceId> path,
                                           const detail::Shape& shape) const;
  void add_bundle(std::uint64_t key, std::uint32_t slot);
  void insert_bundle(const OpenBundle& o);
  // Adds a member to leader `l`'s bundle: alias `slot` holds its callback and id.
  void join_bundle(std::uint32_t l, std::uint32_t slot);
  // Brings every resource's extra_members up to its bundles' members (uncounted, above).
  void count_members();
  // What a window flow moves when each of its waits lasts `wait` seconds (its hold and the
  // queueing delays): its window per wait, or its closed loop's rate (Window).
  static double window_rate(const Flow& f, double wait) {
    return window_rate(f.window, f.loop, wait);
  }
  static double window_rate(double window, const detail::Loop& loop, double wait) {
    if (loop.customers == 0) return window / wait;
    const double per_customer = window * loop.waits / loop.customers;
    return per_customer * closed_loop_rate(loop.customers, wait * loop.waits, loop.demand);
  }
  // A queueing resource's delay at utilisation u: coefficient x u / (1 - u) + what mixing adds.
  static double delay_at(const detail::Resource& r, double u) {
    return r.queue_coefficient * u / (1.0 - u) + r.queue_extra;
  }
  // Whether a window flow waits in resource r's queue: r is among its waited hops.
  static bool waits_at(const Flow& f, std::uint32_t r) {
    const auto end = f.path.begin() + static_cast<std::ptrdiff_t>(f.loop.waited);
    return std::find(f.path.begin(), end, r) != end;
  }
  // The queueing delays a window flow waits in: those of its waited hops, each queue once
  // however often the path lists it (a local copy's bytes cross its HBM twice, read and written,
  // but its loads wait in the queue once); `skip`'s not at all.
  double path_delay(const Flow& f, std::uint32_t skip = UINT32_MAX) const {
    double delay = 0.0;
    for (std::size_t k = 0; k < f.loop.waited; ++k) {
      const std::uint32_t r = f.path[k];
      if (r == skip || resources[r].queue_delay == 0.0) continue;
      if (std::find(f.path.begin(), f.path.begin() + static_cast<std::ptrdiff_t>(k), r) !=
          f.path.begin() + static_cast<std::ptrdiff_t>(k))
        continue;
      delay += resources[r].queue_delay;
    }
    return delay;
  }
  // A window flow's cap with its path's queueing delays as they stand.
  void window_cap(Flow& f) const {
    f.cap = std::min(f.static_cap, window_rate(f, f.hold + path_delay(f)));
  }
  // An active flow's leader: itself unless it is an alias.
  Flow& leader_of(Flow& f) { return f.leader == detail::kNoLeader ? f : flows[f.leader]; }
  // After water_fill: finds the queueing delays of the component's queueing resources that the
  // rates they give agree with, re-filling at each step (fluid_solve.cpp).
  void settle_queues();
};

// Bundles: start_flow's look-up and registration (Bundles, above).

inline std::uint64_t FluidNetwork::Impl::bundle_key(std::span<const ResourceId> path,
                                                    const detail::Shape& shape) {
  // Every hop, in four independent lanes: a multimem op's path crosses every member's ports
  // (1,728 hops on nvl576), and one chain of dependent mixes per hop cost more than the rest of
  // a start.
  constexpr std::uint64_t kMul = 0x9E37'79B9'7F4A'7C15ull;
  std::uint64_t lane[4] = {kMul ^ static_cast<std::uint64_t>(shape.bytes), path.size(), 1, 2};
  std::size_t i = 0;
  for (; i + 4 <= path.size(); i += 4)
    for (std::size_t k = 0; k < 4; ++k) lane[k] = (lane[k] ^ path[i + k].value) * kMul;
  for (; i < path.size(); ++i) lane[0] = (lane[0] ^ path[i].value) * kMul;
  std::uint64_t h = lane[0];
  auto mix = [&h](std::uint64_t v) { h ^= v + kMul + (h << 6) + (h >> 2); };
  mix(lane[1]);
  mix(lane[2]);
  mix(lane[3]);
  mix(std::bit_cast<std::uint64_t>(shape.cap));
  mix(std::bit_cast<std::uint64_t>(shape.window));
  mix(std::bit_cast<std::uint64_t>(shape.hold));
  mix(shape.loop.customers);
  mix(shape.loop.waited);
  mix(std::bit_cast<std::uint64_t>(shape.loop.demand));
  return h;
}

inline void FluidNetwork::Impl::open_instant() {
  if (bundle_time == engine.now() && open_stamp != 0) return;
  bundle_time = engine.now();
  ++open_stamp;  // every entry of an earlier instant is now empty
  open_count = 0;
}

inline std::optional<std::uint32_t> FluidNetwork::Impl::find_bundle(
    std::uint64_t key, std::span<const ResourceId> path, const detail::Shape& shape) const {
  static_assert(sizeof(ResourceId) == sizeof(std::uint32_t) &&
                std::is_trivially_copyable_v<ResourceId>);
  if (open_bundles.empty()) return std::nullopt;
  const std::size_t mask = open_bundles.size() - 1;
  for (std::size_t i = key & mask; open_bundles[i].stamp == open_stamp; i = (i + 1) & mask) {
    const OpenBundle& o = open_bundles[i];
    if (o.key != key) continue;
    const Flow& l = flows[o.slot];
    // Started at this instant (the table holds no other), so nothing of it has moved; its bytes
    // times its members must still fit the resources' exact count of bytes carried.
    if (!l.active || l.generation != o.generation || l.bytes != shape.bytes ||
        l.static_cap != shape.cap || l.window != shape.window || l.hold != shape.hold ||
        l.loop != shape.loop || l.path.size() != path.size() ||
        l.bytes > std::numeric_limits<std::int64_t>::max() / (l.members + 1))
      continue;
    if (std::memcmp(path.data(), l.path.begin(), path.size() * sizeof(std::uint32_t)) == 0)
      return o.slot;
  }
  return std::nullopt;
}

inline void FluidNetwork::Impl::add_bundle(std::uint64_t key, std::uint32_t slot) {
  if (2 * (open_count + 1) > open_bundles.size()) {
    std::vector<OpenBundle> old = std::move(open_bundles);
    open_bundles.assign(std::max<std::size_t>(64, 2 * old.size()), OpenBundle{});
    open_count = 0;
    for (const OpenBundle& o : old)
      if (o.stamp == open_stamp) insert_bundle(o);
  }
  insert_bundle({key, open_stamp, slot, flows[slot].generation});
}

inline void FluidNetwork::Impl::join_bundle(std::uint32_t l, std::uint32_t slot) {
  Flow& leader = flows[l];
  flows[slot].leader = l;
  if (leader.members++ == leader.counted) uncounted.push_back(l);
  leader.aliases.push_back(slot);
  mark_dirty(leader.path.front());
}

inline void FluidNetwork::Impl::count_members() {
  for (std::uint32_t l : uncounted) {
    Flow& f = flows[l];
    const std::uint32_t grown = f.members - f.counted;
    for (std::uint32_t r : f.path) resources[r].extra_members += grown;
    f.counted = f.members;
  }
  uncounted.clear();
}

inline void FluidNetwork::Impl::insert_bundle(const OpenBundle& o) {
  const std::size_t mask = open_bundles.size() - 1;
  std::size_t i = o.key & mask;
  while (open_bundles[i].stamp == open_stamp) i = (i + 1) & mask;  // linear probing
  open_bundles[i] = o;
  ++open_count;
}

}  // namespace mgsim::sim
