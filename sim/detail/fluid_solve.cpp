// The re-solve of FluidNetwork: collect the component of the dirty resources, advance its
// flows, water-fill, and re-schedule the completions whose rate changed. The model, numerics
// and costs are described in sim/detail/fluid_impl.hpp.
#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>

#include "sim/detail/fluid_impl.hpp"

namespace mgsim::sim {

using detail::kInf;
using detail::kNotInHeap;

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

std::size_t FluidNetwork::Impl::fix_lone_flows() {
  // A flow alone on every resource of its path (an MMA on its SM's tensor pipe, say) is a
  // component of its own: progressive filling gives it min(cap, min C_r / m), the smaller of its
  // cap and the first of its resources to pop (share C_r / m, m its bundle's members: exact).
  // It is fixed here, and neither it nor its resources enter water_fill's heaps; components do
  // not interact, so every other flow gets the same rate, to the bit, as when it was filled
  // along with them.
  //
  // Lone flows are found from the resources' side, so that a flow on a shared resource costs
  // no look at its path (with 10,000 flows on one link, that was a cache miss per flow). A
  // capped one stays in capped_keys, skipped as fixed if it comes to the top.
  std::size_t fixed = 0;
  for (std::uint32_t ri : comp_resources) {
    const Resource& r = resources[ri];
    if (r.flows.size() != 1) continue;
    Flow& f = flows[r.flows.front().flow];
    if (f.new_rate >= 0.0) continue;
    bool alone = true;
    double least = f.cap;
    for (std::uint32_t pi : f.path) {
      const Resource& p = resources[pi];
      if (p.flows.size() != 1) {
        alone = false;
        break;
      }
      least = std::min(least, f.members == 1 ? p.capacity_bps : p.capacity_bps / f.members);
    }
    if (alone) {
      f.new_rate = least;
      ++fixed;
    }
  }
  return fixed;
}

void FluidNetwork::Impl::water_fill() {
  // `fixed` is flagged by new_rate >= 0; unfixed flows hold -1.
  //
  // Capped flows wait in a min-heap of (cap, slot) pairs rather than a sorted list: they are
  // taken in the same order (the pairs are distinct), and a saturated resource usually fixes
  // them all at its share before any cap is reached, so most are never popped (sorting them
  // all was ~5 % of a GEMM simulation).
  std::size_t unfixed_flows = comp_flows.size();
  capped_keys.clear();
  for (std::uint32_t fi : comp_flows) {
    Flow& f = flows[fi];
    f.new_rate = -1.0;
    if (f.cap < kInf) capped_keys.append({f.cap, fi});
  }
  unfixed_flows -= fix_lone_flows();
  if (unfixed_flows == 0) return;
  capped_keys.heapify();

  // An indexed binary min-heap of the component's resources keyed by fair share (ties by
  // index, for determinism). Fixing flows at the minimum share only raises the others' shares
  // ((C - s) / (n - 1) >= C / n when s <= C / n), so each step re-sifts the touched resources
  // once instead of pushing a new entry per fixed flow.
  detail::ShareHeap& heap = share_heap;
  heap.clear();
  for (std::uint32_t ri : comp_resources) {
    Resource& r = resources[ri];
    r.free_capacity = r.capacity_bps;
    if (r.flows.empty() || (r.flows.size() == 1 && flows[r.flows.front().flow].new_rate >= 0.0)) {
      r.unfixed = 0;  // its one flow was fixed above, alone in its component
      continue;
    }
    r.unfixed = static_cast<std::uint32_t>(r.flows.size()) + r.extra_members;
    r.share = r.free_capacity / r.unfixed;
    heap.append(ri);
  }
  heap.heapify();

  // Fixes flow f (its bundle's members) at rate x, charging every resource on its path except
  // `skip`.
  auto fix = [&](Flow& f, double x, std::uint32_t skip) {
    f.new_rate = x;
    --unfixed_flows;
    const double taken = f.members == 1 ? x : x * f.members;
    for (std::uint32_t ri : f.path) {
      if (ri == skip) continue;
      Resource& r = resources[ri];
      r.free_capacity -= taken;
      r.unfixed -= f.members;
      if (r.touched != touch_stamp) {
        r.touched = touch_stamp;
        touched.push_back(ri);
      }
    }
  };

  while (unfixed_flows > 0) {
    while (!capped_keys.empty() && flows[capped_keys.top().second].new_rate >= 0.0)
      capped_keys.pop();
    double share = heap.empty() ? kInf : resources[heap.top()].share;
    double cap = capped_keys.empty() ? kInf : capped_keys.top().first;
    if (share == kInf && cap == kInf) break;
    ++touch_stamp;
    touched.clear();
    if (cap <= share) {
      fix(flows[capped_keys.top().second], cap, UINT32_MAX);
    } else {
      std::uint32_t ri = heap.top();
      heap.pop();
      resources[ri].heap_pos = kNotInHeap;
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
        heap.remove(t.heap_pos);
        t.heap_pos = kNotInHeap;
        continue;
      }
      // Clamp: subtracting fixed rates can leave -1e-6 of noise where exactly 0 is meant.
      t.share = std::max(t.free_capacity, 0.0) / t.unfixed;
      heap.update(t.heap_pos);
    }
  }
  for (std::uint32_t ri : heap) resources[ri].heap_pos = kNotInHeap;  // none left when all fixed
}

