// ChromeTraceWriter: buffers slices and counters in memory and writes one JSON document.
//
// Layout of the output (the Chrome trace event format, which Perfetto reads):
//   {"traceEvents":[
//     metadata "M" events: process_name / process_sort_index per process, thread_name /
//       thread_sort_index per track, in first-seen order (pid and tid count from 1);
//     then every slice ("X", ts + dur, "args" when it has any) and counter ("C") in the order
//     they were recorded],
//    "displayTimeUnit":"ns"}
// Counters in Chrome traces belong to a process, not a thread, so a counter on track
// (process, thread) is named "<thread> <name>" to keep one counter track per thread.
// Times are microseconds printed as "<us>.<6 digits>" from the integer picoseconds, so no
// precision is lost and the text depends only on the recorded integers. Counter values use
// fmt's shortest round-trip form; a non-finite value (not JSON) is written as 0.
#include "sim/trace.hpp"

#include <cmath>
#include <map>
#include <ostream>
#include <span>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "sim/check.hpp"
#include "sim/json.hpp"

namespace mgsim::sim {

namespace {

struct Track {
  std::uint32_t pid;
  std::uint32_t tid;
  std::string thread;
};

struct Record {
  bool is_counter;
  std::uint32_t track;
  std::uint32_t name;  // index into the interned names
  std::int64_t begin_ps;
  std::int64_t end_ps;                           // slices only
  double value;                                  // counters only
  std::uint32_t args_begin = 0, args_count = 0;  // slices: their args in Impl::args
};

struct Arg {
  std::uint32_t name;  // interned
  std::int64_t number;
  std::int64_t text;  // interned text, or -1 for a number
};

// A slice's args as its "args" object: numbers, or interned text.
void write_args(JsonWriter& w, std::span<const Arg> args, const std::vector<std::string>& names) {
  w.key("args").object();
  for (const Arg& a : args) {
    w.key(names[a.name]);
    if (a.text < 0) {
      w.value(a.number);
    } else {
      w.value(names[static_cast<std::size_t>(a.text)]);
    }
  }
  w.end();
}

// Picoseconds as microseconds with all six fractional digits.
void append_us(std::string& out, std::int64_t ps) {
  if (ps < 0) {
    out += '-';
    // Negate through unsigned arithmetic so INT64_MIN does not overflow.
    auto mag = static_cast<std::uint64_t>(0) - static_cast<std::uint64_t>(ps);
    fmt::format_to(std::back_inserter(out), "{}.{:06}", mag / 1'000'000, mag % 1'000'000);
    return;
  }
  fmt::format_to(std::back_inserter(out), "{}.{:06}", ps / 1'000'000, ps % 1'000'000);
}

}  // namespace

struct ChromeTraceWriter::Impl {
  std::vector<std::string> processes;
  std::vector<std::uint32_t> thread_counts;  // per process, for the next tid
  std::map<std::string, std::uint32_t, std::less<>> process_ids;
  std::vector<Track> tracks;
  std::map<std::pair<std::string, std::string>, std::uint32_t, std::less<>> track_ids;
  std::vector<std::string> names;
  std::unordered_map<std::string, std::uint32_t> name_ids;
  std::vector<Record> records;
  std::vector<Arg> args;

