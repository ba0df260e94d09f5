// A what-if study (`mgsim sweep SWEEP.yaml`): one schedule run at every point of a grid over its
// params, hardware parameters, topology params and machines.
//
// Format (docs/SWEEP.md has the whole of it):
//   schedule: ../all_reduce_ring.yaml          # relative to this file
//   machines:                                  # one or more; a point runs on each
//     - {name: hgx, topology: hgx-h200-8, hardware: h200.calibrated}
//     - {name: ib, topology: hgx-h200-ib, topology_params: {nodes: 2}}   # hardware: the GPU's
//   grid:                                      # every combination, the first axis outermost
//     SIZE: [1MiB, 64MiB]                      # a schedule param (its values as -D takes them),
//     CHUNK: {from: 1MiB, to: 1GiB, factor: 4} # or a geometric range (factor >= 2)
//     hw.nvlink.link_bandwidth: [13GB/s, 26GB/s]   # a hardware parameter, by its dotted name
//     topo.nodes: [1, 2, 4]                    # a topology param
//   zip:                                       # optional: axes advanced together (equal lengths),
//     - {SIZE: [1MiB, 1GiB], CHUNK: [256KiB, 4MiB]}   # each group one axis after the grid's
// Points: machines outermost, then the grid's axes in file order, then the zip groups; a point's
// index is its position in that order. Every name and value is checked when the sweep is loaded:
// a param the schedule does not declare, a hardware parameter that does not exist or a value it
// does not take (checked on each machine's hardware alone), a topology param a machine's topology
// does not declare or a value that is not an integer are ConfigErrors at the axis or the value.
// What only a combination breaks (a hardware relation, a topology too large) is the point's
// error when it runs.
// Ignores: axes over the schedule's own `sweep:` (the sweep replaces it: its param is one more
// axis if wanted).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/hardware_loader.hpp"
#include "sim/config.hpp"
#include "traces/schedule.hpp"
#include "traces/simulation.hpp"

namespace mgsim::traces {

struct SweepMachine {
  std::string name;
  std::string topology;  // preset or path (resolved against the sweep file)
  std::string hardware;  // preset or path; empty: the topology's GPU
  std::map<std::string, std::int64_t> topology_params;
  sim::SourceLocation where;
};

// One axis: its column name as written ("SIZE", "hw.nvlink.link_bandwidth", "topo.nodes") and
// its values as written.
struct SweepAxis {
  enum class Kind { param, hardware, topology };
  Kind kind = Kind::param;
  std::string column;
  std::string name;  // without its prefix: "SIZE", "nvlink.link_bandwidth", "nodes"
  std::vector<std::string> values;
  std::vector<sim::SourceLocation> value_where;  // each value's place in the file
  int group = -1;                                // the zip group it belongs to, -1 for a grid axis
  sim::SourceLocation where;
};

struct SweepPoint {
  std::int64_t index = 0;
  int machine = 0;
  std::vector<std::string> values;  // per axis, in SweepSpec::axes order
};

struct SweepSpec {
  // What varies together: one grid axis, or the axes of one zip group.
  struct Dimension {
    std::vector<std::size_t> axes;  // indices into `axes`
    std::size_t length = 0;
  };
  std::string file;
  Schedule schedule;
  std::vector<SweepMachine> machines;
  std::vector<SweepAxis> axes;
  std::vector<Dimension> dimensions;  // outermost first
  std::int64_t points = 0;            // machines x the dimensions' lengths

  // The i-th point (0 <= i < points).
  SweepPoint point(std::int64_t i) const;
  // The settings of a point: schedule params, hardware overrides, topology params over its
  // machine's.
  Overrides params_of(const SweepPoint& p) const;
  std::vector<models::HardwareOverride> hardware_of(const SweepPoint& p) const;
  std::map<std::string, std::int64_t> topology_of(const SweepPoint& p) const;
};

// The points a sweep may have: more is a ConfigError (split the sweep).
inline constexpr std::int64_t kMaxSweepPoints = 10'000'000;

// Loads and checks a sweep file (see above). Throws sim::ConfigError.
SweepSpec load_sweep(const std::string& path);
SweepSpec load_sweep_text(const std::string& text, const std::string& name);

// The machine of a point, loaded with its topology params and hardware overrides; a ConfigError
// there (a value out of range) names the point's axis values.
Machine load_sweep_machine(const SweepSpec& spec, const SweepPoint& p);

}  // namespace mgsim::traces
