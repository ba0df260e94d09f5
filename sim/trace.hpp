// Where timelines go. The engine and the models call a TraceSink only when one is attached
// (Engine::trace() != nullptr), so tracing off costs a pointer test.
//
// Tracks are named by a process (a GPU, a switch, a host rank) and a thread (a stream, an SM
// role, a link direction). Slices are complete [begin, end) intervals, with optional args (what
// a viewer shows when a slice is selected: bytes, peer, op kind); counters are step values.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/units.hpp"

namespace mgsim::sim {

struct TrackId {
  std::uint32_t value = 0;
};

// One arg of a slice: a name and an integer, or a text when `text` is non-empty. The views need
// to live only for the slice() call.
struct TraceArg {
  std::string_view name;
  std::int64_t number = 0;
  std::string_view text;
};

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  // Returns the same id for the same (process, thread) pair.
  virtual TrackId track(std::string_view process, std::string_view thread) = 0;
  virtual void slice(TrackId track, std::string_view name, Time begin, Time end,
                     std::span<const TraceArg> args) = 0;
  void slice(TrackId track, std::string_view name, Time begin, Time end) {
    slice(track, name, begin, end, {});
  }
  virtual void counter(TrackId track, std::string_view name, Time at, double value) = 0;
};

// Writes the Chrome trace event format (JSON), which Perfetto and chrome://tracing open.
// Timestamps are microseconds with picosecond digits kept (ts is a decimal, not a rounded
// integer). Output is deterministic: same calls, same bytes.
// Chrome counters belong to a process, so a counter on track (process, thread) is written
// under the name "<thread> <name>" (one counter track per thread and name). A slice's args are
// written in the order given, as its "args" object (none: no "args").
class ChromeTraceWriter final : public TraceSink {
 public:
  ChromeTraceWriter();
  ~ChromeTraceWriter() override;
  TrackId track(std::string_view process, std::string_view thread) override;
  using TraceSink::slice;
  void slice(TrackId track, std::string_view name, Time begin, Time end,
             std::span<const TraceArg> args) override;
  void counter(TrackId track, std::string_view name, Time at, double value) override;
  // Writes the whole trace as one JSON document.
  void write(std::ostream& out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Passes every call to two sinks (a trace file and a report), each with its own track ids.
class TraceTee final : public TraceSink {
 public:
  // Both must outlive the tee.
  TraceTee(TraceSink& a, TraceSink& b) : a_(a), b_(b) {}
  TrackId track(std::string_view process, std::string_view thread) override;
  using TraceSink::slice;
  void slice(TrackId track, std::string_view name, Time begin, Time end,
             std::span<const TraceArg> args) override;
  void counter(TrackId track, std::string_view name, Time at, double value) override;

 private:
  TraceSink& a_;
  TraceSink& b_;
  std::vector<std::pair<TrackId, TrackId>> tracks_;  // this tee's id -> theirs
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> index_;
};

}  // namespace mgsim::sim
