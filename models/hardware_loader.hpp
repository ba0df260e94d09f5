// Loading a HardwareSpec from a preset name or a YAML file, with optional overrides.
//
// File format (docs/MODELS.md has the full list of parameters):
//   name: h200                      # required unless `base` gives one
//   base: h100                      # optional: start from another preset or file, then override
//   host_from: h200.single_host     # optional: that preset's host drives this GPU (with_host:
//                                   # host.*, launch.latency and wake costs), before the sections
//   description: "..."              # optional, free text
//   hbm:                            # one mapping per unit: sm, tma, ldst, l2, hbm, copy_engine,
//     bandwidth: {value: 4.8TB/s, source: "datasheet: NVIDIA H200 ..."}   #  nvlink, nvswitch,
//     latency: 600ns                # a bare value is allowed; it records no source  pcie, nic,
//     launch
// Values carry their units ("4.8TB/s", "1.98GHz", "650ns", "228KiB"); counts are integers,
// efficiencies are numbers in (0, 1], switches are true/false.
//
// Contract: every key is checked (unknown keys are ConfigErrors naming file:line:col with the
// nearest valid key); a file without `base` must give every required parameter; sizes, rates,
// counts and frequencies must be positive, durations not negative; relations between parameters
// (sm.shared_memory_per_cta <= sm.shared_memory, ...) are checked for every file and again after
// the overrides, an error then naming them ("override sm.shared_memory=64KiB: error: ...").
// Errors are sim::ConfigError.
// Presets are found in the source tree's models/presets (baked in at configure time) or in the
// directory named by the MGSIM_PRESET_DIR environment variable when it is set.
#pragma once

#include <string>
#include <vector>

#include "models/hardware_spec.hpp"

namespace mgsim::models {

// One what-if change applied after loading: {"hbm.bandwidth", "9TB/s"}.
struct HardwareOverride {
  std::string parameter;
  std::string value;
};

// `preset_or_path` is a preset name ("h100", "h200.calibrated") or a path to a YAML file (it
// contains a '/' or ends in .yaml / .yml).
HardwareSpec load_hardware(const std::string& preset_or_path,
                           const std::vector<HardwareOverride>& overrides = {});
// The same from YAML text; `name` stands for the file in messages. `base` is resolved as above.
HardwareSpec load_hardware_from_string(const std::string& text, const std::string& name,
                                       const std::vector<HardwareOverride>& overrides = {});

// Preset names found in the preset directory, sorted ("b200", "h100", "h200", ...).
std::vector<std::string> hardware_preset_names();
// The directory presets are read from (MGSIM_PRESET_DIR or the configured source directory).
std::string hardware_preset_dir();

// Every parameter's dotted name ("hbm.bandwidth"), in table order: what an override may name.
std::vector<std::string> hardware_parameter_names();

// Every parameter as "section.key = value" lines with its source, in table order (for reports).
std::vector<std::string> describe_hardware(const HardwareSpec& spec);

}  // namespace mgsim::models
