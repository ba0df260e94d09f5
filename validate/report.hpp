// Error statistics and reports of a validation run: the text table `mgsim validate` prints,
// docs/VALIDATION.md, and the machine-readable baseline (validate/baseline.json) that the CI test
// compares a fresh run against.
//
// Statistics are over |error| = |predicted / measured - 1| per category: median (mean of the two
// middle values for an even count), p90 by nearest rank (the ceil(0.9 n)-th smallest) and worst.
// Contract: deterministic text (fixed formats, manifest order). check_baseline() lists every
// category whose median, p90 or worst grew past the recorded value by more than `tolerance`
// (absolute, in fractions: 1e-9 is float noise only), and categories missing on either side.
#pragma once

#include <string>
#include <vector>

#include "validate/cases.hpp"

namespace mgsim::validate {

struct CategoryStats {
  std::string category;
  std::size_t cases = 0;
  double median = 0, p90 = 0, worst = 0;  // |error| as fractions
};

// One entry per category, in the order categories first appear in `run.cases`.
std::vector<CategoryStats> category_stats(const ValidationRun& run);
// One entry per data file (`category` holds "file (category)"), in manifest order: where the
// error of a category comes from.
std::vector<CategoryStats> family_stats(const ValidationRun& run);

// Median and nearest-rank p90 of `values` (fractions). REQUIRES: !values.empty().
double median_of(std::vector<double> values);
double p90_of(std::vector<double> values);

std::string format_table(const ValidationRun& run, const std::vector<CategoryStats>& stats);
std::string format_markdown(const ValidationRun& run, const std::vector<CategoryStats>& stats,
                            const std::string& command, const std::string& hw);
std::string format_baseline(const std::vector<CategoryStats>& stats, const std::string& command);

// Reads a baseline written by format_baseline(). Errors are sim::ConfigError at file:line:col.
std::vector<CategoryStats> load_baseline(const std::string& path);
// Human-readable regressions; empty when none.
std::vector<std::string> check_baseline(const std::vector<CategoryStats>& now,
                                        const std::vector<CategoryStats>& recorded,
                                        double tolerance);

}  // namespace mgsim::validate
