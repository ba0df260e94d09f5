#include "models/hardware_loader.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "models/parameter_table.hpp"
#include "models/preset_dir.hpp"
#include "sim/config.hpp"

namespace mgsim::models {
namespace {

namespace fs = std::filesystem;
using sim::ConfigError;
using sim::MapReader;
using sim::Node;
using sim::SourceLocation;

// `base` chains longer than this are almost surely a cycle (a -> b -> a).
constexpr int kMaxBaseDepth = 8;

HardwareSpec load_root(const Node& root, int depth);

// A preset name or a path; `named_in` is the file that names it (a relative path is taken from its
// folder), empty for the command line's.
HardwareSpec resolve(const std::string& preset_or_path, const SourceLocation& where,
                     const std::string& named_in, int depth) {
  if (depth > kMaxBaseDepth)
    throw ConfigError(
        where, fmt::format("'base' / 'host_from' chain deeper than {} (a cycle?)", kMaxBaseDepth));
  if (sim::looks_like_path(preset_or_path)) {
    return load_root(Node::load_file(sim::relative_to_file(preset_or_path, named_in)), depth);
  }
  const fs::path path = fs::path(hardware_preset_dir()) / (preset_or_path + ".yaml");
  if (!fs::exists(path)) {
    const std::vector<std::string> names = hardware_preset_names();
    const std::string near = sim::nearest_name(preset_or_path, names);
    throw ConfigError(
        where, fmt::format("unknown hardware preset '{}'{}; valid presets: {}", preset_or_path,
                           near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near),
                           fmt::join(names, ", ")));
  }
  return load_root(Node::load_file(path.string()), depth);
}

// A parameter's node is either the value itself or {value: ..., source: "..."}.
void read_parameter(HardwareSpec& spec, const Parameter& p, const Node& node) {
  const std::string name = p.name();
  if (node.is_map()) {
    MapReader entry(node, fmt::format("parameter '{}'", name));
    const Node value = entry.required("value");
    const std::optional<Node> source = entry.optional("source");
    entry.finish();
    p.read(spec, value, name);
    if (source) {
      spec.sources[name] = source->as_string();
    } else {
      spec.sources.erase(name);
    }
    return;
  }
  p.read(spec, node, name);
  spec.sources.erase(name);  // a base's source does not describe the new value
}

// Relations between parameters that single values cannot break. Every way a spec is made (a
// file, a file over a `base`, overrides on top) ends here, so a what-if is checked like a preset;
// `where` is the file or the overrides that made the spec.
void check_consistency(const HardwareSpec& spec, const SourceLocation& where) {
  const auto fail = [&](const std::string& message) { throw ConfigError(where, message); };
  if (spec.sm.shared_memory_per_cta > spec.sm.shared_memory)
    fail(fmt::format("sm.shared_memory_per_cta ({}) exceeds sm.shared_memory ({})",
                     sim::to_string(spec.sm.shared_memory_per_cta),
                     sim::to_string(spec.sm.shared_memory)));
  const PowerSpec& p = spec.power;
  if (p.governed() && (p.window <= sim::Duration::zero() || p.tensor_energy.attojoules() <= 0 ||
                       p.static_power.microwatts() <= 0 || p.idle.microwatts() <= 0))
    fail(
        fmt::format("power.limit ({}) needs power.window, power.static, power.idle and "
                    "power.tensor_energy, all positive (power.hbm_energy may be zero)",
                    sim::to_string(p.limit)));
  if (p.governed() && p.static_power >= p.limit)
    fail(fmt::format("power.static ({}) must be below power.limit ({})",
                     sim::to_string(p.static_power), sim::to_string(p.limit)));
}

HardwareSpec load_root(const Node& root, int depth) {
  MapReader top(root, "hardware file");
  HardwareSpec spec;
  bool has_base = false;
  if (const auto base = top.optional("base")) {
    spec = resolve(base->as_string(), base->location(), root.file(), depth + 1);
    has_base = true;
  }
  if (const auto host = top.optional("host_from")) {
    // The machine's host (models::with_host): its API costs and launch path over this GPU.
    spec = with_host(std::move(spec),
                     resolve(host->as_string(), host->location(), root.file(), depth + 1));
  }
  if (const auto name = has_base ? top.optional("name") : std::optional(top.required("name")))
    spec.name = name->as_string();
  if (const auto description = top.optional("description")) description->as_string();

  const auto params = hardware_parameters();
  for (std::string_view section : hardware_sections()) {
    // A section of defaulted parameters only (power) may be left out.
    const bool required =
        !has_base && std::any_of(params.begin(), params.end(),
                                 [&](const auto& p) { return p.section == section && p.required; });
    const std::optional<Node> node =
        required ? std::optional(top.required(section)) : top.optional(section);
    if (!node) continue;
    MapReader unit(*node, fmt::format("section '{}'", section));
    for (const Parameter& p : params) {
      if (p.section != section) continue;
      const std::optional<Node> value =
          (p.required && !has_base) ? std::optional(unit.required(p.key)) : unit.optional(p.key);
      if (value) read_parameter(spec, p, *value);
    }
    unit.finish();
  }
  top.finish();
  check_consistency(spec, root.location());
  return spec;
}

void apply_overrides(HardwareSpec& spec, const std::vector<HardwareOverride>& overrides) {
  const auto params = hardware_parameters();
  std::vector<std::string> names;
  for (const Parameter& p : params) names.push_back(p.name());
  for (const HardwareOverride& o : overrides) {
    const std::string what = fmt::format("override {}={}", o.parameter, o.value);
    const auto it = std::find(names.begin(), names.end(), o.parameter);
    if (it == names.end()) {
      throw ConfigError({what, 0, 0}, fmt::format("unknown hardware parameter '{}'{}", o.parameter,
                                                  sim::did_you_mean(o.parameter, names)));
    }
    const Parameter& p = params[static_cast<std::size_t>(it - names.begin())];
    const Node value = Node::load_string(o.value, what);
    p.read(spec, value, o.parameter);
    spec.sources[o.parameter] = fmt::format("override: {}", o.value);
  }
  if (overrides.empty()) return;
  std::vector<std::string> given;
  given.reserve(overrides.size());
  for (const HardwareOverride& o : overrides) given.push_back(o.parameter + "=" + o.value);
  check_consistency(spec, {fmt::format("{} {}", overrides.size() == 1 ? "override" : "overrides",
                                       fmt::join(given, ", ")),
                           0, 0});
}

}  // namespace

