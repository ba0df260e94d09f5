#include "traces/html_report.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>

namespace mgsim::traces {

namespace {

constexpr const char* kStyle = R"(
body { font-family: sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; }
.plots { display: flex; flex-wrap: wrap; gap: 1.5em; }
svg.plot { background: #fff; border: 1px solid #ccc; }
svg.plot text { font-size: 11px; fill: #333; }
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

}  // namespace mgsim::traces
