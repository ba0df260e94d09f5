// Self-contained HTML reports (inline CSS and SVG, no script, nothing fetched): what `--report`
// writes.
//
// A sweep's report: for each numeric result column, one plot per swept axis with two or more
// values: the axis's values along x (in the sweep's order, equally spaced), the result along y
// (logarithmic when every value is positive and they span more than 100x), one line per setting
// of the other axes (and machine), at most kMaxSeries lines per plot (the legend says how many
// were left out); then every row as a table. Points without a number (a deadlock, an error) are
// left out of the plots and kept in the table.
//
// A run's report: its summary (time, bound, fraction, bottleneck), the text `mgsim run` prints
// (times per rank and stream, the roofline's table, the nccl-tests table), a timeline and a
// utilisation heatmap drawn from what the run traced (RunTraceRecorder), and the roofline's
// units as bars against the run's time. Timeline: one row per host thread, stream and link or
// unit track, and per GPU one row per kernel role gathering its SMs (busy where any of them is),
// drawn at the page's resolution (kTimelineColumns columns), so its size does not grow with the
// slices. Heatmap: per GPU and counter (an SM's pipe counters averaged over the GPU's SMs), the
// time-weighted mean rate per column against that row's peak, the kHeatmapRows busiest rows.
// Not yet: the critical path.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/trace.hpp"
#include "traces/simulation.hpp"

namespace mgsim::traces {

// Keeps what a run traces, for run_report_html().
class RunTraceRecorder final : public sim::TraceSink {
 public:
  sim::TrackId track(std::string_view process, std::string_view thread) override;
  using sim::TraceSink::slice;
  void slice(sim::TrackId track, std::string_view name, sim::Time begin, sim::Time end,
             std::span<const sim::TraceArg> args) override;
  void counter(sim::TrackId track, std::string_view name, sim::Time at, double value) override;

  struct Track {
    std::string process, thread;
    std::vector<std::pair<sim::Time, sim::Time>> busy;                          // slices
    std::map<std::string, std::vector<std::pair<sim::Time, double>>> counters;  // steps
  };
  const std::vector<Track>& tracks() const { return tracks_; }

 private:
  std::vector<Track> tracks_;
  std::map<std::pair<std::string, std::string>, std::uint32_t> ids_;
};

inline constexpr int kTimelineColumns = 1000;
inline constexpr int kHeatmapColumns = 200;
inline constexpr int kHeatmapRows = 60;

// `text`: what `mgsim run` printed for the run.
std::string run_report_html(const std::string& title, const Result& run,
                            const RunTraceRecorder& trace, const std::string& text);

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
