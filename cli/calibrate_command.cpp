// `mgsim calibrate DATA_DIR -o OUT.yaml [--base h200]`: fits the hardware parameters of one GPU
// type to the primitive measurements in DATA_DIR (validate/calibrate.hpp says which files and
// fits) and writes a hardware file that inherits the base preset. With `--host [--name N]` it
// fits only the host's costs (launch.csv, host_api.csv of a folder measured on that host).
// Deterministic: the same data gives the same file, byte for byte. Without -o the file is
// printed. With --partial, fits whose files the folder lacks are left out (named on stderr and in
// the file).
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands.hpp"
#include "cli/output_file.hpp"
#include "sim/config.hpp"
#include "validate/calibrate.hpp"

namespace mgsim::cli {
namespace {

struct CalibrateOptions {
  std::string data;
  std::string out;
  std::string base = "h200";
  bool host = false;
  bool partial = false;
  std::string name;
};

void run_calibrate(const CalibrateOptions& o) {
  // The command as a user would retype it, recorded in every source (paths as given).
  std::string command = "mgsim calibrate " + o.data;
  if (o.base != "h200") command += " --base " + o.base;
  if (o.host) command += " --host";
  if (o.partial) command += " --partial";
  if (!o.name.empty()) command += " --name " + o.name;
  // Opened before the fit: a path that cannot be written fails at once. A file already there (a
  // preset, often) stays until the new one is whole.
  std::optional<OutputFile> out;
  if (!o.out.empty()) out.emplace(o.out, "calibrated hardware", OutputFile::Older::keep);
  validate::Calibration c = o.host
                                ? validate::calibrate_host(o.data, o.base, command)
                                : validate::calibrate(o.data, o.base, command,
                                                      validate::configured_cases_dir(), o.partial);
  for (const std::string& n : c.left_out) std::cerr << n << "\n";
  if (!o.name.empty()) c.name = o.name;
  const std::string yaml = validate::to_yaml(c);
  if (!out) {
    std::cout << yaml;
    return;
  }
  out->stream() << yaml;
  out->commit();
  std::cout << "wrote " << o.out << " (" << c.parameters.size() << " fitted parameters)\n";
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto opts = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "Fit hardware parameters to primitive measurements (validate/data/<gpu>)");
  cmd->add_option("data", opts->data, "measurement folder, e.g. validate/data/h200")->required();
  cmd->add_option("-o,--output", opts->out, "calibrated hardware YAML to write (default: print)");
  cmd->add_option("--base", opts->base, "preset the calibrated file inherits (default h200)");
  cmd->add_flag("--host", opts->host,
                "fit only the host's costs (launch.csv, host_api.csv): a host measured apart "
                "from the GPU data");
  cmd->add_flag("--partial", opts->partial,
                "fit what the folder has (a machine that ran only the one-GPU programs): fits "
                "whose files are missing are left out and named in the file and on stderr");
  cmd->add_option("--name", opts->name,
                  "the written preset's name (default <base>.calibrated, or <base>.host)");
  cmd->callback([opts] { run_calibrate(*opts); });
}

}  // namespace mgsim::cli
