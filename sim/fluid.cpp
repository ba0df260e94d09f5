// FluidNetwork's public interface: resources, starting and cancelling flows, queries. The
// model and its numerics are described in sim/detail/fluid_impl.hpp; the re-solve lives in
// sim/detail/fluid_solve.cpp.
#include "sim/fluid.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/detail/fluid_impl.hpp"

namespace mgsim::sim {

double closed_loop_rate(std::int64_t customers, double think, double demand) {
  MGSIM_CHECK(customers >= 1 && customers <= 65536 && think >= 0.0 && demand > 0.0,
              "a closed loop needs 1..65536 customers, a wait >= 0 and a demand > 0");
  double queued = 0.0, rate = 0.0;
  for (std::int64_t k = 1; k <= customers; ++k) {
    const double response = demand * (1.0 + queued);
    rate = static_cast<double>(k) / (think + response);
    queued = rate * response;
  }
  return rate;
}

using detail::Flow;
using detail::kInf;
using detail::Member;
using detail::Resource;

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

void FluidNetwork::reserve_resources(std::size_t more) {
  // Geometric, as push_back grows: a reserve per GPU must not copy every resource per GPU.
  std::vector<Resource>& r = impl_->resources;
  if (r.size() + more > r.capacity()) r.reserve(std::max(r.size() + more, 2 * r.capacity()));
}

void FluidNetwork::set_trace_track(ResourceId id, std::string process, std::string thread) {
  MGSIM_CHECK(id.value < impl_->resources.size(), "resource id {} out of range", id.value);
  Resource& r = impl_->resources[id.value];
  r.track_process = std::move(process);
  r.track_thread = std::move(thread);
}

void FluidNetwork::set_trace_counter(ResourceId id, std::string name) {
  MGSIM_CHECK(id.value < impl_->resources.size(), "resource id {} out of range", id.value);
  impl_->resources[id.value].counter = std::move(name);
}

namespace {

// start_flow's preconditions; the visits of a closed loop's station (0 without one).
std::int64_t checked_visits(std::span<const ResourceId> path, std::size_t resources, Bytes bytes,
                            const std::optional<Bandwidth>& cap,
                            const std::optional<Window>& window) {
  MGSIM_CHECK(bytes.count() >= 0, "flow of negative size {} B", bytes.count());
  MGSIM_CHECK(!path.empty() || cap.has_value(), "a flow with an empty path needs a rate cap");
  MGSIM_CHECK(!cap || cap->bytes_per_second() > 0, "flow rate cap must be positive");
  MGSIM_CHECK(!window || (window->bytes.count() > 0 && window->hold > Duration::zero() &&
                          window->waits >= 1),
              "a flow's window needs bytes, a hold time and at least one wait");
  MGSIM_CHECK(!window || (window->customers >= 0 && window->customers <= 65536),
              "a window's customers must be 0..65536, not {}", window ? window->customers : 0);
  // (The path's ids are checked where start_flow finds no bundle to join: one that joins has
  // its leader's path.)
  MGSIM_CHECK(!window || window->customers == 0 || window->station.value < resources,
              "unknown resource id {}", window ? window->station.value : 0);
  // A closed loop's station: each customer's bytes cross it once per listing on the path.
  const std::int64_t visits =
      window && window->customers > 0 ? std::count(path.begin(), path.end(), window->station) : 0;
  MGSIM_CHECK(!window || window->customers == 0 || visits > 0,
              "a window's station must be on its flow's path");
  MGSIM_CHECK(!window || !window->waited || *window->waited <= path.size(),
              "a window waits for at most its path's {} hops", path.size());
  return visits;
}

}  // namespace

FlowId FluidNetwork::start_flow(std::span<const ResourceId> path, Bytes bytes,
                                std::optional<Bandwidth> cap, std::function<void()> on_done,
                                std::optional<Window> window) {
  Impl& m = *impl_;
  const std::int64_t visits = checked_visits(path, m.resources.size(), bytes, cap, window);
  detail::Shape shape;
  shape.bytes = bytes.count();
  shape.cap = cap ? static_cast<double>(cap->bytes_per_second()) : kInf;
  // Per wait: waits x (hold + q) per window is (window / waits) per (hold + q).
  shape.window =
      window ? static_cast<double>(window->bytes.count()) / static_cast<double>(window->waits)
             : 0.0;
  shape.hold =
      window ? static_cast<double>(window->hold.picoseconds()) / detail::kPsPerSecond : 0.0;
  shape.loop.waited =
      static_cast<std::uint32_t>(window && window->waited ? *window->waited : path.size());
  if (visits > 0) {
    shape.loop.customers = static_cast<std::uint32_t>(window->customers);
    shape.loop.waits = static_cast<double>(window->waits);
    shape.loop.demand = static_cast<double>(window->bytes.count()) /
                        static_cast<double>(window->customers) * static_cast<double>(visits) /
                        m.resources[window->station.value].capacity_bps;
  }
  // A flow equal to one started at this instant joins its bundle (fluid_impl.hpp, Bundles).
  std::optional<std::uint32_t> leader;
  std::uint64_t key = 0;
  const bool bundles = bytes.count() > 0 && !path.empty();
  if (bundles) {
    m.open_instant();
    key = m.bundle_key(path, shape);
    leader = m.find_bundle(key, path, shape);
  }
  if (!leader) {
    for (ResourceId r : path)
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
  f.on_done = std::move(on_done);
  ++m.active;
  ++m.started;
  FlowId id{(static_cast<std::uint64_t>(f.generation) << 32) | (slot + 1ull)};
  if (leader) {
    m.join_bundle(*leader, slot);  // an alias: its callback and id
    return id;
  }
  f.bytes = shape.bytes;
  f.remaining = static_cast<double>(shape.bytes);
  f.rate = 0.0;
  f.static_cap = shape.cap;
  f.cap = f.static_cap;
  f.window = shape.window;
  f.hold = shape.hold;
  f.loop = shape.loop;
  f.last_update = m.engine.now();
  f.epoch = 0;

  if (f.window > 0.0) {
    ++m.window_flows_active;
    f.cap = std::min(f.static_cap, m.window_rate(f, f.hold));  // no path yet
  }
  if (bytes.count() == 0 || path.empty()) {
    // Nothing to share: a zero-byte flow ends now; a pathless flow runs at its own cap.
    f.rate = f.cap < kInf ? f.cap : 0.0;
    m.schedule_completion(f);
    return id;
  }
  for (std::size_t k = 0; k < path.size(); ++k) {
    Resource& r = m.resources[path[k].value];
    f.path.push_back(path[k].value);
    f.pos.push_back(static_cast<std::uint32_t>(r.flows.size()));
    r.flows.push_back(Member{slot, static_cast<std::uint32_t>(k)});
  }
  if (f.window > 0.0) m.window_cap(f);
  m.mark_dirty(path[0].value);
  m.add_bundle(key, slot);
  return id;
}

bool FluidNetwork::cancel_flow(FlowId id) {
  Impl& m = *impl_;
  Flow* f = m.lookup(id);
  if (f == nullptr) return false;
  Flow& l = m.leader_of(*f);
  m.advance(l);
  double moved = static_cast<double>(l.bytes) - l.remaining;
  for (std::uint32_t r : l.path) m.resources[r].partial_bytes += moved;
  if (l.members == 1) {
    // The last of its bundle: the flow ends (an alias's leader lost its own member before).
    m.engine.cancel(l.done_event);
    m.detach(l);
    if (f != &l) m.release(*f);
    m.release(l);
    return true;
  }
  // One member leaves its bundle; the others go on, re-shared at once.
  m.count_members();
  --l.members;
  --l.counted;
  for (std::uint32_t r : l.path) --m.resources[r].extra_members;
  m.mark_dirty(l.path.front());
  if (f != &l) {
    std::erase(l.aliases, m.slot_of(*f));
    m.release(*f);
  } else {
    // The leader's id ends here; its slot leads on without a callback of its own.
    l.on_done = nullptr;
    l.headless = true;
    ++l.generation;
    --m.active;
  }
  return true;
}

void FluidNetwork::set_capacity(ResourceId id, Bandwidth capacity) {
  Impl& m = *impl_;
  MGSIM_CHECK(id.value < m.resources.size(), "unknown resource id {}", id.value);
  MGSIM_CHECK(capacity.bytes_per_second() > 0, "resource '{}' needs a positive capacity",
              m.resources[id.value].name);
  Resource& r = m.resources[id.value];
  if (r.capacity == capacity) return;
  m.fold(r);  // utilisation so far, against the old capacity
  r.capacity = capacity;
  r.capacity_bps = static_cast<double>(capacity.bytes_per_second());
  if (!r.flows.empty()) m.mark_dirty(id.value);
}

void FluidNetwork::set_queueing(ResourceId id, Duration coefficient, std::optional<QueueMix> mix) {
  Impl& m = *impl_;
  MGSIM_CHECK(id.value < m.resources.size(), "unknown resource id {}", id.value);
  MGSIM_CHECK(coefficient >= Duration::zero(), "resource '{}' needs a queueing coefficient >= 0",
              m.resources[id.value].name);
  MGSIM_CHECK(!mix || (mix->marker.value < m.resources.size() && mix->marker != id &&
                       mix->coefficient >= Duration::zero()),
              "resource '{}' needs a mixing coefficient >= 0 by another resource",
              m.resources[id.value].name);
  Resource& r = m.resources[id.value];
  r.queue_coefficient = static_cast<double>(coefficient.picoseconds()) / detail::kPsPerSecond;
  r.queue_marker = mix ? mix->marker.value : detail::kNoMarker;
  r.queue_mix =
      mix ? static_cast<double>(mix->coefficient.picoseconds()) / detail::kPsPerSecond : 0.0;
  if (!r.flows.empty()) m.mark_dirty(id.value);
}

Duration FluidNetwork::queueing_delay(ResourceId id) const {
  impl_->flush();
  MGSIM_CHECK(id.value < impl_->resources.size(), "unknown resource id {}", id.value);
  return Duration::ps(std::llround(impl_->resources[id.value].queue_delay * detail::kPsPerSecond));
}

double FluidNetwork::rate(FlowId id) const {
  impl_->flush();
  Flow* f = impl_->lookup(id);
  return f == nullptr ? 0.0 : impl_->leader_of(*f).rate;
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
    partial += (static_cast<double>(f.bytes) - f.remaining) * f.members;
  }
  ResourceStats s;
  s.bytes_carried = Bytes(res.finished_bytes + std::llround(partial));
  s.busy_ps = res.busy_ps;
  return s;
}

std::uint64_t FluidNetwork::flows_started() const { return impl_->started; }

std::uint64_t FluidNetwork::flows_finished() const { return impl_->finished; }

}  // namespace mgsim::sim