// settle_queues: what flows now load queueing resource ri with (all of them, the window flows
// that wait in its queue, and those that also cross its marker), with its window flows
// (window_flows).
FluidNetwork::Impl::QueueLoad FluidNetwork::Impl::queue_load(std::uint32_t ri) {
  Resource& r = resources[ri];
  double load = 0.0, windowed = 0.0, marked = 0.0;
  window_flows.clear();
  if (r.queue_marker != detail::kNoMarker) {
    // A flow's hops on the marker: that many of its hops here are marked (a copy crosses
    // its HBM twice, once written).
    ++queue_stamp;
    for (const Member& m : resources[r.queue_marker].flows) {
      Flow& f = flows[m.flow];
      f.queue_marks = f.queue_stamp == queue_stamp ? f.queue_marks + 1 : 1;
      f.queue_stamp = queue_stamp;
    }
  }
  for (const Member& m : r.flows) {
    Flow& f = flows[m.flow];
    const double members = f.members;
    load += f.new_rate * members;
    if (r.queue_marker != detail::kNoMarker && f.queue_stamp == queue_stamp && f.queue_marks > 0) {
      marked += f.new_rate * members;
      --f.queue_marks;
    }
    // A window flow that does not wait here moves as the other flows do.
    if (f.window == 0.0 || !waits_at(f, ri)) continue;
    windowed += f.new_rate * members;
    // Its hold per wait besides this resource's delay; what else limits it (the rate it has
    // unless its window's cap binds: its static cap if it does). A flow listed here twice is
    // two entries: its rate counts twice in the utilisation.
    const double hold = f.hold + path_delay(f, ri);
    const bool bound = f.cap < f.static_cap && f.new_rate >= f.cap * (1 - 1e-9);
    window_flows.push_back({f.window, hold, bound ? f.static_cap : f.new_rate, members, f.loop});
  }
  return {load, windowed, marked};
}