  std::uint32_t intern(std::string_view name) {
    auto [it, inserted] =
        name_ids.try_emplace(std::string(name), static_cast<std::uint32_t>(names.size()));
    if (inserted) names.emplace_back(name);
    return it->second;
  }
};

ChromeTraceWriter::ChromeTraceWriter() : impl_(std::make_unique<Impl>()) {}
ChromeTraceWriter::~ChromeTraceWriter() = default;

TrackId ChromeTraceWriter::track(std::string_view process, std::string_view thread) {
  Impl& m = *impl_;
  auto key = std::make_pair(std::string(process), std::string(thread));
  auto it = m.track_ids.find(key);
  if (it != m.track_ids.end()) return TrackId{it->second};
  auto [pit, new_process] =
      m.process_ids.try_emplace(key.first, static_cast<std::uint32_t>(m.processes.size() + 1));
  if (new_process) m.processes.push_back(key.first);
  if (new_process) m.thread_counts.push_back(0);
  std::uint32_t tid = ++m.thread_counts[pit->second - 1];
  auto id = static_cast<std::uint32_t>(m.tracks.size());
  m.tracks.push_back(Track{pit->second, tid, key.second});
  m.track_ids.emplace(std::move(key), id);
  return TrackId{id};
}

void ChromeTraceWriter::slice(TrackId track, std::string_view name, Time begin, Time end,
                              std::span<const TraceArg> args) {
  Impl& m = *impl_;
  MGSIM_CHECK(track.value < m.tracks.size(), "unknown trace track {}", track.value);
  MGSIM_CHECK(end >= begin, "slice '{}' ends before it begins", name);
  Record r{false, track.value, m.intern(name), begin.picoseconds(), end.picoseconds(), 0.0};
  r.args_begin = static_cast<std::uint32_t>(m.args.size());
  r.args_count = static_cast<std::uint32_t>(args.size());
  for (const TraceArg& a : args) {
    const std::int64_t text = a.text.empty() ? -1 : static_cast<std::int64_t>(m.intern(a.text));
    m.args.push_back({m.intern(a.name), a.number, text});
  }
  m.records.push_back(r);
}

void ChromeTraceWriter::counter(TrackId track, std::string_view name, Time at, double value) {
  MGSIM_CHECK(track.value < impl_->tracks.size(), "unknown trace track {}", track.value);
  impl_->records.push_back(
      Record{true, track.value, impl_->intern(name), at.picoseconds(), 0, value});
}

void ChromeTraceWriter::write(std::ostream& out) const {
  const Impl& m = *impl_;
  std::string buf;
  buf.reserve(1 << 16);
  bool first = true;
  auto begin_event = [&] {
    buf += first ? "\n" : ",\n";
    first = false;
  };
  auto flush_if_big = [&] {
    if (buf.size() > (1 << 20)) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  };

  buf += "{\"traceEvents\":[";
  // Each event is one compact JSON object on a line of its own.
  auto event = [&] {
    begin_event();
    return JsonWriter(buf, JsonWriter::Style::compact);
  };
  // A metadata ("M") event: `what` of process `pid` (and thread `tid` when >= 0), its one arg.
  auto metadata = [&](std::string_view what, std::int64_t pid, std::int64_t tid,
                      std::string_view arg) -> JsonWriter {
    JsonWriter w = event();
    w.object().key("name").value(what).key("ph").value("M").key("pid").value(pid);
    if (tid >= 0) w.key("tid").value(tid);
    w.key("args").object().key(arg);
    return w;
  };
  for (std::size_t p = 0; p < m.processes.size(); ++p) {
    const auto pid = static_cast<std::int64_t>(p + 1);
    metadata("process_name", pid, -1, "name").value(m.processes[p]).end().end();
    metadata("process_sort_index", pid, -1, "sort_index").value(pid).end().end();
  }
  for (const Track& t : m.tracks) {
    metadata("thread_name", t.pid, t.tid, "name").value(t.thread).end().end();
    metadata("thread_sort_index", t.pid, t.tid, "sort_index")
        .value(std::int64_t{t.tid})
        .end()
        .end();
  }
  std::string name, number;  // scratch, reused
  for (const Record& r : m.records) {
    const Track& t = m.tracks[r.track];
    name.clear();
    if (r.is_counter) name.append(t.thread).append(" ");
    name += m.names[r.name];
    number.clear();
    append_us(number, r.begin_ps);
    JsonWriter w = event();
    w.object()
        .key("name")
        .value(name)
        .key("ph")
        .value(r.is_counter ? "C" : "X")
        .key("pid")
        .value(std::int64_t{t.pid})
        .key("tid")
        .value(std::int64_t{t.tid})
        .key("ts")
        .raw(number);
    if (r.is_counter) {
      w.key("args").object().key("value");
      if (std::isfinite(r.value)) {
        w.value_shortest(r.value);
      } else {
        w.value(0);
      }
      w.end();
    } else {
      number.clear();
      append_us(number, r.end_ps - r.begin_ps);
      w.key("dur").raw(number);
      if (r.args_count > 0) write_args(w, {m.args.data() + r.args_begin, r.args_count}, m.names);
    }
    w.end();
    flush_if_big();
  }
  buf += "\n],\"displayTimeUnit\":\"ns\"}\n";
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

TrackId TraceTee::track(std::string_view process, std::string_view thread) {
  const std::pair ids{a_.track(process, thread).value, b_.track(process, thread).value};
  const auto [it, added] = index_.try_emplace(ids, static_cast<std::uint32_t>(tracks_.size()));
  if (added) tracks_.emplace_back(TrackId{ids.first}, TrackId{ids.second});
  return TrackId{it->second};
}

void TraceTee::slice(TrackId track, std::string_view name, Time begin, Time end,
                     std::span<const TraceArg> args) {
  a_.slice(tracks_[track.value].first, name, begin, end, args);
  b_.slice(tracks_[track.value].second, name, begin, end, args);
}

void TraceTee::counter(TrackId track, std::string_view name, Time at, double value) {
  a_.counter(tracks_[track.value].first, name, at, value);
  b_.counter(tracks_[track.value].second, name, at, value);
}

}  // namespace mgsim::sim
