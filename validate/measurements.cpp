#include "validate/measurements.hpp"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include <fmt/format.h>

namespace mgsim::validate {
namespace {

struct UnitName {
  std::string_view token;
  Unit unit;
};

// Tokens as the measurement programs write them (lower case, `_`-separated).
constexpr std::array<UnitName, 8> kUnits{{{"us", Unit::microseconds},
                                          {"ns", Unit::nanoseconds},
                                          {"ms", Unit::milliseconds},
                                          {"bytes", Unit::bytes},
                                          {"gbps", Unit::gbps},
                                          {"mhz", Unit::mhz},
                                          {"w", Unit::watts},
                                          {"tflops", Unit::tflops}}};

std::string known_units() {
  std::string out;
  for (const UnitName& u : kUnits) out += (out.empty() ? "" : ", ") + std::string(u.token);
  return out;
}

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> split(std::string_view line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= line.size(); ++i) {
    if (i == line.size() || line[i] == ',') {
      out.push_back(trim(line.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

bool parse_number(const std::string& s, double& out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return errno == 0 && end == s.c_str() + s.size();
}

// A metadata key the format requires, with the spellings that satisfy it.
struct RequiredKey {
  std::string_view name;
  std::array<std::string_view, 2> spellings;
};
constexpr std::array<RequiredKey, 3> kRequired{{{"gpu", {"gpu", "gpu0_name"}},
                                                {"date", {"date", "date_utc"}},
                                                {"command", {"command", "command"}}}};

}  // namespace

const char* to_string(Unit u) {
  switch (u) {
    case Unit::none:
      return "no unit";
    case Unit::microseconds:
      return "us";
    case Unit::nanoseconds:
      return "ns";
    case Unit::milliseconds:
      return "ms";
    case Unit::bytes:
      return "bytes";
    case Unit::gbps:
      return "gbps";
    case Unit::mhz:
      return "mhz";
    case Unit::watts:
      return "w";
    case Unit::tflops:
      return "tflops";
  }
  return "?";
}

Unit unit_of_column(std::string_view name, const sim::SourceLocation& where) {
  const auto open = name.find_first_of("[(");
  if (open != std::string_view::npos) {
    const char close = name[open] == '[' ? ']' : ')';
    if (name.back() != close)
      throw sim::ConfigError(where, fmt::format("column '{}': unit bracket not closed", name));
    const std::string unit = trim(name.substr(open + 1, name.size() - open - 2));
    for (const UnitName& u : kUnits)
      if (u.token == unit) return u.unit;
    throw sim::ConfigError(where, fmt::format("column '{}': unknown unit '{}' (known: {})", name,
                                              unit, known_units()));
  }
  std::size_t start = 0;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    if (i == name.size() || name[i] == '_') {
      const std::string_view token = name.substr(start, i - start);
      for (const UnitName& u : kUnits)
        if (u.token == token) return u.unit;
      start = i + 1;
    }
  }
  return Unit::none;
}

std::string expand_data_name(std::string_view name, const std::string& data_dir) {
  constexpr std::string_view kGpu = "{gpu}";
  const std::filesystem::path dir = std::filesystem::path(data_dir).lexically_normal();
  const std::string folder = (dir.has_filename() ? dir : dir.parent_path()).filename().string();
  std::string out(name);
  for (auto at = out.find(kGpu); at != std::string::npos; at = out.find(kGpu, at + folder.size()))
    out.replace(at, kGpu.size(), folder);
  return out;
}

MeasurementTable MeasurementTable::load_file(const std::string& path) {
  return parse(sim::read_input_file(path, "measurement file"), path);
}

MeasurementTable MeasurementTable::parse(std::string_view text, const std::string& name) {
  MeasurementTable t;
  t.file_ = name;
  std::istringstream in{std::string(text)};
  std::string line;
  int number = 0;
  bool metadata_seen = false;
  while (std::getline(in, line)) {
    ++number;
    const std::string l = trim(line);
    if (l.empty()) continue;
    if (l.front() == '#') {
      if (t.header_line_ != 0)
        throw sim::ConfigError({name, number, 1}, "a '#' line after the header row");
      const auto colon = l.find(':');
      if (colon == std::string::npos)
        throw sim::ConfigError({name, number, 1}, "expected a metadata line '# key: value'");
      t.metadata_[trim(std::string_view(l).substr(1, colon - 1))] =
          trim(std::string_view(l).substr(colon + 1));
      metadata_seen = true;
      continue;
    }
    if (t.header_line_ == 0) {
      if (!metadata_seen)
        throw sim::ConfigError({name, number, 1},
                               "no metadata: a measurement file starts with '# key: value' lines "
                               "(gpu, date and command at least)");
      for (const RequiredKey& k : kRequired) {
        bool found = false;
        for (const std::string_view s : k.spellings)
          found = found || t.metadata_.contains(std::string(s));
        if (!found)
          throw sim::ConfigError({name, number, 1},
                                 fmt::format("the metadata has no '{}' (write '# {}: ...' before "
                                             "the header row)",
                                             k.name, k.spellings[1]));
      }
      t.header_line_ = number;
      t.columns_ = split(l);
      for (std::size_t c = 0; c < t.columns_.size(); ++c) {
        if (t.columns_[c].empty())
          throw sim::ConfigError({name, number, 1}, fmt::format("column {} has no name", c + 1));
        t.units_.push_back(unit_of_column(t.columns_[c], {name, number, 1}));
      }
      continue;
    }
    std::vector<std::string> fields = split(l);
    if (fields.size() != t.columns_.size())
      throw sim::ConfigError({name, number, 1},
                             fmt::format("{} fields, but the header (line {}) names {} columns",
                                         fields.size(), t.header_line_, t.columns_.size()));
    for (std::size_t c = 0; c < fields.size(); ++c) {
      double v = 0;
      if (t.units_[c] != Unit::none && !parse_number(fields[c], v))
        throw sim::ConfigError(
            {name, number, 1},
            fmt::format("column '{}' holds '{}', not a number", t.columns_[c], fields[c]));
    }
    t.rows_.push_back(std::move(fields));
    t.lines_.push_back(number);
  }
  if (!metadata_seen)
    throw sim::ConfigError({name, number, 0}, "no metadata and no data: an empty measurement file");
  if (t.header_line_ == 0)
    throw sim::ConfigError({name, number, 0}, "no header row after the metadata");
  return t;
}

bool MeasurementTable::has_column(std::string_view name) const {
  for (const std::string& c : columns_)
    if (c == name) return true;
  return false;
}

std::size_t MeasurementTable::column(std::string_view name, Unit unit) const {
  const std::size_t c = column_index(name);
  if (units_[c] != unit)
    throw sim::ConfigError({file_, header_line_, 1},
                           fmt::format("column '{}' is in {}, expected {}", name,
                                       to_string(units_[c]), to_string(unit)));
  return c;
}

std::size_t MeasurementTable::column_index(std::string_view name) const {
  for (std::size_t c = 0; c < columns_.size(); ++c)
    if (columns_[c] == name) return c;
  const std::string near = sim::nearest_name(name, columns_);
  throw sim::ConfigError(
      {file_, header_line_, 1},
      fmt::format("missing column '{}'{}", name,
                  near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near)));
}

double MeasurementTable::number(std::size_t row, std::size_t column) const {
  double v = 0;
  if (!parse_number(rows_[row][column], v))
    throw sim::ConfigError(
        {file_, lines_[row], 1},
        fmt::format("column '{}' holds '{}', not a number", columns_[column], rows_[row][column]));
  return v;
}

const std::string& MeasurementTable::text(std::size_t row, std::size_t column) const {
  return rows_[row][column];
}

}  // namespace mgsim::validate
