#include "traces/html_report.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include <fmt/format.h>

namespace mgsim::traces {

sim::TrackId RunTraceRecorder::track(std::string_view process, std::string_view thread) {
  const auto [it, added] = ids_.try_emplace({std::string(process), std::string(thread)},
                                            static_cast<std::uint32_t>(tracks_.size()));
  if (added) tracks_.push_back({std::string(process), std::string(thread), {}, {}});
  return sim::TrackId{it->second};
}

void RunTraceRecorder::slice(sim::TrackId track, std::string_view /*name*/, sim::Time begin,
                             sim::Time end, std::span<const sim::TraceArg> /*args*/) {
  tracks_[track.value].busy.emplace_back(begin, end);
}

void RunTraceRecorder::counter(sim::TrackId track, std::string_view name, sim::Time at,
                               double value) {
  tracks_[track.value].counters[std::string(name)].emplace_back(at, value);
}

namespace {

constexpr const char* kStyle = R"(
body { font-family: sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; }
.plots { display: flex; flex-wrap: wrap; gap: 1.5em; }
svg.plot { background: #fff; border: 1px solid #ccc; }
svg text { font-size: 11px; fill: #333; }
svg.plot .grid { stroke: #eee; } svg.plot .axis { stroke: #555; }
table.rows { border-collapse: collapse; font-size: 12px; margin-top: 1em; }
table.rows td, table.rows th { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
table.rows th { background: #f3f3f3; }
)";

// Ten colours that stay apart (Tableau 10).
constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

std::optional<double> number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::size_t column(const SweepReportData& d, const std::string& name) {
  return static_cast<std::size_t>(std::ranges::find(d.columns, name) - d.columns.begin());
}

// One plot: `result` against axis `x`, a line per setting of the other axes.
std::string plot(const SweepReportData& d, const std::string& x, const std::string& result) {
  const std::size_t xc = column(d, x), rc = column(d, result);
  std::vector<std::string> xs;                                  // distinct x values, in row order
  std::map<std::string, std::map<std::size_t, double>> series;  // label -> x index -> y
  std::vector<std::string> order;                               // labels, in row order
  for (const auto& row : d.rows) {
    const auto xi = static_cast<std::size_t>(std::ranges::find(xs, row[xc]) - xs.begin());
    if (xi == xs.size()) xs.push_back(row[xc]);
    std::string label;
    for (const std::string& a : d.axes)
      if (a != x) label += (label.empty() ? "" : ", ") + a + "=" + row[column(d, a)];
    auto [it, added] = series.try_emplace(label);
    if (added) order.push_back(label);
    if (const auto y = number(row[rc])) it->second[xi] = *y;
  }
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& [label, pts] : series)
    for (const auto& [xi, y] : pts) lo = std::min(lo, y), hi = std::max(hi, y);
  constexpr double W = 560, H = 300, L = 70, R = 50, T = 30, B = 50;
  std::string svg = fmt::format(
      R"(<svg class="plot" data-x="{}" data-y="{}" width="{}" height="{}" viewBox="0 0 {} {}" )"
      R"(xmlns="http://www.w3.org/2000/svg"><text x="{}" y="18">{} by {}</text>)",
      html_escape(x), html_escape(result), W,
      H + 16.0 * std::min<double>(order.size(), kMaxSeries + 1), W,
      H + 16.0 * std::min<double>(order.size(), kMaxSeries + 1), L, html_escape(result),
      html_escape(x));
  if (!(lo <= hi)) return svg + R"(<text x="70" y="150">no numbers to plot</text></svg>)";
  const bool log = lo > 0 && hi / lo > 100;
  const auto ty = [&](double y) {
    const double f = hi == lo ? 0.5
                     : log    ? (std::log10(y) - std::log10(lo)) / (std::log10(hi) - std::log10(lo))
                              : (y - lo) / (hi - lo);
    return T + (1 - f) * (H - T - B);
  };
  const auto tx = [&](std::size_t i) {
    return xs.size() == 1
               ? L + (W - L - R) / 2
               : L + static_cast<double>(i) * (W - L - R) / static_cast<double>(xs.size() - 1);
  };
  for (int k = 0; k <= 4; ++k) {  // y ticks
    const double f = k / 4.0;
    const double y = log ? std::pow(10, std::log10(lo) + f * (std::log10(hi) - std::log10(lo)))
                         : lo + f * (hi - lo);
    svg += fmt::format(R"(<line class="grid" x1="{}" x2="{}" y1="{:.1f}" y2="{:.1f}"/>)"
                       R"(<text x="{}" y="{:.1f}" text-anchor="end">{:.4g}</text>)",
                       L, W - R, ty(y), ty(y), L - 6, ty(y) + 4, y);
  }
  for (std::size_t i = 0; i < xs.size(); ++i)  // x ticks
    svg += fmt::format(R"(<text x="{:.1f}" y="{}" text-anchor="middle">{}</text>)", tx(i),
                       H - B + 16, html_escape(xs[i]));
  svg += fmt::format(R"(<line class="axis" x1="{}" x2="{}" y1="{}" y2="{}"/>)", L, W - R, H - B,
                     H - B);
  svg += fmt::format(R"(<line class="axis" x1="{}" x2="{}" y1="{}" y2="{}"/>)", L, L, T, H - B);
  for (std::size_t s = 0; s < order.size() && s < static_cast<std::size_t>(kMaxSeries); ++s) {
    const char* colour = kPalette[s % std::size(kPalette)];
    std::string points;
    for (const auto& [xi, y] : series[order[s]])
      points += fmt::format("{:.1f},{:.1f} ", tx(xi), ty(y));
    svg += fmt::format(R"(<polyline class="series" fill="none" stroke="{}" stroke-width="2" )"
                       R"(points="{}"/>)",
                       colour, points);
    for (const auto& [xi, y] : series[order[s]])
      svg += fmt::format(
          R"(<circle cx="{:.1f}" cy="{:.1f}" r="3" fill="{}"><title>{}</title></circle>)", tx(xi),
          ty(y), colour, fmt::format("{:.6g}", y));
    const double ly = H + 16.0 * static_cast<double>(s);
    svg += fmt::format(R"(<rect x="{}" y="{:.0f}" width="10" height="10" fill="{}"/>)"
                       R"(<text x="{}" y="{:.0f}">{}</text>)",
                       L, ly - 9, colour, L + 16, ly,
                       html_escape(order[s].empty() ? result : order[s]));
  }
  if (order.size() > static_cast<std::size_t>(kMaxSeries))
    svg += fmt::format(R"(<text x="{}" y="{:.0f}">and {} more settings of the other axes</text>)",
                       L, H + 16.0 * kMaxSeries, order.size() - kMaxSeries);
  return svg + "</svg>";
}

}  // namespace

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string sweep_report_html(const SweepReportData& d) {
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>mgsim sweep: "
      "{}</title><style>{}</style></head><body>\n<h1>mgsim sweep: {}</h1>\n<p>{} points; axes: "
      "{}.</p>\n",
      html_escape(d.title), kStyle, html_escape(d.title), d.rows.size(),
      html_escape(fmt::format("{}", fmt::join(d.axes, ", "))));
  for (const std::string& r : d.results) {
    html += fmt::format("<h2>{}</h2>\n<div class=\"plots\">", html_escape(r));
    for (const std::string& a : d.axes) {
      const std::size_t ac = column(d, a);
      std::vector<std::string> values;
      for (const auto& row : d.rows)
        if (std::ranges::find(values, row[ac]) == values.end()) values.push_back(row[ac]);
      if (values.size() >= 2) html += plot(d, a, r);
    }
    html += "</div>\n";
  }
  html += "<h2>Every point</h2>\n<table class=\"rows\"><tr>";
  for (const std::string& c : d.columns) html += "<th>" + html_escape(c) + "</th>";
  html += "</tr>\n";
  for (const auto& row : d.rows) {
    html += "<tr>";
    for (const std::string& f : row) html += "<td>" + html_escape(f) + "</td>";
    html += "</tr>\n";
  }
  return html + "</table>\n</body></html>\n";
}

namespace {

// "sm042 gemm.math" -> "gemm.math", "sm7.tensor" -> "sm*.tensor": an SM's tracks gathered per GPU.
std::string sm_group(const std::string& thread, bool& per_sm) {
  static const std::regex role(R"(^sm[0-9]+ (.*)$)"), unit(R"(^sm[0-9]+\.(.*)$)");
  std::smatch m;
  per_sm = true;
  if (std::regex_match(thread, m, role)) return m[1].str();
  if (std::regex_match(thread, m, unit)) return "sm*." + m[1].str();
  per_sm = false;
  return thread;
}

std::string timeline(const RunTraceRecorder& trace, sim::Time end) {
  struct Row {
    std::string label;
    std::set<std::string> members;
    std::vector<char> busy = std::vector<char>(kTimelineColumns, 0);
  };
  std::vector<Row> rows;
  std::map<std::string, std::size_t> index;
  const double span =
      static_cast<double>(std::max<std::int64_t>(1, end.since_start().picoseconds()));
  for (const auto& t : trace.tracks()) {
    if (t.busy.empty()) continue;
    bool per_sm = false;
    const std::string key = t.process + " " + sm_group(t.thread, per_sm);
    const auto [it, added] = index.try_emplace(key, rows.size());
    if (added) rows.emplace_back().label = key;
    Row& row = rows[it->second];
    row.members.insert(t.thread);
    for (const auto& [b, e] : t.busy) {
      const auto col = [&](sim::Time x) {
        return std::clamp<int>(static_cast<int>(static_cast<double>(x.since_start().picoseconds()) /
                                                span * kTimelineColumns),
                               0, kTimelineColumns - 1);
      };
      for (int c = col(b); c <= col(e); ++c) row.busy[static_cast<std::size_t>(c)] = 1;
    }
  }
  constexpr double L = 280, RowH = 14, W = L + kTimelineColumns + 10;
  const double H = 30 + RowH * static_cast<double>(rows.size());
  std::string svg = fmt::format(
      R"(<svg class="timeline" width="{}" height="{}" xmlns="http://www.w3.org/2000/svg">)"
      R"(<text x="{}" y="14">0</text><text x="{}" y="14" text-anchor="end">{:.3f} us</text>)",
      W, H, L, L + kTimelineColumns, end.since_start().microseconds());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const double y = 22 + RowH * static_cast<double>(r);
    const Row& row = rows[r];
    const std::string label = row.members.size() > 1
                                  ? fmt::format("{} ({} tracks)", row.label, row.members.size())
                                  : row.label;
    svg += fmt::format(R"(<text x="{}" y="{:.0f}" text-anchor="end">{}</text>)", L - 6,
                       y + RowH - 4, html_escape(label));
    for (int c = 0; c < kTimelineColumns;) {
      if (!row.busy[static_cast<std::size_t>(c)]) {
        ++c;
        continue;
      }
      int e = c;
      while (e < kTimelineColumns && row.busy[static_cast<std::size_t>(e)]) ++e;
      svg +=
          fmt::format(R"(<rect class="busy" x="{}" y="{:.0f}" width="{}" height="{}" fill="{}"/>)",
                      L + c, y + 2, e - c, RowH - 3, kPalette[r % std::size(kPalette)]);
      c = e;
    }
  }
  return svg + "</svg>";
}

std::string heatmap(const RunTraceRecorder& trace, sim::Time end) {
  struct Row {
    std::string label;
    int members = 0;
    std::vector<double> bins = std::vector<double>(kHeatmapColumns, 0.0);
    double total = 0;
  };
  std::vector<Row> rows;
  std::map<std::string, std::size_t> index;
  const double span =
      static_cast<double>(std::max<std::int64_t>(1, end.since_start().picoseconds()));
  const double bin = span / kHeatmapColumns;
  for (const auto& t : trace.tracks()) {
    for (const auto& [name, steps] : t.counters) {
      bool per_sm = false;
      const std::string key = t.process + " " + sm_group(t.thread, per_sm) + " " + name;
      const auto [it, added] = index.try_emplace(key, rows.size());
      if (added) rows.emplace_back().label = key;
      Row& row = rows[it->second];
      ++row.members;
      // A step function: steps[i].second from steps[i].first to the next step (or the end).
      for (std::size_t i = 0; i < steps.size(); ++i) {
        const double a = static_cast<double>(steps[i].first.since_start().picoseconds());
        const double b = i + 1 < steps.size()
                             ? static_cast<double>(steps[i + 1].first.since_start().picoseconds())
                             : span;
        const double v = steps[i].second;
        if (v == 0 || b <= a) continue;
        for (int k = std::max(0, static_cast<int>(a / bin)); k < kHeatmapColumns && k * bin < b;
             ++k) {
          const double lo = std::max(a, k * bin), hi = std::min(b, (k + 1) * bin);
          if (hi > lo) row.bins[static_cast<std::size_t>(k)] += v * (hi - lo);
        }
        row.total += v * (b - a);
      }
    }
  }
  std::erase_if(rows, [](const Row& r) { return r.total <= 0; });
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.total > b.total; });
  const std::size_t shown = std::min<std::size_t>(rows.size(), kHeatmapRows);
  constexpr double L = 300, RowH = 12, CellW = 4;
  const double W = L + CellW * kHeatmapColumns + 10, H = 30 + RowH * static_cast<double>(shown);
  std::string svg = fmt::format(
      R"(<svg class="heatmap" width="{}" height="{}" xmlns="http://www.w3.org/2000/svg">)"
      R"(<text x="{}" y="14">0</text><text x="{}" y="14" text-anchor="end">{:.3f} us</text>)",
      W, H, L, L + CellW * kHeatmapColumns, end.since_start().microseconds());
  for (std::size_t r = 0; r < shown; ++r) {
    const Row& row = rows[r];
    const double peak = *std::ranges::max_element(row.bins);
    const double y = 20 + RowH * static_cast<double>(r);
    svg += fmt::format(
        R"(<text x="{}" y="{:.0f}" text-anchor="end">{}</text>)", L - 6, y + RowH - 2,
        html_escape(row.members > 1 ? fmt::format("{} (mean of {})", row.label, row.members)
                                    : row.label));
    for (int k = 0; k < kHeatmapColumns; ++k) {
      const double f = peak > 0 ? row.bins[static_cast<std::size_t>(k)] / peak : 0;
      if (f <= 0) continue;
      svg += fmt::format(R"(<rect class="cell" x="{}" y="{:.0f}" width="{}" height="{}" )"
                         R"x(fill="rgb(200,40,40)" fill-opacity="{:.2f}"/>)x",
                         L + CellW * k, y, CellW, RowH - 1, f);
    }
  }
  if (rows.size() > shown)
    svg += fmt::format(R"(<text x="{}" y="{:.0f}">and {} rows less busy</text>)", L, H - 2,
                       rows.size() - shown);
  return svg + "</svg>";
}

// The critical path: where its time went, then its steps (the first 200).
std::string critical_path_html(const RunResult& run) {
  const std::vector<PathStep>& path = run.critical_path;
  if (path.empty()) return "<p>Not recorded (the run deadlocked).</p>";
  const double total = std::max(1.0, static_cast<double>(run.end.picoseconds()));
  std::string html =
      "<p>The chain of ops that set the end time (traces/critical_path.hpp): each held it from "
      "when the step before it finished to its own end.</p>\n<table class=\"rows\"><tr><th>held "
      "(us)</th><th>share</th><th>steps</th><th>where</th><th>what</th></tr>";
  for (const PathShare& s : path_shares(path))
    html += fmt::format(
        "<tr><td>{:.3f}</td><td>{:.1f} %</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        s.held.microseconds(), 100.0 * static_cast<double>(s.held.picoseconds()) / total, s.steps,
        html_escape(s.place), html_escape(s.what));
  html +=
      "</table>\n<h3>Steps</h3>\n<table class=\"rows path\"><tr><th>from (us)</th><th>to "
      "(us)</th><th>where</th><th>what</th></tr>";
  constexpr std::size_t kShown = 200;
  for (std::size_t i = 0; i < path.size() && i < kShown; ++i)
    html += fmt::format("<tr><td>{:.3f}</td><td>{:.3f}</td><td>{}</td><td>{}</td></tr>",
                        path[i].begin.since_start().microseconds(),
                        path[i].end.since_start().microseconds(), html_escape(step_place(path[i])),
                        html_escape(step_label(path[i])));
  html += "</table>";
  if (path.size() > kShown)
    html += fmt::format("<p>{} more steps (mgsim run --json lists them all).</p>",
                        path.size() - kShown);
  return html;
}

std::string roofline_bars(const Result& run) {
  const Roofline& r = run.roofline;
  const std::size_t shown = std::min<std::size_t>(r.terms.size(), 12);
  const double scale = static_cast<double>(
      std::max({r.elapsed.picoseconds(), r.bound.picoseconds(), std::int64_t{1}}));
  constexpr double L = 300, BarW = 600, RowH = 18;
  const double H = 40 + RowH * static_cast<double>(shown);
  std::string svg = fmt::format(
      R"(<svg class="roofline" width="{}" height="{}" xmlns="http://www.w3.org/2000/svg">)",
      L + BarW + 200, H);
  const double run_x = L + BarW * static_cast<double>(r.elapsed.picoseconds()) / scale;
  for (std::size_t i = 0; i < shown; ++i) {
    const UnitTerm& t = r.terms[i];
    const double y = 10 + RowH * static_cast<double>(i);
    const double w = BarW * static_cast<double>(t.time.picoseconds()) / scale;
    svg += fmt::format(
        R"(<text x="{}" y="{:.0f}" text-anchor="end">{}</text>)"
        R"(<rect class="term" x="{}" y="{:.0f}" width="{:.1f}" height="{}" fill="{}"/>)"
        R"(<text x="{:.1f}" y="{:.0f}">{:.3f} us, {:.1f} % busy</text>)",
        L - 6, y + 12, html_escape(t.group), L, y + 2, w, RowH - 4, i == 0 ? "#e15759" : "#4e79a7",
        L + w + 6, y + 12, t.time.microseconds(), 100 * t.utilisation);
  }
  svg += fmt::format(
      R"(<line x1="{0:.1f}" x2="{0:.1f}" y1="4" y2="{1:.0f}" stroke="#222" )"
      R"(stroke-dasharray="4 3"/><text x="{0:.1f}" y="{2:.0f}">the run: {3:.3f} us</text>)",
      run_x, H - 20, H - 6, r.elapsed.microseconds());
  return svg + "</svg>";
}

}  // namespace

