// `mgsim calibrate`: fits a GPU's unit parameters to the primitive measurements of one machine
// (validate/data/<gpu>/) and writes them as a hardware file that inherits the datasheet preset.
//
// Fitted only from primitives: flag.csv, peer_ce.csv, peer_ldst.csv, peer_tma.csv, hbm.csv,
// l2.csv, launch.csv, gemm.csv and system/nvlink_status.txt. The whole-pattern files (nccl.csv,
// ag_gemm.csv, gemm_rs.csv, interference.csv, put_signal.csv) are held out for `mgsim validate`
// and never read here; run1/ (a spread check) is ignored. What each fit is, and why, is in
// docs/VALIDATION.md; each fitted number's `source` names its file, lines, model, R^2 and command.
//
// Contract: deterministic (same data, same text, byte for byte). A missing file or column, a fit
// with too few points or a degenerate one, or a fitted value out of range (a negative setup, an
// efficiency above 1) is a sim::ConfigError naming the file. Ignores: the measurements' spread
// (medians are fitted). The power cap's lower clock under large GEMMs is fitted as the sustained
// sm.tensor_clock (gemm.csv, in the terms of validate/cases/gemm.yaml's tiling).
#pragma once

#include <string>
#include <vector>

namespace mgsim::validate {

struct FittedParameter {
  std::string section;  // "copy_engine"
  std::string key;      // "setup"
  std::string value;    // as the hardware loader reads it: "4321000ps"
  std::string source;   // "fit: peer_ce.csv lines ..., R^2=..., command: ..."
};

struct Calibration {
  std::string base;                         // the preset it overrides: "h200"
  std::vector<FittedParameter> parameters;  // in the order they are written
  std::vector<std::string> notes;           // comment lines: measured figures with no parameter
};

// `command` is quoted in every source (how the file was produced).
Calibration calibrate(const std::string& data_dir, const std::string& base,
                      const std::string& command);

// The calibrated hardware file (YAML: `base:` plus one mapping per unit, {value, source}).
std::string to_yaml(const Calibration& c);

}  // namespace mgsim::validate
