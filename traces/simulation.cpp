#include "traces/simulation.hpp"

#include <malloc.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include <fmt/format.h>

#include "models/hardware_loader.hpp"
#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "topologies/fabric.hpp"
#include "traces/collective.hpp"
#include "traces/fabric_catalog.hpp"
#include "traces/fabric_interconnect.hpp"

namespace mgsim::traces {

namespace {

// The smallest node translation that is a symmetry of the fabric and of the ideal ring's rings
// over all of its GPUs (Machine::symmetry).
std::optional<topologies::Translation> find_symmetry(const topologies::Topology& topology) {
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  const topologies::Fabric fabric(topology, net);
  const int nodes = topologies::node_count(fabric.routing());
  std::vector<int> domains(static_cast<std::size_t>(fabric.gpu_count()));
  for (int g = 0; g < fabric.gpu_count(); ++g)
    domains[static_cast<std::size_t>(g)] = fabric.nvlink_domain(g);
  const std::vector<std::vector<int>> rings = rail_rings(domains);
  for (int shift = 1; shift < nodes; ++shift) {
    if (nodes % shift != 0) continue;
    std::optional<topologies::Translation> t =
        topologies::node_translation(fabric.routing(), shift);
    if (t && std::ranges::all_of(rings, [&](const auto& r) { return ring_turns(r, t->period); }))
      return t;
  }
  return std::nullopt;
}

}  // namespace

Machine::Machine(topologies::Topology topology, models::HardwareSpec hardware)
    : topology_(std::move(topology)), hardware_(std::move(hardware)) {
  // The GPU's NVLink links run at its rate: the hardware file is that rate's one source.
  if (hardware_.nvlink.links > 0)
    topologies::resolve_gpu_links(topology_, hardware_.nvlink.link_bandwidth,
                                  hardware_.nvlink.links, hardware_.name);
  if (!topologies::links_resolved(topology_))
    throw sim::ConfigError({topology_.source, 0, 0},
                           fmt::format("its GPUs' NVLink links take their rate from the GPU, and "
                                       "hardware {} has no NVLink (nvlink.links = 0)",
                                       hardware_.name));
  symmetry_ = find_symmetry(topology_);
}

Machine Machine::load(const std::string& topology,
                      const std::map<std::string, std::int64_t>& topology_params,
                      const std::string& hardware,
                      const std::vector<models::HardwareOverride>& overrides) {
  topologies::Topology topo = topologies::load_topology(topology, topology_params);
  models::HardwareSpec hw =
      models::load_hardware(hardware.empty() ? topo.gpu_model : hardware, overrides);
  return Machine(std::move(topo), std::move(hw));
}

namespace {

// The process's resident memory in bytes (Linux: /proc/self/statm), 0 where unknown.
std::int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::int64_t pages = 0, resident = 0;
  if (!(statm >> pages >> resident)) return 0;
  return resident * static_cast<std::int64_t>(sysconf(_SC_PAGESIZE));
}

// Ends `engine`'s run with a sim::LimitError at `schedule` once it passes one of `limits`
// (events, simulated time, wall time, memory), checked every few thousand events.
void guard(sim::Engine& engine, const Limits& limits, const std::string& schedule) {
  constexpr std::uint64_t kEvery = 4096;
  const auto start = std::chrono::steady_clock::now();
  engine.set_guard(kEvery, [&engine, limits, schedule, start] {
    const auto fail = [&](const std::string& what) {
      throw sim::LimitError({schedule, 0, 0}, what);
    };
    if (engine.events_processed() > limits.max_events)
      fail(fmt::format("the run passed {} events (--max-events raises the limit)",
                       limits.max_events));
    if (engine.now().since_start() > limits.max_time)
      fail(fmt::format("the run passed {} of simulated time (--max-time raises the limit)",
                       sim::to_string(limits.max_time)));
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (limits.max_wall_seconds > 0 && wall > limits.max_wall_seconds)
      fail(fmt::format("the run took more than {} s of wall time (--max-wall raises the limit)",
                       limits.max_wall_seconds));
    if (resident_bytes() > limits.max_memory_bytes)
      fail(fmt::format("the process holds more than {} of memory (--max-memory raises the limit)",
                       sim::to_string(sim::Bytes(limits.max_memory_bytes))));
  });
}

}  // namespace

