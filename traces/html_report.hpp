// Self-contained HTML reports (inline CSS and SVG, no script, nothing fetched): what `--report`
// writes.
//
// A sweep's report: for each numeric result column, one plot per swept axis with two or more
// values: the axis's values along x (in the sweep's order, equally spaced), the result along y
// (logarithmic when every value is positive and they span more than 100x), one line per setting
// of the other axes (and machine), at most kMaxSeries lines per plot (the legend says how many
// were left out); then every row as a table. Points without a number (a deadlock, an error) are
// left out of the plots and kept in the table.
#pragma once

#include <string>
#include <vector>

namespace mgsim::traces {

struct SweepReportData {
  std::string title;                           // the sweep file
  std::vector<std::string> columns;            // the table's header
  std::vector<std::vector<std::string>> rows;  // one per point, by point index
  std::vector<std::string> axes;               // columns that vary (machine included if several)
  std::vector<std::string> results;            // numeric result columns to plot
};

inline constexpr int kMaxSeries = 12;

std::string sweep_report_html(const SweepReportData& data);

// `s` escaped for HTML text and attribute values.
std::string html_escape(const std::string& s);

}  // namespace mgsim::traces
