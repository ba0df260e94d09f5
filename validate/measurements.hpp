// Reading one measurement CSV of validate/data/<gpu>/ (docs/MEASUREMENTS.md has the format).
//
// Format: `# key: value` metadata lines first (at least the GPU, the date and the command that
// produced the file: `gpu` or `gpu0_name`, `date` or `date_utc`, `command`), then one header row
// of column names, then one row per case, fields separated by commas (no quoting: no measured
// field holds a comma). A column's unit is in its name, either in brackets (`time[us]`,
// `time(us)`) or as one `_`-separated token (`time_us_median`, `buffer_bytes`, `gbps_median`,
// `sm_clock_mhz_end`, `power_w_end`); a column without a unit token is a count or text.
//
// Contract: load errors are sim::ConfigError naming file:line (no metadata, a missing required
// key, no header, a row with the wrong number of fields, an unknown bracketed unit, a
// non-numeric value in a column with a unit). column() rejects a missing column or one whose
// unit is not the one asked for, naming the header line; number() rejects a non-numeric field,
// naming its line. Rows keep file order. Ignores: quoting, comments after the header.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config.hpp"

namespace mgsim::validate {

enum class Unit { none, microseconds, nanoseconds, milliseconds, bytes, gbps, mhz, watts, tflops };

const char* to_string(Unit u);

// The unit a column name carries; a bracketed unit that is not known is a ConfigError at `where`.
Unit unit_of_column(std::string_view name, const sim::SourceLocation& where);

// A measurement folder's file named `name`, relative to the folder, with "{gpu}" standing for the
// folder's own name: "../{gpu}-single/mlp.csv" of validate/data/h100 is "../h100-single/mlp.csv",
// the folder of a one-GPU machine's programs beside each GPU's.
std::string expand_data_name(std::string_view name, const std::string& data_dir);

class MeasurementTable {
 public:
  static MeasurementTable load_file(const std::string& path);
  // `name` stands for the file in messages.
  static MeasurementTable parse(std::string_view text, const std::string& name);

  const std::string& file() const { return file_; }
  // Metadata key -> value, as written after `# key: `.
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  std::size_t rows() const { return rows_.size(); }
  // 1-based line of row `row` in the file.
  int line_of(std::size_t row) const { return lines_[row]; }

  bool has_column(std::string_view name) const;
  // Index of column `name`, whose unit must be `unit`. REQUIRES nothing; errors as above.
  std::size_t column(std::string_view name, Unit unit) const;
  // Index of column `name` whatever its unit (for counts and sizes handed on as they are).
  std::size_t column_index(std::string_view name) const;
  double number(std::size_t row, std::size_t column) const;
  const std::string& text(std::size_t row, std::size_t column) const;

 private:
  std::string file_;
  std::map<std::string, std::string> metadata_;
  int header_line_ = 0;
  std::vector<std::string> columns_;
  std::vector<Unit> units_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<int> lines_;
};

}  // namespace mgsim::validate
