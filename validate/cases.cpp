#include "validate/cases.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "models/hardware_loader.hpp"
#include "sim/config.hpp"
#include "traces/executor.hpp"
#include "traces/schedule.hpp"
#include "traces/simulation.hpp"
#include "validate/measurements.hpp"

namespace mgsim::validate {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

// What a case's prediction is (the manifest's `measure`).
struct Measure {
  enum class Kind { end, host, between } kind = Kind::end;
  std::string from, to;  // event names, for between
};

Measure read_measure(const sim::Node& node) {
  Measure m;
  if (node.is_map()) {
    sim::MapReader r(node, "measure");
    m.kind = Measure::Kind::between;
    m.from = r.required("from").as_string();
    m.to = r.required("to").as_string();
    r.finish();
    return m;
  }
  const std::string k = node.as_string();
  if (k == "end") return m;
  if (k != "host")
    node.fail(fmt::format("measure '{}': expected end, host or {{from: EVENT, to: EVENT}}", k));
  m.kind = Measure::Kind::host;
  return m;
}

struct Group {
  sim::SourceLocation where_key;
  Pairs where;                     // column -> text value
  Pairs set;                       // param -> value
  std::string schedule;            // the family's unless the group names its own
  std::optional<Measure> measure;  // the family's unless the group names its own
  std::string skip;                // when set: its rows are not predicted, and this says why
};

// Params read out of a text column (`capture`): a kernel's tile from its name, say. The pattern
// is literal text with {PARAM} slots, each matching a run of digits; a slot is followed by text
// that starts with a non-digit, or ends the pattern, so each match is unambiguous and found in
// one pass per start position (no backtracking).
struct Capture {
  sim::SourceLocation at;
  std::string column, pattern;
  // The pattern in pieces: literal text, or a slot (`param` set) that matches digits.
  struct Piece {
    std::string text, param;
  };
  std::vector<Piece> pieces;
  bool optional = false;  // a file without the column keeps the schedule's own params