std::string hardware_preset_dir() {
  if (const char* env = std::getenv("MGSIM_PRESET_DIR"); env != nullptr && *env != '\0') return env;
  return kConfiguredPresetDir;
}

std::vector<std::string> hardware_preset_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(hardware_preset_dir(), ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml")
      names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

HardwareSpec load_hardware(const std::string& preset_or_path,
                           const std::vector<HardwareOverride>& overrides) {
  HardwareSpec spec = resolve(preset_or_path, {"hardware", 0, 0}, "", 0);
  apply_overrides(spec, overrides);
  return spec;
}

HardwareSpec load_hardware_from_string(const std::string& text, const std::string& name,
                                       const std::vector<HardwareOverride>& overrides) {
  HardwareSpec spec = load_root(Node::load_string(text, name), 0);
  apply_overrides(spec, overrides);
  return spec;
}

std::vector<std::string> hardware_parameter_names() {
  std::vector<std::string> names;
  for (const Parameter& p : hardware_parameters()) names.push_back(p.name());
  return names;
}

std::vector<std::string> describe_hardware(const HardwareSpec& spec) {
  std::vector<std::string> lines;
  for (const Parameter& p : hardware_parameters()) {
    const std::string name = p.name();
    const auto source = spec.sources.find(name);
    lines.push_back(source == spec.sources.end()
                        ? fmt::format("{} = {}", name, p.show(spec))
                        : fmt::format("{} = {}  # {}", name, p.show(spec), source->second));
  }
  return lines;
}

}  // namespace mgsim::models
