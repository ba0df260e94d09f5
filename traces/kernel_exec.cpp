#include "traces/kernel_exec.hpp"

#include "traces/kernel/launch.hpp"
#include "traces/kernel/runner.hpp"

namespace mgsim::traces {

KernelRunner::KernelRunner(const KernelSet& kernels, sim::Engine& engine, sim::FluidNetwork& net,
                           Interconnect& fabric, std::span<models::Gpu> gpus, OpBudget& budget,
                           DataCheck* check)
    : runner_(
          std::make_unique<kernel::Runner>(kernels, engine, net, fabric, gpus, budget, stats_)) {
  runner_->check = check;
}

KernelRunner::~KernelRunner() = default;

int KernelRunner::launch(int rank, int kernel, Env env, sim::Duration start,
                         std::function<void()> done, std::optional<DataCheck::Agent> stream) {
  return kernel::launch(*runner_, rank, kernel, std::move(env), start, std::move(done), stream);
}

std::vector<KernelRunner::RoleTime> KernelRunner::role_times(int id) const {
  const kernel::LaunchRun& l = *runner_->launches.at(static_cast<std::size_t>(id));
  std::vector<RoleTime> out;
  for (std::size_t r = 0; r < l.roles.size(); ++r)
    if (l.roles[r].first != sim::Time::max())
      out.push_back({l.def->roles[r].name, l.roles[r].first, l.roles[r].second});
  return out;
}

std::string KernelRunner::blocked_reason(int id) const {
  return kernel::blocked_reason(*runner_, id);
}

}  // namespace mgsim::traces