  // The slots' digits where the pattern first matches `text`, in slot order; none: no match.
  std::optional<Pairs> match(const std::string& text) const {
    for (std::size_t start = 0; start <= text.size(); ++start) {
      Pairs found;
      std::size_t at = start;
      bool ok = true;
      for (const Piece& p : pieces) {
        if (p.param.empty()) {
          ok = text.compare(at, p.text.size(), p.text) == 0;
          at += p.text.size();
        } else {
          const std::size_t end = std::min(text.find_first_not_of("0123456789", at), text.size());
          ok = end > at;
          found.emplace_back(p.param, text.substr(at, end - at));
          at = end;
        }
        if (!ok) break;
      }
      if (ok) return found;
    }
    return std::nullopt;
  }
};

struct Family {
  std::optional<Capture> capture;
  Measure measure;
  sim::SourceLocation at;
  std::string data, category, schedule, measured, divide_by, status, why;
  std::string host;  // when set: the preset whose host costs the rows were measured with
  sim::SourceLocation host_at;
  std::string stream;  // when set: the prediction is this stream's end on rank stream_rank
  int stream_rank = 0;
  Pairs define;  // param -> column
  Pairs less;    // when set: the prediction less the same case with these params
  std::vector<Group> groups;
};

Pairs read_pairs(const sim::Node& node, const std::string& what) {
  sim::MapReader r(node, what);
  Pairs out;
  for (auto& [k, v] : r.rest()) out.emplace_back(k, v.as_string());
  r.finish();
  return out;
}

Capture read_capture(const sim::Node& node) {
  sim::MapReader r(node, "capture");
  Capture c;
  c.at = node.location();
  c.column = r.required("column").as_string();
  const sim::Node pattern = r.required("pattern");
  c.pattern = pattern.as_string();
  auto bad = [&](const std::string& why) {
    pattern.fail(fmt::format("pattern '{}': {}", c.pattern, why));
  };
  for (std::size_t at = 0; at < c.pattern.size();) {
    const std::size_t open = c.pattern.find('{', at);
    if (open != at) {  // literal text up to the next slot
      const std::string text = c.pattern.substr(at, open - at);
      if (!c.pieces.empty() && std::isdigit(static_cast<unsigned char>(text[0])))
        bad("the text after a slot starts with a digit: where the slot's digits end is unclear");
      c.pieces.push_back({text, ""});
      at = open == std::string::npos ? c.pattern.size() : open;
      continue;
    }
    const std::size_t close = c.pattern.find('}', open);
    if (close == std::string::npos) bad("a '{' without its '}'");
    const std::string name = c.pattern.substr(open + 1, close - open - 1);
    if (name.empty() ||
        name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") != std::string::npos)
      bad(fmt::format("slot '{{{}}}': expected a param name (capitals, digits, _)", name));
    if (!c.pieces.empty() && !c.pieces.back().param.empty())
      bad("two slots side by side: where the first one's digits end is unclear");
    for (const Capture::Piece& p : c.pieces)
      if (p.param == name) bad(fmt::format("slot '{{{}}}' twice", name));
    c.pieces.push_back({"", name});
    at = close + 1;
  }
  if (std::none_of(c.pieces.begin(), c.pieces.end(),
                   [](const Capture::Piece& p) { return !p.param.empty(); }))
    bad("no {PARAM} slot: nothing to capture");
  if (auto o = r.optional("optional")) c.optional = o->as_bool();
  r.finish();
  return c;
}

Family read_family(const sim::Node& node) {
  sim::MapReader r(node, "family");
  Family f;
  f.at = node.location();
  f.data = r.required("data").as_string();
  const sim::Node cat = r.required("category");
  f.category = cat.as_string();
  if (f.category != "primitive" && f.category != "held-out")
    cat.fail(fmt::format("category '{}': expected primitive or held-out", f.category));
  if (auto s = r.optional("status")) {
    f.status = s->as_string();
    if (f.status != "needs-kernels") s->fail("status: expected needs-kernels (or no status)");
    f.why = r.required("why").as_string();
    r.finish();
    return f;
  }
  if (auto s = r.optional("schedule")) f.schedule = s->as_string();
  f.measured = r.required("measured").as_string();
  if (auto d = r.optional("divide_by")) f.divide_by = d->as_string();
  if (auto h = r.optional("host")) {
    f.host = h->as_string();
    f.host_at = h->location();
  }
  if (auto m = r.optional("measure")) f.measure = read_measure(*m);
  if (auto st = r.optional("stream")) {
    sim::MapReader sr(*st, "stream");
    f.stream = sr.required("name").as_string();
    if (auto rk = sr.optional("rank")) {
      const std::int64_t v = rk->as_int();
      if (v < 0 || v > 1'000'000) rk->fail(fmt::format("rank {}: expected 0 .. 1000000", v));
      f.stream_rank = static_cast<int>(v);
    }
    sr.finish();
  }
  if (auto d = r.optional("define")) f.define = read_pairs(*d, "define");
  if (auto c = r.optional("capture")) f.capture = read_capture(*c);
  if (auto l = r.optional("less")) f.less = read_pairs(*l, "less");
  if (auto g = r.optional("groups")) {
    for (const sim::Node& item : g->items()) {
      sim::MapReader gr(item, "group");
      Group group;
      group.where_key = item.location();
      if (auto w = gr.optional("where")) group.where = read_pairs(*w, "where");
      if (auto s = gr.optional("set")) group.set = read_pairs(*s, "set");
      group.schedule = f.schedule;
      if (auto s = gr.optional("schedule")) group.schedule = s->as_string();
      if (auto m = gr.optional("measure")) group.measure = read_measure(*m);
      if (auto k = gr.optional("skip")) group.skip = k->as_string();
      if (group.schedule.empty()) item.fail("no schedule: give one for the family or the group");
      gr.finish();
      f.groups.push_back(std::move(group));
    }
  } else {
    if (f.schedule.empty()) node.fail("no schedule: give one for the family or its groups");
    f.groups.push_back({f.at, {}, {}, f.schedule, std::nullopt, {}});
  }
  r.finish();
  return f;
}

std::string trim_number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 9.2e18)
    return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", v);
}