void FluidNetwork::Impl::settle_queues() {
  comp_queues.clear();
  for (std::uint32_t ri : comp_resources) {
    if (resources[ri].queue_coefficient > 0.0) comp_queues.push_back(ri);
  }
  if (comp_queues.empty()) return;
  if (std::none_of(comp_flows.begin(), comp_flows.end(),
                   [this](std::uint32_t fi) { return flows[fi].window > 0.0; }))
    return;
  for (std::uint32_t ri : comp_queues) {
    Resource& r = resources[ri];
    r.have_lo = r.have_hi = false;
  }
  // Solved in the utilisation u a resource's delay is computed at (delay = c u / (1 - u) + x,
  // x what mixing adds, QueueMix's, as this fill has the flows: 0 for most): the
  // excess e(u) = the utilisation the fill gives - u falls as u grows (a longer delay slows the
  // window flows). Each step predicts the next fill: a window flow would move window / (its
  // hold + the delay), or less if something else limits it (what it got from this fill unless
  // its window's cap bound it), every other flow what it moves now; the u where that prediction
  // agrees with its delay is found by bisection (no fill needed), and a fill then checks it. The
  // fills' signs of e keep a bracket, bisected when a prediction leaves it.
  for (int step = 0; step < detail::kMaxQueueSteps; ++step) {
    bool settled = true;
    for (std::uint32_t ri : comp_queues) {
      Resource& r = resources[ri];
      const auto [load, windowed, marked] = queue_load(ri);
      const double u = r.queue_rho;
      const double measured = std::min(load / r.capacity_bps, detail::kMaxQueueRho);
      const double e = measured - u;
      const double extra =
          load > 0.0 ? r.queue_mix * 2.0 * marked * (load - marked) / (load * r.capacity_bps) : 0.0;
      const bool extra_moved = std::fabs(extra - r.queue_extra) >
                               detail::kQueueTolerance * (r.queue_coefficient + r.queue_mix);
      if (std::fabs(e) <= detail::kQueueTolerance && !extra_moved) continue;
      settled = false;
      if (extra_moved) {  // the delay's curve moved: the fills' bracket no longer holds
        r.queue_extra = extra;
        r.have_lo = r.have_hi = false;
      } else if (e > 0.0) {
        r.lo = u;
        r.have_lo = true;
      } else {
        r.hi = u;
        r.have_hi = true;
      }
      const double lo = r.have_lo ? r.lo : 0.0;
      const double hi = r.have_hi ? r.hi : detail::kMaxQueueRho;
      const double other = load - windowed;
      auto predicted = [&](double v) {  // the utilisation the next fill would give at u = v
        const double delay = delay_at(r, v);
        double x = other;
        for (const WindowFlow& w : window_flows)
          x += w.members * std::min(w.limit, window_rate(w.window, w.loop, w.hold + delay));
        return std::min(x / r.capacity_bps, detail::kMaxQueueRho);
      };
      double a = lo, b = hi;
      for (int i = 0; i < 40 && b - a > detail::kQueueTolerance / 4; ++i) {
        const double mid = (a + b) / 2;
        (predicted(mid) > mid ? a : b) = mid;
      }
      double next = (a + b) / 2;
      // Saturated by flows the delay does not slow (stores, copies): the root is at the limit
      // unless the window flows' slowing frees the resource; the next fill tells. A prediction
      // outside the bracket, or still no bracket after a few steps, bisects it.
      if (measured >= detail::kMaxQueueRho) next = detail::kMaxQueueRho;
      if (!(next > lo && next <= hi) || (step >= 3 && r.have_lo && r.have_hi)) next = (lo + hi) / 2;
      r.queue_rho = next;
      r.queue_delay = delay_at(r, next);
    }
    if (settled) return;
    for (std::uint32_t fi : comp_flows) {
      if (flows[fi].window > 0.0) window_cap(flows[fi]);
    }
    water_fill();
  }
}

void FluidNetwork::Impl::solve() {
  solve_scheduled = false;  // a later start at this instant schedules a fresh solve
  if (dirty.empty()) return;
  count_members();
  collect_component();
  for (std::uint32_t fi : comp_flows) advance(flows[fi]);
  for (std::uint32_t ri : comp_resources) fold(resources[ri]);
  if (window_flows_active > 0) {
    for (std::uint32_t fi : comp_flows) {
      if (flows[fi].window > 0.0) window_cap(flows[fi]);
    }
  }
  water_fill();
  if (window_flows_active > 0) settle_queues();

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
    for (const Member& m : r.flows) sum += flows[m.flow].rate * flows[m.flow].members;
    r.rate_sum = sum;
    if (sink != nullptr && sum != r.traced_rate) {
      if (r.sink != sink) {
        std::string_view name = r.name;
        std::size_t dot = name.find('.');
        r.track = !r.track_process.empty() ? sink->track(r.track_process, r.track_thread)
                  : dot == std::string_view::npos
                      ? sink->track(name, name)
                      : sink->track(name.substr(0, dot), name.substr(dot + 1));
        r.sink = sink;
      }
      sink->counter(r.track, r.counter, engine.now(), sum / 1e9);
      r.traced_rate = sum;
    }
  }
}

}  // namespace mgsim::sim
