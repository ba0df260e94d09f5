// `mgsim calibrate`: fits a GPU's unit parameters to the primitive measurements of one machine
// (validate/data/<gpu>/) and writes them as a hardware file that inherits the datasheet preset.
//
// Fitted only from primitives: flag.csv, peer_ce.csv, peer_ldst.csv, peer_tma.csv, hbm.csv,
// l2.csv, peer_tma_reduce.csv, launch.csv, gemm.csv and system/nvlink_status.txt. The
// whole-pattern files (nccl.csv, ag_gemm.csv, gemm_rs.csv, interference.csv, put_signal.csv) are
// held out for `mgsim validate` and never read here; run1/ (a spread check) is ignored. What each
// fit is, and why, is in docs/VALIDATION.md; each fitted number's `source` names its file, lines,
// model, R^2 and command.
//
// One function per fitted parameter group, listed in calibration_fits(): the table of what each
// fit reads (data files and their columns, case files, earlier fits' parameters, the base
// preset's) and which parameters (section.key) it writes. calibrate() runs the fits in table
// order; a fit reads only the data files, columns, case files and fitted parameters it declares
// and writes exactly its declared outputs (anything else is a bug: sim::InternalError), and no
// two fits write one parameter. The base preset's parameters and a case file's params are
// declared for the reader, not checked.
//
// Nothing about one GPU is written in: the SM count is the base preset's sm.count (the rows on
// all SMs are the rows measured on that many), and the GEMM tiling the tensor clock is fitted in
// is validate/cases/gemm.yaml's, evaluated for each measured shape.
//
// Contract: deterministic (same data, same text, byte for byte). A missing file or column, a fit
// with too few points or a degenerate one, a fitted value out of range (a negative setup, an
// efficiency above 1), or no rows on the base preset's SM count is a sim::ConfigError naming the
// file. Ignores: the measurements' spread (medians are fitted). sm.tensor_clock is fitted at
// sm.clock, each GEMM row's time scaled by the clock it ran at (the power cap lowers it).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mgsim::validate {

struct FittedParameter {
  std::string section;  // "copy_engine"
  std::string key;      // "setup"
  std::string value;    // as the hardware loader reads it: "4321000ps"
  std::string source;   // "fit: peer_ce.csv lines ..., R^2=..., command: ..."
  std::string fit;      // the fit that wrote it (Fit::name): "copy engine"
};

struct Calibration {
  std::string name;                         // the preset it writes: "h200.calibrated"
  std::string description;                  // the file's description line
  std::string base;                         // the preset it overrides: "h200"
  std::vector<FittedParameter> parameters;  // in the order they are written
  std::vector<std::string> notes;           // comment lines: measured figures with no parameter
  std::vector<std::string> left_out;        // fits not run (--partial), and why: comment lines
};

class Calibrator;  // validate/calibrator.hpp: what a fit reads and writes through

// One input file of a fit and the fields of it the fit reads.
struct FitInput {
  enum class Folder { data, cases };  // the measurement folder, or validate/cases
  Folder folder = Folder::data;
  std::string_view file;                 // "peer_ce.csv", "system/nvlink_status.txt", "gemm.yaml"
  std::vector<std::string_view> fields;  // CSV columns and metadata keys; a case file's params
};

// One fitted parameter group: inputs -> outputs, and the function that fits it.
struct Fit {
  std::string_view name;                 // "copy engine"
  std::vector<FitInput> files;           // what it reads from the data and the cases
  std::vector<std::string_view> fitted;  // earlier fits' parameters it builds on
  std::vector<std::string_view> base;    // the base preset's parameters it reads
  std::vector<std::string_view> writes;  // "copy_engine.setup", in the order written
  void (*run)(Calibrator&);
};

// Every fit, in the order calibrate() runs them (a fit's `fitted` inputs come from fits above it).
const std::vector<Fit>& calibration_fits();

// A host's fits (`mgsim calibrate --host`): the launch model and the host's API costs, from
// launch.csv and host_api.csv of a folder measured on that host.
const std::vector<Fit>& host_calibration_fits();

// validate/cases of the source tree, as configured at build time (found from any directory).
std::string configured_cases_dir();

// `command` is quoted in every source (how the file was produced). `base` is a preset name or a
// hardware file path (models::load_hardware); `cases_dir` holds the case files the fits read.
// "{gpu}" in a fit's file name is the data folder's name (expand_data_name). With `partial` (a
// machine that measured only some programs), a fit whose data file is missing, or that builds
// on a parameter not fitted, is left out and named in Calibration::left_out; its parameters stay
// the base's.
Calibration calibrate(const std::string& data_dir, const std::string& base,
                      const std::string& command,
                      const std::string& cases_dir = configured_cases_dir(), bool partial = false);
// The host's fits only, as preset `<base>.host` over `base`: a host measured apart from the GPU
// data (validate/data/h200-single/host_run36), whose costs the families measured there are
// predicted with (the manifest's `host:`).
Calibration calibrate_host(const std::string& data_dir, const std::string& base,
                           const std::string& command);

// The calibrated hardware file (YAML: `base:` plus one mapping per unit, {value, source}).
std::string to_yaml(const Calibration& c);

}  // namespace mgsim::validate