std::string run_report_html(const std::string& title, const Result& run,
                            const RunTraceRecorder& trace, const std::string& text) {
  const Roofline& r = run.roofline;
  const UnitTerm* b = r.bottleneck();
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>mgsim run: "
      "{0}</title><style>{1}</style></head><body>\n<h1>mgsim run: {0}</h1>\n<p class=\"summary\">"
      "{2:.3f} us; the roofline's bound {3:.3f} us ({4}), {5:.1f} % of it achieved.</p>\n"
      "<h2>Timeline</h2>\n<p>Busy where any slice of the row's tracks runs (an SM role: any of its "
      "SMs).</p>\n{6}\n<h2>Utilisation over time</h2>\n<p>Each row's rate against its own peak "
      "(darker: busier).</p>\n{7}\n<h2>Roofline</h2>\n<p>The time each unit group needs at full "
      "rate for what it carried, against the run's time.</p>\n{8}\n<h2>What mgsim run "
      "printed</h2>\n<pre>{9}</pre>\n<h2>Critical path</h2>\n{10}\n</body></html>\n",
      html_escape(title), kStyle, run.run.end.since_start().microseconds(), r.bound.microseconds(),
      html_escape(b ? b->group : "nothing carried"), 100 * r.fraction(),
      timeline(trace, run.run.end), heatmap(trace, run.run.end), roofline_bars(run),
      html_escape(text), critical_path_html(run.run));
}

}  // namespace mgsim::traces
