#include "traces/simulation.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "models/hardware_loader.hpp"
#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "topologies/fabric.hpp"
#include "traces/fabric_catalog.hpp"
#include "traces/fabric_interconnect.hpp"

namespace mgsim::traces {

Machine::Machine(topologies::Topology topology, models::HardwareSpec hardware)
    : topology_(std::move(topology)), hardware_(std::move(hardware)) {}

Machine Machine::load(const std::string& topology,
                      const std::map<std::string, std::int64_t>& topology_params,
                      const std::string& hardware) {
  topologies::Topology topo = topologies::load_topology(topology, topology_params);
  models::HardwareSpec hw = models::load_hardware(hardware.empty() ? topo.gpu_model : hardware);
  return Machine(std::move(topo), std::move(hw));
}

Result simulate(const Schedule& schedule, const Env& params, const Machine& machine,
                sim::TraceSink* trace, const Limits& limits) {
  sim::Engine engine;
  if (trace) engine.set_trace(trace);
  sim::FluidNetwork net(engine);
  const topologies::Fabric fabric(machine.topology(), net);
  FabricInterconnect interconnect(fabric);
  models::ResourceCatalog catalog;
  register_fabric(catalog, fabric, machine.topology());
  Result out;
  out.run = execute(schedule, params, engine, net, interconnect, machine.hardware(), &catalog,
                    CollectiveTransport::sm_copies, limits.max_ops);
  out.roofline = compute_roofline(catalog, net, out.run.end.since_start());
  return out;
}

std::vector<Overrides> sweep_points(const Schedule& schedule, const Overrides& defines,
                                    const std::optional<Sweep>& sweep) {
  const auto defined = [&](const std::string& param) {
    return std::any_of(defines.begin(), defines.end(),
                       [&](const auto& d) { return d.first == param; });
  };
  std::optional<Sweep> active = sweep ? sweep : schedule.sweep;
  if (sweep && defined(sweep->param))
    throw sim::ConfigError(sweep->where,
                           fmt::format("-D {} and a sweep of {} both set {}: give one of them",
                                       sweep->param, sweep->param, sweep->param));
  if (!sweep && active && defined(active->param)) active.reset();  // the define wins
  if (!active) return {defines};
  std::vector<Overrides> out;
  for (const std::int64_t v : sweep_values(*active)) {
    Overrides d = defines;
    d.emplace_back(active->param, std::to_string(v));
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<Run> run_points(const Schedule& schedule, const Overrides& defines,
                            const std::optional<Sweep>& sweep, const Machine& machine,
                            sim::TraceSink* trace, const Limits& limits) {
  const std::vector<Overrides> points = sweep_points(schedule, defines, sweep);
  std::vector<Run> runs;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Env params = param_values(schedule, points[i]);
    Run run;
    for (std::size_t p = 0; p < schedule.params.size(); ++p)
      run.params.emplace_back(schedule.params[p].name, std::to_string(params[p]));
    run.result =
        simulate(schedule, params, machine, i + 1 == points.size() ? trace : nullptr, limits);
    const bool deadlocked = run.result.deadlocked();
    runs.push_back(std::move(run));
    if (deadlocked) break;
  }
  return runs;
}

}  // namespace mgsim::traces
