// `mgsim validate [--hw h200.calibrated] [--data validate/data/h200]
//  [--manifest validate/cases/manifest.yaml] [--write docs/VALIDATION.md]
//  [--baseline validate/baseline.json] [--update-baseline] [--partial]`:
// predicts every measured case of the manifest in process and prints the error table with
// median, p90 and worst |error| per category, and the families not yet predictable.
//
// --write replaces the "## Results" section of the markdown file (everything from that heading to
// the end; the hand-written analysis above it stays). --update-baseline rewrites the baseline
// JSON; without it, a baseline file that exists is checked and a category whose error grew past
// it fails the command (exit 1), as the CI test does. --partial: the folder holds what a machine
// could measure (one GPU's programs); the families it lacks are listed as not measured.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/output_file.hpp"
#include "sim/config.hpp"
#include "validate/cases.hpp"
#include "validate/report.hpp"

namespace mgsim::cli {
namespace {

struct ValidateOptions {
  std::string hw = "h200.calibrated";
  std::string data = "validate/data/h200";
  std::string manifest = "validate/cases/manifest.yaml";
  std::string write;
  std::string baseline = "validate/baseline.json";
  bool update_baseline = false;
  bool partial = false;
};

// A file's text ("" when there is none yet): a regular file of bounded size only.
std::string read_text(const std::string& path, std::string_view what) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return "";
  return sim::read_input_file(path, what);
}

void run_validate(const ValidateOptions& o) {
  std::string command = "mgsim validate --hw " + o.hw;
  if (o.data != "validate/data/h200") command += " --data " + o.data;
  if (o.partial) command += " --partial";
  // Both are documents that are read, then rewritten: the old one stays until the new is whole.
  std::optional<OutputFile> doc_file, baseline_file;
  if (!o.write.empty()) doc_file.emplace(o.write, "report", OutputFile::Older::keep);
  if (o.update_baseline) baseline_file.emplace(o.baseline, "baseline", OutputFile::Older::keep);
  const validate::ValidationRun run = validate::run_validation(o.manifest, o.data, o.hw, o.partial);
  const auto stats = validate::category_stats(run);
  std::cout << validate::format_table(run, stats);
  if (doc_file) {
    std::string doc = read_text(o.write, "report");
    const auto at = doc.find("## Results\n");
    if (at != std::string::npos) doc.erase(at);
    doc_file->stream() << doc << validate::format_markdown(run, stats, command, o.hw);
    doc_file->commit();
    std::cout << "wrote " << o.write << "\n";
  }
  if (baseline_file) {
    baseline_file->stream() << validate::format_baseline(stats, command);
    baseline_file->commit();
    std::cout << "wrote " << o.baseline << "\n";
  } else if (!read_text(o.baseline, "baseline").empty()) {
    const auto problems =
        validate::check_baseline(stats, validate::load_baseline(o.baseline), 1e-9);
    if (!problems.empty()) {
      std::string msg =
          fmt::format("{}: error: the validation error grew past the baseline:", o.baseline);
      for (const std::string& p : problems) msg += "\n  " + p;
      throw CheckFailed(msg);
    }
  }
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto opts = std::make_shared<ValidateOptions>();
  CLI::App* cmd =
      app.add_subcommand("validate", "Predict every measured case and report the errors");
  cmd->add_option("--hw", opts->hw, "hardware preset or .yaml (default h200.calibrated)");
  cmd->add_option("--data", opts->data, "measurement folder (default validate/data/h200)");
  cmd->add_option("--manifest", opts->manifest,
                  "cases manifest (default validate/cases/manifest.yaml)");
  cmd->add_option("--write", opts->write, "replace the '## Results' section of this markdown file");
  cmd->add_option("--baseline", opts->baseline, "recorded errors (default validate/baseline.json)");
  cmd->add_flag("--update-baseline", opts->update_baseline,
                "rewrite the baseline instead of checking it");
  cmd->add_flag("--partial", opts->partial,
                "list the families whose files the folder lacks as not measured (a machine "
                "that ran only the one-GPU programs) instead of failing");
  cmd->callback([opts] { run_validate(*opts); });
}

}  // namespace mgsim::cli