// The prediction of one case, in microseconds (Measure).
double measure(const traces::RunResult& result, const Measure& m, const Family& f,
               const std::string& schedule, const sim::SourceLocation& at) {
  const traces::StreamResult* found = nullptr;
  if (!f.stream.empty()) {
    for (const traces::StreamResult& sr : result.streams)
      if (sr.rank == f.stream_rank && sr.stream == f.stream) found = &sr;
    if (!found)
      throw sim::ConfigError(
          at, fmt::format("the schedule {} has no stream '{}' on rank {} for "
                          "this row (the manifest's {} family, {}:{})",
                          schedule, f.stream, f.stream_rank, f.data, f.at.file, f.at.line));
  }
  switch (m.kind) {
    case Measure::Kind::end:
      return (found ? found->end : result.end).since_start().microseconds();
    case Measure::Kind::host: {
      sim::Time t = sim::Time::zero();
      for (const traces::StreamResult& sr : result.streams) t = std::max(t, sr.host_end);
      return (found ? found->host_end : t).since_start().microseconds();
    }
    case Measure::Kind::between: {
      // Per rank that records both, the first `to` less the first `from`; the slowest rank's.
      std::map<int, std::pair<std::optional<sim::Time>, std::optional<sim::Time>>> ranks;
      for (const traces::EventResult& e : result.recorded) {
        auto& [from, to] = ranks[e.rank];
        if (e.event == m.from && !from) from = e.at;
        if (e.event == m.to && !to) to = e.at;
      }
      std::optional<sim::Duration> worst;
      for (const auto& [rank, times] : ranks) {
        if (!times.first || !times.second) continue;
        const sim::Duration d = *times.second - *times.first;
        if (!worst || d > *worst) worst = d;
      }
      if (!worst)
        throw sim::ConfigError(at, fmt::format("the schedule {} has no rank that records both "
                                               "'{}' and '{}' for this row (the manifest's {} "
                                               "family)",
                                               schedule, m.from, m.to, f.data));
      return worst->microseconds();
    }
  }
  return 0;
}

// `params` with `set`'s values in place of its own (added where it has none).
Pairs with(Pairs params, const Pairs& set) {
  for (const auto& entry : set) {
    std::erase_if(params, [&](const auto& p) { return p.first == entry.first; });
    params.push_back(entry);
  }
  return params;
}

// The slot of `s`'s param `name`, if it declares one.
std::optional<std::size_t> param_slot(const traces::Schedule& s, std::string_view name) {
  for (std::size_t i = 0; i < s.params.size(); ++i)
    if (s.params[i].name == name) return i;
  return std::nullopt;
}

// What a family's predictions are divided by (`divide_by`): a count column, a number, or a param
// of the schedule (the count it runs), evaluated in each row's run.
struct Divisor {
  std::optional<std::size_t> column;
  double constant = 1;
  std::string param;

  static Divisor of(const Family& f, const MeasurementTable& table,
                    const std::vector<traces::Schedule>& schedules) {
    Divisor d;
    if (f.divide_by.empty()) return d;
    char* end = nullptr;
    const double number = std::strtod(f.divide_by.c_str(), &end);
    if (end != f.divide_by.c_str() && *end == '\0') {
      if (!(number > 0))
        throw sim::ConfigError(
            f.at, fmt::format("divide_by {}: expected a positive number", f.divide_by));
      d.constant = number;
    } else if (table.has_column(f.divide_by)) {
      d.column = table.column(f.divide_by, Unit::none);
    } else {
      for (const traces::Schedule& s : schedules)
        if (!param_slot(s, f.divide_by))
          throw sim::ConfigError(f.at, fmt::format("divide_by {}: expected a count column of {} "
                                                   "or a param of every schedule of the family",
                                                   f.divide_by, f.data));
      d.param = f.divide_by;
    }
    return d;
  }

