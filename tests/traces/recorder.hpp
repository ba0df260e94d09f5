// A trace sink for tests: what a run put on its timeline, as text.
#pragma once

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/trace.hpp"

namespace mgsim::test {

// Records slices as "process/thread name begin end" lines, their args as "name=value ..."
// lines (one per slice, in the same order), and counters' names.
class Recorder final : public sim::TraceSink {
 public:
  sim::TrackId track(std::string_view process, std::string_view thread) override {
    names_.push_back(std::string(process) + "/" + std::string(thread));
    return {static_cast<std::uint32_t>(names_.size() - 1)};
  }
  using sim::TraceSink::slice;
  void slice(sim::TrackId t, std::string_view name, sim::Time b, sim::Time e,
             std::span<const sim::TraceArg> slice_args) override {
    lines.push_back(names_[t.value] + " " + std::string(name) + " " +
                    std::to_string(b.picoseconds()) + " " + std::to_string(e.picoseconds()));
    std::string a;
    for (const sim::TraceArg& arg : slice_args) {
      if (!a.empty()) a += ' ';
      a += arg.name;
      a += '=';
      a += arg.text.empty() ? std::to_string(arg.number) : std::string(arg.text);
    }
    args.push_back(a);
  }
  void counter(sim::TrackId t, std::string_view name, sim::Time, double) override {
    counters.insert(names_[t.value] + " " + std::string(name));
  }
  std::vector<std::string> lines;
  std::vector<std::string> args;
  std::set<std::string> counters;

 private:
  std::vector<std::string> names_;
};

}  // namespace mgsim::test
