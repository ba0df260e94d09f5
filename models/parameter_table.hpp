// The table of every hardware parameter: its YAML section and key, unit, meaning, whether a file
// without `base` must give it, and how to read it into and show it from a HardwareSpec.
//
// One table drives loading, overrides, `describe_hardware` and the completeness test of the
// presets, so a parameter added to a unit struct and to this table is handled everywhere.
// Internal to the models layer.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "models/hardware_spec.hpp"
#include "sim/config.hpp"

namespace mgsim::models {

struct Parameter {
  std::string_view section;  // "hbm"
  std::string_view key;      // "bandwidth"
  std::string_view unit;     // "B/s", "count", "flops/cycle/SM", ...
  bool required;             // must be given by a file without `base`
  std::string_view meaning;  // one line
  // Parses `value` into the spec; ConfigError at `value` if it is malformed or out of range.
  void (*read)(HardwareSpec& spec, const sim::Node& value, const std::string& name);
  std::string (*show)(const HardwareSpec& spec);

  std::string name() const;  // "hbm.bandwidth"
};

// All parameters, grouped by section in the order of hardware_sections().
std::span<const Parameter> hardware_parameters();
// "sm", "tma", "ldst", "l2", "hbm", "copy_engine", "nvlink", "nvswitch", "pcie", "nic", "launch",
// "host", "sync", "power".
std::span<const std::string_view> hardware_sections();

}  // namespace mgsim::models
