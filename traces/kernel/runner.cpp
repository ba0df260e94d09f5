#include "traces/kernel/runner.hpp"

#include <fmt/format.h>

namespace mgsim::traces::kernel {

int Runner::check_rank(const Expr& e, const Env& env) const {
  const std::int64_t v = e.eval(env);
  if (v < 0 || v >= world)
    e.fail(fmt::format("rank {} is outside the world (ranks 0 to {})", v, world - 1));
  return static_cast<int>(v);
}

std::int64_t multicast_factor(const RoleRun& r, const std::optional<Expr>& e,
                              std::string_view what) {
  if (!e) return 1;
  const std::int64_t n = e->eval_positive(r.env, what);
  const std::int64_t cluster = r.cta->launch->cluster;
  if (cluster % n != 0)
    e->fail(
        fmt::format("{} {} does not divide the kernel's cluster of {} CTA{} (a multicast "
                    "lands in CTAs of one cluster: set the kernel's 'cluster')",
                    what, n, cluster, cluster == 1 ? "" : "s"));
  return n;
}

Duration Runner::peer_path(int src, int dst, models::PeerPath path,
                           std::vector<sim::ResourceId>& out) {
  const PeerRoute route = fabric.route(src, dst, hint++);
  // Over PCIe and the network (another NVLink domain) no NVLink port is crossed.
  const auto port = [&](int gpu_rank, models::PortDirection dir) {
    return route.nvlink ? gpu(gpu_rank).peer_port(path, dir) : std::nullopt;
  };
  if (const auto egress = port(src, models::PortDirection::out)) out.push_back(*egress);
  out.insert(out.end(), route.resources.begin(), route.resources.end());
  if (const auto ingress = port(dst, models::PortDirection::in)) out.push_back(*ingress);
  return route.latency;
}

}  // namespace mgsim::traces::kernel