  double at(const MeasurementTable& table, std::size_t row, const traces::Schedule& schedule,
            const Pairs& params, const sim::SourceLocation& where) const {
    if (column) return table.number(row, *column);
    if (param.empty()) return constant;
    const std::int64_t count = traces::param_values(schedule, params)[*param_slot(schedule, param)];
    if (count <= 0)
      throw sim::ConfigError(where, fmt::format("divide_by {}: {} in this row's run, expected a "
                                                "positive count",
                                                param, count));
    return static_cast<double>(count);
  }
};

// One run of a case's schedule with `params`, measured as its group (or family) says.
double predict(const traces::Schedule& schedule, const Pairs& params, const Family& f,
               const Group& g, const traces::Machine& machine, const sim::SourceLocation& at) {
  const traces::RunResult result =
      traces::simulate(schedule, traces::param_values(schedule, params), machine).run;
  if (!result.blocked.empty())
    throw sim::ConfigError(at, fmt::format("the schedule {} deadlocked for this row", g.schedule));
  return measure(result, g.measure ? *g.measure : f.measure, f, g.schedule, at);
}

// The rows each skipping group of `f` matched (`skipped`, by group), listed as not predicted.
void add_skipped(const Family& f, const std::vector<std::size_t>& skipped, ValidationRun& out) {
  for (std::size_t g = 0; g < f.groups.size(); ++g) {
    if (f.groups[g].skip.empty()) continue;
    std::string where;
    for (const auto& [column, value] : f.groups[g].where)
      where += fmt::format("{}{}={}", where.empty() ? "" : " ", column, value);
    out.pending.push_back({fmt::format("{} ({})", f.data, where), f.category, "not predicted",
                           f.groups[g].skip, skipped[g]});
  }
}

// Every row of `table` predicted by `f`'s schedules (relative to `dir`) on `machine`, into `out`.
void predict_family(const Family& f, const MeasurementTable& table, const traces::Machine& machine,
                    const std::filesystem::path& dir, ValidationRun& out) {
  std::vector<traces::Schedule> schedules;
  for (const Group& g : f.groups)
    schedules.push_back(traces::load_schedule_file((dir / g.schedule).string()));
  // The measured time in microseconds, or in nanoseconds (scaled to microseconds).
  const bool in_ns = table.has_column(f.measured) &&
                     unit_of_column(f.measured, {table.file(), 0, 0}) == Unit::nanoseconds;
  const std::size_t measured =
      table.column(f.measured, in_ns ? Unit::nanoseconds : Unit::microseconds);
  const double measured_scale = in_ns ? 1e-3 : 1.0;
  const Divisor divisor = Divisor::of(f, table, schedules);
  std::vector<std::pair<std::string, std::size_t>> define;
  for (const auto& [param, column] : f.define)
    define.emplace_back(param, table.column_index(column));
  std::vector<std::vector<std::pair<std::size_t, std::string>>> where;
  for (const Group& g : f.groups) {
    where.emplace_back();
    for (const auto& [column, value] : g.where)
      where.back().emplace_back(table.column(column, Unit::none), value);
  }
  std::optional<std::size_t> captured;  // the capture's column, where the file has it
  if (f.capture && (!f.capture->optional || table.has_column(f.capture->column)))
    captured = table.column(f.capture->column, Unit::none);
  std::vector<std::size_t> skipped(f.groups.size());  // rows of each skipping group
  for (std::size_t row = 0; row < table.rows(); ++row) {
    const Group* match = nullptr;
    const traces::Schedule* schedule = nullptr;
    for (std::size_t g = 0; g < f.groups.size(); ++g) {
      bool ok = true;
      for (const auto& [c, v] : where[g]) ok = ok && table.text(row, c) == v;
      if (!ok) continue;
      if (match)
        throw sim::ConfigError({table.file(), table.line_of(row), 1},
                               fmt::format("row matched by two groups of the manifest's {} "
                                           "family ({}:{})",
                                           f.data, f.at.file, f.at.line));
      match = &f.groups[g];
      schedule = &schedules[g];
    }
    if (!match)
      throw sim::ConfigError({table.file(), table.line_of(row), 1},
                             fmt::format("no group of the manifest's {} family ({}:{}) matches "
                                         "this row: every measured row needs a schedule",
                                         f.data, f.at.file, f.at.line));
    if (!match->skip.empty()) {
      ++skipped[static_cast<std::size_t>(match - f.groups.data())];
      continue;
    }
    Pairs overrides = match->set;
    std::string label;
    for (const auto& [c, v] : match->where) label += (label.empty() ? "" : " ") + v;
    for (const auto& [param, column] : define) {
      const std::string value = trim_number(table.number(row, column));
      overrides.emplace_back(param, value);
      label += fmt::format("{}{}={}", label.empty() ? "" : " ", param, value);
    }
    const sim::SourceLocation at{table.file(), table.line_of(row), 1};
    if (captured) {
      const std::string& text = table.text(row, *captured);
      const std::optional<Pairs> found = f.capture->match(text);
      if (!found)
        throw sim::ConfigError(at, fmt::format("{} '{}' does not match the manifest's pattern "
                                               "'{}' ({}:{})",
                                               f.capture->column, text, f.capture->pattern,
                                               f.capture->at.file, f.capture->at.line));
      for (const auto& [param, value] : *found) {
        overrides.emplace_back(param, value);
        label += fmt::format("{}{}={}", label.empty() ? "" : " ", param, value);
      }
    }
    double predicted = predict(*schedule, overrides, f, *match, machine, at);
    if (!f.less.empty())
      predicted -= predict(*schedule, with(overrides, f.less), f, *match, machine, at);
    predicted /= divisor.at(table, row, *schedule, overrides, at);
    out.cases.push_back({f.data, f.category, table.line_of(row), label,
                         table.number(row, measured) * measured_scale, predicted});
  }
  add_skipped(f, skipped, out);
}

}  // namespace

