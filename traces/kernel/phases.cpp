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
    x.net.start_flow(
        f.shared_path.empty() ? std::span<const sim::ResourceId>(f.path) : f.shared_path, f.bytes,
        f.cap,
        [&x, &r] {
          if (--r.pending == 0) phase_done(x, r);
        },
        f.window);
  }
}

}  // namespace

void run_phases(Runner& x, RoleRun& r) {
  MGSIM_CHECK(r.phase_count > 0, "an op ran without phases");
  r.next_phase = 0;
  schedule_phase(x, r);
}

}  // namespace mgsim::traces::kernel
