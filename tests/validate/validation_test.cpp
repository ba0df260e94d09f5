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
}

TEST_CASE("validation errors do not grow past the recorded baseline") {
  const auto run = mgsim::validate::run_validation(
      kSource + "/validate/cases/manifest.yaml", kSource + "/validate/data/h200",
      kSource + "/models/presets/h200.calibrated.yaml");
  // Every measured row of every data file is a case (issue 4: every measured case has a
  // schedule), or is skipped by its manifest group with a reason; no family is left pending.
  // The data files are every CSV in the folder, so a new measurement without cases fails here,
  // and the files of another folder the manifest names (../h200-single/...).
  std::size_t rows = 0;
  const std::string dir = kSource + "/validate/data/h200";
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".csv")
      rows += mgsim::validate::MeasurementTable::load_file(e.path().string()).rows();
  std::set<std::string> elsewhere;
  for (const auto& c : run.cases)
    if (c.family.starts_with("../")) elsewhere.insert(c.family);
  for (const std::string& f : elsewhere)
    rows += mgsim::validate::MeasurementTable::load_file(dir + "/" + f).rows();
  // Rows a manifest group skips (with its reason, in the report) are the only ones not predicted.
  std::size_t skipped = 0;
  for (const auto& p : run.pending) {
    INFO(p.family);
    CHECK(p.status == "not predicted");
    skipped += p.rows;
  }
  CHECK(run.cases.size() + skipped == rows);
  const auto now = mgsim::validate::category_stats(run);
  const auto recorded = mgsim::validate::load_baseline(kSource + "/validate/baseline.json");
  const auto problems = mgsim::validate::check_baseline(now, recorded, 1e-9);
  for (const std::string& p : problems) UNSCOPED_INFO(p);
  CHECK(problems.empty());
}