ValidationRun run_validation(const std::string& manifest_path, const std::string& data_dir,
                             const std::string& hw_name, bool partial) {
  const std::filesystem::path dir = std::filesystem::path(manifest_path).parent_path();
  const sim::Node root = sim::Node::load_file(manifest_path);
  sim::MapReader r(root, "manifest");
  const std::string topology = (dir / r.required("topology").as_string()).string();
  std::vector<Family> families;
  ValidationRun out;
  for (const sim::Node& node : r.required("families").items()) {
    Family f = read_family(node);
    f.data = expand_data_name(f.data, data_dir);
    f.host = expand_data_name(f.host, data_dir);
    if (partial && !std::filesystem::exists(data_dir + "/" + f.data))
      out.pending.push_back({f.data, f.category, "not measured",
                             fmt::format("no such file in {} (--partial)", data_dir), 0});
    else
      families.push_back(std::move(f));
  }
  r.finish();

  const traces::Machine gpu_host = traces::Machine::load(topology, {}, hw_name);
  // The machine of each other host a family was measured on: the GPU under test, that host's
  // costs (a file relative to the manifest, or else a preset name or path).
  std::map<std::string, traces::Machine> hosts;
  for (const Family& f : families) {
    if (f.host.empty() || hosts.count(f.host)) continue;
    const std::filesystem::path file = dir / f.host;
    const std::string path = std::filesystem::is_regular_file(file) ? file.string() : f.host;
    try {
      hosts.emplace(f.host, traces::Machine(gpu_host.topology(),
                                            models::with_host(gpu_host.hardware(),
                                                              models::load_hardware(path))));
    } catch (const sim::ConfigError& e) {
      throw sim::ConfigError(f.host_at, fmt::format("host {}: {}", f.host, e.what()));
    }
  }

  for (const Family& f : families) {
    const traces::Machine& machine = f.host.empty() ? gpu_host : hosts.at(f.host);
    const MeasurementTable table = MeasurementTable::load_file(data_dir + "/" + f.data);
    if (!f.status.empty()) {
      out.pending.push_back({f.data, f.category, f.status, f.why, table.rows()});
      continue;
    }
    predict_family(f, table, machine, dir, out);
  }
  return out;
}

}  // namespace mgsim::validate
