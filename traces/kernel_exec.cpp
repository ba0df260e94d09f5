#include "traces/kernel_exec.hpp"

#include "traces/kernel_exec_impl.hpp"

namespace mgsim::traces {

KernelRunner::KernelRunner(const KernelSet& kernels, sim::Engine& engine, sim::FluidNetwork& net,
                           Interconnect& fabric, std::span<models::Gpu> gpus)
    : impl_(std::make_unique<Impl>(*this, kernels, engine, net, fabric, gpus)) {}

KernelRunner::~KernelRunner() = default;

int KernelRunner::launch(int rank, int kernel, Env env, std::function<void()> done) {
  return impl_->launch(rank, kernel, std::move(env), std::move(done));
}

std::string KernelRunner::blocked_reason(int id) const { return impl_->blocked_reason(id); }

std::string KernelRunner::Impl::flag_text(const FlagKey& key) const {
  return fmt::format("flag '{}'[{}] on rank {}",
                     kernels.flag_names[static_cast<std::size_t>(std::get<1>(key))],
                     std::get<2>(key), std::get<0>(key));
}

std::string KernelRunner::Impl::blocked_reason(int id) const {
  const LaunchRun& l = *launches.at(static_cast<std::size_t>(id));
  const KernelDef& k = *l.def;
  if (!l.started) return fmt::format("kernel '{}' to start", k.name);
  std::string first;
  int more = 0;
  for (const auto& c : l.ctas) {
    for (const auto& r : c->roles) {
      if (r->done || r->waiting.empty()) continue;
      if (first.empty()) {
        const sim::SourceLocation& w = r->current->where;
        std::string what = r->waiting;
        if (r->wait_flag) {
          const auto it = flags.find(*r->wait_flag);
          what += fmt::format(" to reach {} (it is {})", r->wait_value,
                              it == flags.end() ? 0 : it->second.value);
        }
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

}  // namespace mgsim::traces
