#include "traces/kernel/phases.hpp"

#include "sim/check.hpp"
#include "traces/kernel/walker.hpp"

namespace mgsim::traces::kernel {
namespace {

void start_phase(Runner& x, RoleRun& r);

void schedule_phase(Runner& x, RoleRun& r) {
  x.engine.schedule_in(r.phases[r.next_phase].delay, [&x, &r] { start_phase(x, r); });
}

void phase_done(Runner& x, RoleRun& r) {
  if (r.next_phase == r.phase_count) {
    op_done(x, r);
    return;
  }
  schedule_phase(x, r);
}

void start_phase(Runner& x, RoleRun& r) {
  const Phase& p = r.phases[r.next_phase++];
  r.pending = static_cast<int>(p.count);
  if (p.count == 0) {
    phase_done(x, r);
    return;
  }
  for (std::size_t i = p.first; i < p.first + p.count; ++i) {
    const FlowSpec& f = r.flows[i];
    x.net.start_flow(f.path, f.bytes, f.cap, [&x, &r] {
      if (--r.pending == 0) phase_done(x, r);
    });
  }
}

}  // namespace

void begin_phases(RoleRun& r) {
  r.flow_count = 0;
  r.phase_count = 0;
  r.next_phase = 0;
}

void add_phase(RoleRun& r, Duration delay) {
  if (r.phase_count == r.phases.size()) r.phases.emplace_back();
  r.phases[r.phase_count++] = {delay, r.flow_count, 0};
}

FlowSpec& add_flow(RoleRun& r) {
  if (r.flow_count == r.flows.size()) r.flows.emplace_back();
  FlowSpec& f = r.flows[r.flow_count++];
  f.path.clear();
  f.cap.reset();
  ++r.phases[r.phase_count - 1].count;
  return f;
}

FlowSpec& add_flow(RoleRun& r, sim::ResourceId resource, Bytes bytes,
                   std::optional<Bandwidth> cap) {
  FlowSpec& f = add_flow(r);
  f.path.push_back(resource);
  f.bytes = bytes;
  f.cap = cap;
  return f;
}

void run_phases(Runner& x, RoleRun& r) {
  MGSIM_CHECK(r.phase_count > 0, "an op ran without phases");
  r.next_phase = 0;
  schedule_phase(x, r);
}

}  // namespace mgsim::traces::kernel
