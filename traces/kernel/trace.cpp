#include "traces/kernel/trace.hpp"

#include <fmt/format.h>

#include "sim/trace.hpp"

namespace mgsim::traces::kernel {

void trace_op(Runner& x, const RoleRun& r) {
  sim::TraceSink* trace = x.engine.trace();
  if (!trace || !r.current) return;
  const CtaRun& c = *r.cta;
  const KernelDef& k = *c.launch->def;
  const sim::TrackId track = trace->track(
      fmt::format("gpu{}", c.launch->rank),
      fmt::format("sm{:03} {}.{}", c.sm, k.name, k.roles[static_cast<std::size_t>(r.role)].name));
  // Args: the op kind, and its bytes and peer rank when it has them.
  const char* kind = kind_name(*r.current);
  sim::TraceArg args[3] = {{"op", 0, kind}};
  std::size_t n = 1;
  if (r.traced_bytes >= 0) args[n++] = {"bytes", r.traced_bytes, {}};
  if (r.traced_peer >= 0) args[n++] = {"peer", r.traced_peer, {}};
  trace->slice(track, kind, r.began, x.engine.now(), std::span<const sim::TraceArg>(args, n));
}

}  // namespace mgsim::traces::kernel
