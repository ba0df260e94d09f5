#include "traces/sweep.hpp"

#include <algorithm>
#include <charconv>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "sim/names.hpp"
#include "topologies/topology.hpp"

namespace mgsim::traces {

namespace {

constexpr std::string_view kHardwarePrefix = "hw.";
constexpr std::string_view kTopologyPrefix = "topo.";

// A positive count ("8") or size ("64MiB").
std::int64_t count_or_size(const sim::Node& node, std::string_view what) {
  const std::string text = node.as_string();
  if (!text.empty() && std::ranges::all_of(text, [](char c) { return c >= '0' && c <= '9'; }))
    return node.as_positive_int(what);
  return node.as_positive_bytes(what).count();
}

// The values of one axis: a non-empty list of scalars, or {from, to, factor} (a geometric range
// of sizes or counts, as `sweep:` has).
void axis_values(const sim::Node& node, const std::string& column, SweepAxis& axis) {
  std::vector<std::string>& values = axis.values;
  if (node.is_sequence()) {
    for (const sim::Node& item : node.items()) {
      values.push_back(item.as_string());
      axis.value_where.push_back(item.location());
    }
  } else if (node.is_map()) {
    sim::MapReader m(node, "a range");
    const sim::Node from_node = m.required("from");
    const sim::Node to_node = m.required("to");
    const std::int64_t from = count_or_size(from_node, "from");
    const std::int64_t to = count_or_size(to_node, "to");
    const std::int64_t factor = m.optional("factor") ? m.required("factor").as_int() : 2;
    m.finish();
    if (factor < 2) throw sim::ConfigError(node.location(), "a range's factor must be at least 2");
    if (to < from) throw sim::ConfigError(to_node.location(), "a range's `to` is below its `from`");
    for (std::int64_t v = from; v <= to; v = v > to / factor ? to + 1 : v * factor) {
      values.push_back(std::to_string(v));
      axis.value_where.push_back(node.location());
    }
  } else {
    throw sim::ConfigError(node.location(),
                           fmt::format("expected the values of axis {}: a list [a, b, ...] or "
                                       "{{from: A, to: B, factor: F}}",
                                       column));
  }
  if (values.empty())
    throw sim::ConfigError(node.location(), fmt::format("axis {} has no values", column));
}

SweepAxis make_axis(const std::string& column, const sim::Node& values, int group) {
  SweepAxis a;
  a.column = column;
  a.where = values.location();
  a.group = group;
  if (column.starts_with(kHardwarePrefix)) {
    a.kind = SweepAxis::Kind::hardware;
    a.name = column.substr(kHardwarePrefix.size());
  } else if (column.starts_with(kTopologyPrefix)) {
    a.kind = SweepAxis::Kind::topology;
    a.name = column.substr(kTopologyPrefix.size());
  } else {
    a.kind = SweepAxis::Kind::param;
    a.name = column;
  }
  axis_values(values, column, a);
  return a;
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

// A ConfigError at the axis unless its name is one of `valid` (listed when `list`, or when
// nothing near it is).
void check_name(const SweepAxis& a, const std::vector<std::string>& valid, std::string_view what,
                bool list = true) {
  if (std::ranges::find(valid, a.name) != valid.end()) return;
  const std::string hint = sim::did_you_mean(a.name, valid);
  throw sim::ConfigError(
      a.where,
      fmt::format("{} is not {}{}{}", a.name, what, hint,
                  list || hint.empty() ? fmt::format(" (valid: {})", quoted_list(valid)) : ""));
}

// Each value of a hardware axis on each machine's hardware alone.
void check_hardware_values(const SweepSpec& spec, const SweepAxis& a) {
  for (const SweepMachine& m : spec.machines) {
    const std::string base =
        m.hardware.empty() ? topologies::load_topology(m.topology, m.topology_params).gpu_model
                           : m.hardware;
    for (std::size_t v = 0; v < a.values.size(); ++v) {
      try {
        (void)models::load_hardware(base, {{a.name, a.values[v]}});
      } catch (const sim::ConfigError& e) {
        throw sim::ConfigError(a.value_where[v], fmt::format("{} = {} on machine {}: {}", a.column,
                                                             a.values[v], m.name, e.message()));
      }
    }
  }
}

// A topology axis: integers, a param every machine's topology declares.
void check_topology_axis(const SweepSpec& spec, const SweepAxis& a) {
  for (std::size_t v = 0; v < a.values.size(); ++v) {
    std::int64_t n = 0;
    const std::string& text = a.values[v];
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size())
      throw sim::ConfigError(a.value_where[v],
                             fmt::format("topology param {} takes integers, not {}", a.name, text));
  }
  for (const SweepMachine& m : spec.machines) {
    const topologies::Topology topo = topologies::load_topology(m.topology, m.topology_params);
    std::vector<std::string> declared;
    for (const auto& [name, value] : topo.params) declared.push_back(name);
    check_name(a, declared, fmt::format("a param of topology {} (machine {})", topo.name, m.name));
  }
}

// Every axis names something that exists, once: a param of the schedule, a hardware parameter
// (with values it takes), a topology param of every machine's topology (with integers).
void check_axes(const SweepSpec& spec) {
  std::vector<std::string> params;
  for (const Param& p : spec.schedule.params) params.push_back(p.name);
  const std::vector<std::string> hardware = models::hardware_parameter_names();
  std::set<std::string> columns;
  for (const SweepAxis& a : spec.axes) {
    if (!columns.insert(a.column).second)
      throw sim::ConfigError(a.where, fmt::format("axis {} is given twice", a.column));
    switch (a.kind) {
      case SweepAxis::Kind::param:
        check_name(a, params,
                   fmt::format("a param of {} (hardware parameters start `hw.`, topology params "
                               "`topo.`)",
                               spec.schedule.file));
        break;
      case SweepAxis::Kind::hardware:
        check_name(a, hardware, "a hardware parameter", false);
        check_hardware_values(spec, a);
        break;
      case SweepAxis::Kind::topology:
        check_topology_axis(spec, a);
        break;
    }
  }
}

SweepMachine load_machine(const sim::Node& node, const std::string& file) {
  sim::MapReader m(node, "a machine");
  SweepMachine out;
  out.where = node.location();
  const std::optional<sim::Node> name = m.optional("name");
  const sim::Node topology = m.required("topology");
  out.topology = topology.as_string();
  if (sim::looks_like_path(out.topology)) out.topology = sim::relative_to_file(out.topology, file);
  out.name = name ? name->as_string() : out.topology;
  if (const auto hw = m.optional("hardware")) {
    out.hardware = hw->as_string();
    if (sim::looks_like_path(out.hardware))
      out.hardware = sim::relative_to_file(out.hardware, file);
  }
  if (const auto params = m.optional("topology_params")) {
    sim::MapReader p(*params, "topology params");
    for (const auto& [key, value] : p.rest()) out.topology_params[key] = value.as_int();
    p.finish();
  }
  m.finish();
  return out;
}

SweepSpec load(const sim::Node& root) {
  SweepSpec spec;
  spec.file = root.file();
  sim::MapReader r(root, "a sweep");
  const sim::Node schedule = r.required("schedule");
  spec.schedule = load_schedule_file(sim::relative_to_file(schedule.as_string(), root.file()));
  const sim::Node machines = r.required("machines");
  if (!machines.is_sequence() || machines.items().empty())
    throw sim::ConfigError(machines.location(),
                           "expected a list of machines: - {topology: T, hardware: H}");
  std::set<std::string> names;
  for (const sim::Node& m : machines.items()) {
    spec.machines.push_back(load_machine(m, root.file()));
    if (!names.insert(spec.machines.back().name).second)
      throw sim::ConfigError(
          m.location(),
          fmt::format("two machines are named {}: give each a `name`", spec.machines.back().name));
  }
  if (const auto grid = r.optional("grid")) {
    sim::MapReader g(*grid, "a grid of axes");
    for (auto& [column, values] : g.rest()) spec.axes.push_back(make_axis(column, values, -1));
    g.finish();
  }
  if (const auto zip = r.optional("zip")) {
    if (!zip->is_sequence())
      throw sim::ConfigError(zip->location(), "expected a list of groups: - {A: [..], B: [..]}");
    int group = 0;
    for (const sim::Node& z : zip->items()) {
      sim::MapReader g(z, "a group of axes advanced together");
      std::size_t length = 0;
      for (auto& [column, values] : g.rest()) {
        SweepAxis a = make_axis(column, values, group);
        if (length != 0 && a.values.size() != length)
          throw sim::ConfigError(a.where,
                                 fmt::format("axis {} has {} values, the group's first "
                                             "axis {}: axes zipped together advance as one",
                                             a.column, a.values.size(), length));
        length = a.values.size();
        spec.axes.push_back(std::move(a));
      }
      g.finish();
      ++group;
    }
  }
  r.finish();
  // The dimensions: each grid axis, then each zip group; points = machines x their lengths.
  std::int64_t points = static_cast<std::int64_t>(spec.machines.size());
  for (std::size_t k = 0; k < spec.axes.size(); ++k) {
    const SweepAxis& a = spec.axes[k];
    if (a.group < 0 || spec.dimensions.empty() ||
        spec.axes[spec.dimensions.back().axes[0]].group != a.group) {
      const auto n = static_cast<std::int64_t>(a.values.size());
      if (points > kMaxSweepPoints / n)
        throw sim::ConfigError(
            a.where, fmt::format("the sweep has more than {} points: split it", kMaxSweepPoints));
      points *= n;
      spec.dimensions.push_back({{}, a.values.size()});
    }
    spec.dimensions.back().axes.push_back(k);
  }
  spec.points = points;
  check_axes(spec);
  return spec;
}

}  // namespace

SweepPoint SweepSpec::point(std::int64_t i) const {
  SweepPoint p;
  p.index = i;
  p.values.resize(axes.size());
  std::int64_t rest = i;  // the last dimension varies fastest
  for (auto d = dimensions.rbegin(); d != dimensions.rend(); ++d) {
    const auto n = static_cast<std::int64_t>(d->length);
    const auto at = static_cast<std::size_t>(rest % n);
    rest /= n;
    for (std::size_t k : d->axes) p.values[k] = axes[k].values[at];
  }
  p.machine = static_cast<int>(rest);
  return p;
}

Overrides SweepSpec::params_of(const SweepPoint& p) const {
  Overrides out;
  for (std::size_t k = 0; k < axes.size(); ++k)
    if (axes[k].kind == SweepAxis::Kind::param) out.emplace_back(axes[k].name, p.values[k]);
  return out;
}

std::vector<models::HardwareOverride> SweepSpec::hardware_of(const SweepPoint& p) const {
  std::vector<models::HardwareOverride> out;
  for (std::size_t k = 0; k < axes.size(); ++k)
    if (axes[k].kind == SweepAxis::Kind::hardware) out.push_back({axes[k].name, p.values[k]});
  return out;
}

std::map<std::string, std::int64_t> SweepSpec::topology_of(const SweepPoint& p) const {
  std::map<std::string, std::int64_t> out =
      machines[static_cast<std::size_t>(p.machine)].topology_params;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    if (axes[k].kind != SweepAxis::Kind::topology) continue;
    const std::string& v = p.values[k];
    std::int64_t n = 0;
    std::from_chars(v.data(), v.data() + v.size(), n);  // an integer: checked at load
    out[axes[k].name] = n;
  }
  return out;
}

SweepSpec load_sweep(const std::string& path) { return load(sim::Node::load_file(path)); }

SweepSpec load_sweep_text(const std::string& text, const std::string& name) {
  return load(sim::Node::load_string(text, name));
}

Machine load_sweep_machine(const SweepSpec& spec, const SweepPoint& p) {
  const SweepMachine& m = spec.machines[static_cast<std::size_t>(p.machine)];
  try {
    return Machine::load(m.topology, spec.topology_of(p), m.hardware, spec.hardware_of(p));
  } catch (const sim::ConfigError& e) {
    throw sim::ConfigError(m.where,
                           fmt::format("machine {} at point {}: {}", m.name, p.index, e.what()));
  }
}

}  // namespace mgsim::traces
