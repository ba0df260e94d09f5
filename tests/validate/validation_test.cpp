// The CI guard of issue 4: recompute the validation table from the committed data and fail if
// any category's error grew past what validate/baseline.json (and docs/VALIDATION.md) records.
#include <filesystem>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "validate/cases.hpp"
#include "validate/measurements.hpp"
#include "validate/report.hpp"

namespace {

const std::string kSource = MGSIM_SOURCE_DIR;

// Runs the manifest over data folder `data` (under validate/data) on preset `hw` and checks
// what the CI guard holds: every measured row of every data file is a case (issue 4: every
// measured case has a schedule), or is skipped by its manifest group with a reason. The data
// files are every CSV in the folder, so a new measurement without cases fails here, and the files
// of the one-GPU folder the manifest names (../<data>-single/...). Returns the families a
// `partial` run listed as not measured; no other family is left pending.
std::size_t check_against_baseline(const std::string& data, const std::string& hw, bool partial,
                                   const std::string& baseline) {
  const std::string dir = kSource + "/validate/data/" + data;
  const auto run =
      mgsim::validate::run_validation(kSource + "/validate/cases/manifest.yaml", dir,
                                      kSource + "/models/presets/" + hw + ".yaml", partial);
  std::size_t rows = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".csv")
      rows += mgsim::validate::MeasurementTable::load_file(e.path().string()).rows();
  std::set<std::string> elsewhere;
  for (const auto& c : run.cases)
    if (c.family.starts_with("../")) elsewhere.insert(c.family);
  for (const std::string& f : elsewhere) {
    CHECK(f.starts_with("../" + data + "-single/"));
    rows += mgsim::validate::MeasurementTable::load_file(dir + "/" + f).rows();
  }
  // Rows a manifest group skips (with its reason, in the report) are the only ones not predicted.
  std::size_t skipped = 0, not_measured = 0;
  for (const auto& p : run.pending) {
    INFO(p.family);
    CHECK((p.status == "not predicted" || (partial && p.status == "not measured")));
    skipped += p.rows;
    not_measured += p.status == "not measured";
  }
  CHECK(run.cases.size() + skipped == rows);
  const auto problems = mgsim::validate::check_baseline(
      mgsim::validate::category_stats(run),
      mgsim::validate::load_baseline(kSource + "/validate/" + baseline), 1e-9);
  for (const std::string& p : problems) UNSCOPED_INFO(p);
  CHECK(problems.empty());
  return not_measured;
}

}  // namespace

TEST_CASE("validation errors do not grow past the recorded baseline") {
  CHECK(check_against_baseline("h200", "h200.calibrated", false, "baseline.json") == 0);
}

TEST_CASE("the H100's validation (one GPU's programs) does not grow past its baseline") {
  // The families a one-GPU machine cannot measure (two GPUs'), and those of the H200's other
  // machines (its second host's, run 41's), are listed as not measured, none silently.
  CHECK(check_against_baseline("h100", "h100.calibrated", true, "baseline_h100.json") == 14);
}
