#include "validate/calibrator.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "models/hardware_loader.hpp"
#include "sim/check.hpp"

namespace mgsim::validate {
namespace {

bool contains(const std::vector<std::string_view>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

Calibrator::Calibrator(std::string data_dir, std::string cases_dir, std::string base,
                       std::string command)
    : data_dir_(std::move(data_dir)),
      cases_dir_(std::move(cases_dir)),
      command_(std::move(command)),
      base_hw_(models::load_hardware(base)) {
  out_.base = std::move(base);
}

void Calibrator::run(const Fit& fit) {
  running_ = &fit;
  fit.run(*this);
  running_ = nullptr;
  for (const std::string_view p : fit.writes)
    MGSIM_CHECK(fitted_.count(p) == 1, "fit '{}' declares {} but did not write it", fit.name, p);
}

std::string Calibrator::missing_input(const Fit& fit) const {
  for (const FitInput& f : fit.files) {
    if (f.folder != FitInput::Folder::data) continue;
    const std::string name = expand_data_name(f.file, data_dir_);
    if (!std::filesystem::exists(fmt::format("{}/{}", data_dir_, name)))
      return fmt::format("no {} in the data folder", name);
  }
  for (const std::string_view p : fit.fitted)
    if (fitted_.count(p) == 0) return fmt::format("needs {}, not fitted", p);
  return "";
}

const FitInput& Calibrator::declared_file(FitInput::Folder folder, std::string_view name) const {
  MGSIM_CHECK(running_ != nullptr, "a calibration input read outside a fit");
  const auto it =
      std::find_if(running_->files.begin(), running_->files.end(),
                   [&](const FitInput& f) { return f.folder == folder && f.file == name; });
  MGSIM_CHECK(it != running_->files.end(), "fit '{}' reads {}, which it does not declare",
              running_->name, name);
  return *it;
}

const MeasurementTable& Calibrator::table(const std::string& name) {
  declared_file(FitInput::Folder::data, name);
  auto it = tables_.find(name);
  if (it == tables_.end())
    it = tables_
             .emplace(name, MeasurementTable::load_file(data_dir_ + "/" +
                                                        expand_data_name(name, data_dir_)))
             .first;
  return it->second;
}

// The name a fit loaded `t` by (relative to the data folder), as its inputs declare it.
std::string Calibrator::table_name(const MeasurementTable& t) const {
  for (const auto& [name, table] : tables_)
    if (&table == &t) return name;
  return file_name(t);
}

std::size_t Calibrator::column(const MeasurementTable& t, std::string_view name, Unit unit) {
  const FitInput& f = declared_file(FitInput::Folder::data, table_name(t));
  MGSIM_CHECK(contains(f.fields, name), "fit '{}' reads column {} of {}, which it does not declare",
              running_->name, name, f.file);
  return t.column(name, unit);
}

const std::string& Calibrator::metadata(const MeasurementTable& t, std::string_view key) {
  const FitInput& f = declared_file(FitInput::Folder::data, table_name(t));
  MGSIM_CHECK(contains(f.fields, key),
              "fit '{}' reads metadata {} of {}, which it does not declare", running_->name, key,
              f.file);
  const auto it = t.metadata().find(std::string(key));
  if (it == t.metadata().end()) out_of_range(t, fmt::format("no {} in the metadata", key));
  return it->second;
}

std::string Calibrator::data_path(std::string_view name) {
  declared_file(FitInput::Folder::data, name);
  return fmt::format("{}/{}", data_dir_, expand_data_name(name, data_dir_));
}

traces::Schedule Calibrator::case_schedule(std::string_view name) {
  declared_file(FitInput::Folder::cases, name);
  return traces::load_schedule_file(fmt::format("{}/{}", cases_dir_, name));
}

const Fitted& Calibrator::fitted(std::string_view parameter) const {
  MGSIM_CHECK(running_ != nullptr && contains(running_->fitted, parameter),
              "fit '{}' reads {}, which it does not declare", running_ ? running_->name : "",
              parameter);
  const auto it = fitted_.find(parameter);
  MGSIM_CHECK(it != fitted_.end(), "fit '{}' reads {} before a fit wrote it", running_->name,
              parameter);
  return it->second;
}

void Calibrator::write(std::string_view parameter, std::string value, double exact,
                       std::string statement, std::string_view how) {
  MGSIM_CHECK(running_ != nullptr && contains(running_->writes, parameter),
              "fit '{}' writes {}, which it does not declare", running_ ? running_->name : "",
              parameter);
  const auto dot = parameter.find('.');
  MGSIM_CHECK(dot != std::string_view::npos, "parameter '{}' is not section.key", parameter);
  std::string source = how.empty() ? statement : fmt::format("{}; {}", statement, how);
  const bool fresh =
      fitted_.emplace(std::string(parameter), Fitted{exact, std::move(statement)}).second;
  MGSIM_CHECK(fresh, "fit '{}' writes {}, which was written before", running_->name, parameter);
  out_.parameters.push_back({std::string(parameter.substr(0, dot)),
                             std::string(parameter.substr(dot + 1)), std::move(value),
                             fmt::format("{}; command: {}", source, command_),
                             std::string(running_->name)});
}

Rows select(Calibrator& c, const MeasurementTable& t, std::initializer_list<Eq> eqs,
            const std::function<bool(std::size_t)>& keep) {
  std::vector<std::pair<std::size_t, std::string_view>> cols;
  for (const Eq& e : eqs) cols.emplace_back(c.column(t, e.column, Unit::none), e.value);
  Rows out;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    bool ok = true;
    for (const auto& [col, v] : cols) ok = ok && t.text(r, col) == v;
    if (ok && (!keep || keep(r))) out.push_back(r);
  }
  return out;
}

Rows select_all_sms(Calibrator& c, const MeasurementTable& t, std::initializer_list<Eq> eqs,
                    const std::function<bool(std::size_t)>& keep, std::string_view what) {
  const std::size_t sms = c.column(t, "sms", Unit::none);
  const int count = c.base().sm.count;
  Rows out = select(c, t, eqs,
                    [&](std::size_t r) { return t.number(r, sms) == count && (!keep || keep(r)); });
  if (out.empty())
    out_of_range(t, fmt::format("no {} row on {} SMs, the base preset {}'s sm.count (measured on "
                                "a GPU with another SM count?)",
                                what, count, c.base_name()));
  return out;
}

std::string lines(const MeasurementTable& t, const Rows& rows) {
  std::string out;
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i;
    while (j + 1 < rows.size() && t.line_of(rows[j + 1]) == t.line_of(rows[j]) + 1) ++j;
    out += out.empty() ? "" : ",";
    out += j == i ? fmt::format("{}", t.line_of(rows[i]))
                  : fmt::format("{}-{}", t.line_of(rows[i]), t.line_of(rows[j]));
    i = j + 1;
  }
  return out;
}

std::string file_name(const MeasurementTable& t) {
  return std::filesystem::path(t.file()).filename().string();
}

std::string ps_value(double seconds) {
  const auto ps = static_cast<long long>(std::llround(seconds * 1e12));
  return fmt::format("{}.{:03}ns", ps / 1000, ps % 1000);
}

std::string bw_value(double bytes_per_second) {
  return fmt::format("{:.3f}GB/s", bytes_per_second * 1e-9);
}

FitResult fit_line(const MeasurementTable& t, const Rows& rows, std::size_t xcol, std::size_t ycol,
                   LineFit model, const std::string& what) {
  const bool intercept = model == LineFit::intercept_relative;
  const bool relative = model == LineFit::intercept_relative;
  const auto n = static_cast<Eigen::Index>(rows.size());
  Eigen::MatrixXd x(n, intercept ? 2 : 1);
  Eigen::VectorXd y(n), w(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const std::size_t r = rows[static_cast<std::size_t>(i)];
    if (intercept) x(i, 0) = 1.0;
    x(i, intercept ? 1 : 0) = t.number(r, xcol);
    y(i) = t.number(r, ycol);
    w(i) = relative && y(i) != 0 ? 1.0 / y(i) : 1.0;
  }
  return least_squares(x, y, w, fmt::format("{} ({})", what, file_name(t)), {t.file(), 0, 0});
}

ConstantFit fit_constant(const MeasurementTable& t, const Rows& rows, std::size_t ycol,
                         const std::string& what) {
  const auto n = static_cast<Eigen::Index>(rows.size());
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) y(i) = t.number(rows[static_cast<std::size_t>(i)], ycol);
  const FitResult f = least_squares(Eigen::MatrixXd::Ones(n, 1), y, Eigen::VectorXd::Ones(n),
                                    fmt::format("{} ({})", what, file_name(t)), {t.file(), 0, 0});
  return {f.coefficients, n ? y.minCoeff() : 0, n ? y.maxCoeff() : 0};
}

void out_of_range(const MeasurementTable& t, const std::string& what) {
  throw sim::ConfigError({t.file(), 0, 0}, fmt::format("calibration failed: {}", what));
}

double mean_of(const MeasurementTable& t, const Rows& rows,
               const std::function<double(std::size_t)>& value, const std::string& what) {
  if (rows.empty()) out_of_range(t, fmt::format("no rows to fit {}", what));
  double sum = 0;
  for (const std::size_t r : rows) sum += value(r);
  const double m = sum / static_cast<double>(rows.size());
  if (!(m > 0)) out_of_range(t, fmt::format("{} = {} is not positive", what, m));
  return m;
}

}  // namespace mgsim::validate