Limits parse_limits(const sim::Node& node, Limits base) {
  sim::MapReader r(node, "limits");
  if (auto n = r.optional("max_ops")) base.max_ops = n->as_positive_int("max_ops");
  if (auto n = r.optional("max_events"))
    base.max_events = static_cast<std::uint64_t>(n->as_positive_int("max_events"));
  if (auto n = r.optional("max_time")) base.max_time = n->as_duration();
  if (auto n = r.optional("max_wall")) {
    base.max_wall_seconds = n->as_double();
    if (!(base.max_wall_seconds > 0)) n->fail("max_wall is a positive number of seconds");
  }
  if (auto n = r.optional("max_memory"))
    base.max_memory_bytes = n->as_positive_bytes("max_memory").count();
  r.finish();
  return base;
}

namespace {

// One run, folded by `folded` when given (simulate()).
Result simulate_once(const Schedule& schedule, const Env& params, const Machine& machine,
                     sim::TraceSink* trace, const Limits& limits, Recording record,
                     const topologies::Translation* folded) {
  sim::Engine engine;
  if (trace) engine.set_trace(trace);
  guard(engine, limits, schedule.file);
  sim::FluidNetwork net(engine);
  const topologies::Fabric fabric(machine.topology(), net);
  FabricInterconnect whole(fabric);
  std::optional<FoldedInterconnect> fold;
  if (folded) fold.emplace(fabric, *folded);
  Interconnect& interconnect = fold ? static_cast<Interconnect&>(*fold) : whole;
  models::ResourceCatalog catalog;
  register_fabric(catalog, fabric, machine.topology(), folded);
  Result out;
  try {
    out.run = execute(
        schedule, params, engine, net, interconnect, machine.hardware(), &catalog,
        {CollectiveTransport::sm_copies, limits.max_ops, record.check, record.critical_path});
  } catch (const sim::ClockOverflow& e) {
    throw sim::LimitError({schedule.file, 0, 0}, e.what());
  }
  out.roofline = compute_roofline(catalog, net, out.run.end.since_start());
  return out;
}

// The translation a run of `schedule` may be folded by, or null (simulate()).
const topologies::Translation* fold_for(const Schedule& schedule, const Env& params,
                                        const Machine& machine, const sim::TraceSink* trace,
                                        Recording record) {
  const auto& symmetry = machine.symmetry();
  if (!symmetry || !schedule.same_program || trace || record.check || record.critical_path ||
      record.every_rank)
    return nullptr;
  if (schedule.world) {
    Env env = params;
    env.resize(static_cast<std::size_t>(schedule.slot_count), 0);
    if (schedule.world->eval(env) != machine.topology().gpu_count()) return nullptr;
  }
  return &*symmetry;
}

}  // namespace

Result simulate(const Schedule& schedule, const Env& params, const Machine& machine,
                sim::TraceSink* trace, const Limits& limits, Recording record) {
  std::string unfolded;
  if (const topologies::Translation* t = fold_for(schedule, params, machine, trace, record)) {
    try {
      Result folded = simulate_once(schedule, params, machine, trace, limits, record, t);
      if (!folded.deadlocked()) return folded;
      unfolded = "the folded run deadlocked";  // the whole run's report names every rank
    } catch (const SymmetryBroken& e) {
      unfolded = e.what();
    }
  }
  Result whole = simulate_once(schedule, params, machine, trace, limits, record, nullptr);
  whole.run.unfolded = std::move(unfolded);
  return whole;
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

Run run_one(const Schedule& schedule, const Overrides& defines, const Machine& machine,
            sim::TraceSink* trace, const Limits& limits, Recording record) {
  const Env params = param_values(schedule, defines);
  Run run;
  for (std::size_t p = 0; p < schedule.params.size(); ++p)
    run.params.emplace_back(schedule.params[p].name, std::to_string(params[p]));
  run.result = simulate(schedule, params, machine, trace, limits, record);
  return run;
}

std::vector<Run> run_points(const Schedule& schedule, const Overrides& defines,
                            const std::optional<Sweep>& sweep, const Machine& machine,
                            sim::TraceSink* trace, const Limits& limits, Recording record) {
  const std::vector<Overrides> points = sweep_points(schedule, defines, sweep);
  std::vector<Run> runs;
  for (std::size_t i = 0; i < points.size(); ++i) {
    runs.push_back(run_one(schedule, points[i], machine, i + 1 == points.size() ? trace : nullptr,
                           limits, record));
    if (runs.back().result.deadlocked()) break;
  }
  return runs;
}

void keep_freed_memory() {
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
}

}  // namespace mgsim::traces
