// What a fit (validate/calibrate.hpp's table) reads and writes through, and the small helpers
// every fit uses: row selection, line lists, least-squares lines and constants, value formats.
// Internal to validate/.
//
// The Calibrator holds the run of one calibration: the data folder's tables (each loaded once),
// the base preset, and every parameter written so far with its exact value, so that a later fit
// builds on unrounded numbers (the file holds rounded text). While a fit runs it checks the
// fit's declaration: reading an undeclared file, column or parameter, or writing an undeclared
// parameter or one written before, is a bug (sim::InternalError).
#pragma once

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "models/hardware_spec.hpp"
#include "traces/schedule.hpp"
#include "validate/calibrate.hpp"
#include "validate/fit.hpp"
#include "validate/measurements.hpp"

namespace mgsim::validate {

// A parameter an earlier fit wrote, for the fits that build on it.
struct Fitted {
  double value = 0;       // exact, in SI units (s, B/s, Hz) or a plain ratio
  std::string statement;  // the fit it came from, as its source quotes it (without the command)
};

class Calibrator {
 public:
  Calibrator(std::string data_dir, std::string cases_dir, std::string base, std::string command);

  // Runs `fit` and checks that it wrote every parameter it declares.
  void run(const Fit& fit);
  // Why `fit` cannot run here: a data file it reads is not in the folder, or a parameter it
  // builds on was not fitted ("" when it can run).
  std::string missing_input(const Fit& fit) const;
  Calibration& result() { return out_; }

  // REQUIRES for all below: called from a running fit, about what it declares.
  // The measurement file `name` of the data folder.
  const MeasurementTable& table(const std::string& name);
  // Column `name` of `t`, whose unit must be `unit` (MeasurementTable::column).
  std::size_t column(const MeasurementTable& t, std::string_view name, Unit unit);
  // Metadata key `key` of `t`; missing is a ConfigError naming the file.
  const std::string& metadata(const MeasurementTable& t, std::string_view key);
  // File `name` as the data folder names it ("{gpu}" expanded), for sources to quote.
  std::string data_name(std::string_view name) const { return expand_data_name(name, data_dir_); }
  // The path of file `name` in the data folder (for files that are not measurement tables).
  std::string data_path(std::string_view name);
  // Case file `name` of the cases folder, loaded.
  traces::Schedule case_schedule(std::string_view name);
  const models::HardwareSpec& base() const { return base_hw_; }
  const std::string& base_name() const { return out_.base; }
  // A parameter an earlier fit wrote ("nvlink.latency").
  const Fitted& fitted(std::string_view parameter) const;

  // Writes `parameter` ("copy_engine.setup") as `value` (the file's text); `exact` is what later
  // fits read. The source is `statement`, then "; `how`" when given, then the command.
  void write(std::string_view parameter, std::string value, double exact, std::string statement,
             std::string_view how = {});

 private:
  const FitInput& declared_file(FitInput::Folder folder, std::string_view name) const;
  std::string table_name(const MeasurementTable& t) const;

  std::string data_dir_, cases_dir_, command_;
  models::HardwareSpec base_hw_;
  std::map<std::string, MeasurementTable> tables_;
  std::map<std::string, Fitted, std::less<>> fitted_;
  Calibration out_;
  const Fit* running_ = nullptr;
};

using Rows = std::vector<std::size_t>;

struct Eq {
  std::string_view column;
  std::string_view value;
};

// Rows whose text columns equal the given values and that pass `keep`.
Rows select(Calibrator& c, const MeasurementTable& t, std::initializer_list<Eq> eqs,
            const std::function<bool(std::size_t)>& keep = {});

// select() among the rows measured on all SMs (column `sms` = the base preset's sm.count); none
// is a ConfigError naming the file and the SM count expected (`what` says which rows).
Rows select_all_sms(Calibrator& c, const MeasurementTable& t, std::initializer_list<Eq> eqs,
                    const std::function<bool(std::size_t)>& keep, std::string_view what);

// "21-24,30": the file lines of `rows`, runs compressed.
std::string lines(const MeasurementTable& t, const Rows& rows);

// The file name of `t` without its folder: "peer_ce.csv".
std::string file_name(const MeasurementTable& t);

// "704.500ns" (picoseconds, rounded once) and "390.156GB/s".
std::string ps_value(double seconds);
std::string bw_value(double bytes_per_second);

// The two lines the fits use: y = c0 x through the origin, unweighted (a rate, e.g. GB/s per
// SM); or y = c0 + c1 x with each row weighted 1/y (a latency plus size over rate, fitted in
// relative error so that the largest sizes do not set the latency alone).
enum class LineFit { through_origin, intercept_relative };

// Rows -> the line `model` of column ycol against column xcol.
FitResult fit_line(const MeasurementTable& t, const Rows& rows, std::size_t xcol, std::size_t ycol,
                   LineFit model, const std::string& what);

// A constant fitted to rows (its least-squares value is their mean), with the rows' range.
struct ConstantFit {
  std::vector<double> coefficients;
  double min = 0, max = 0;
};
ConstantFit fit_constant(const MeasurementTable& t, const Rows& rows, std::size_t ycol,
                         const std::string& what);

// The mean of `value(row)` over `rows`: the least-squares constant of a quantity derived from
// each row. No rows, or a mean that is not positive, is an error naming the file.
double mean_of(const MeasurementTable& t, const Rows& rows,
               const std::function<double(std::size_t)>& value, const std::string& what);

// A fitted value out of range, or data that cannot be fitted: a ConfigError naming the file.
[[noreturn]] void out_of_range(const MeasurementTable& t, const std::string& what);

}  // namespace mgsim::validate
