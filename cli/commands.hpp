// Each subcommand of the mgsim CLI lives in its own file and registers itself on the app.
// A command's callback throws sim::ConfigError for bad input; main() reports it (exit 2).
#pragma once

#include <cstdint>
#include <exception>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "traces/simulation.hpp"

namespace mgsim::cli {

// Thrown by a command whose run finished but whose check failed (a deadlock, a validation error
// past its recorded bound), after it has printed its report; main() turns it into exit code 1.
class CheckFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown when an output file the user asked for could not be written (a full disk), after the
// results went to stdout; main() turns it into exit code 4.
class OutputFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Prints why a command failed, as main() does, and returns its exit code: 1 CheckFailed, 2 bad
// input (ConfigError), 3 internal error, 4 OutputFailed, 5 LimitError. Defined in main.cpp.
int report_failure(const std::exception_ptr& failure);

// "-D name=value" arguments as (name, value) pairs; ConfigError for a malformed one.
// Defined in run_command.cpp, shared with bound_command.cpp.
using Overrides = std::vector<std::pair<std::string, std::string>>;
Overrides parse_schedule_defines(const std::vector<std::string>& defines);
// "name=integer" topology params (`topo -D`, `run -T`, `bound -T`); ConfigError for a malformed
// one, naming the flag. Defined in topo_command.cpp.
std::map<std::string, std::int64_t> parse_topology_defines(const std::vector<std::string>& defines,
                                                           std::string_view flag);

// A run's limits as flags (traces::Limits); unset or 0: its defaults.
struct LimitInputs {
  std::int64_t max_ops = 0;      // --max-ops
  std::uint64_t max_events = 0;  // --max-events
  std::string max_time;          // --max-time, a duration ("2s")
  double max_wall = 0;           // --max-wall, seconds
  std::string max_memory;        // --max-memory, bytes ("8GiB")
};
// Declares --max-ops, --max-events, --max-time, --max-wall, --max-memory on `cmd`; limits_of
// turns them into traces::Limits (a ConfigError naming the flag for a malformed value). Defined
// in run_command.cpp.
void add_limit_options(CLI::App* cmd, LimitInputs& in);
traces::Limits limits_of(const LimitInputs& in);

// What `run` and `bound` read: a schedule with its params, a topology with its params, hardware,
// and the run's limits.
struct ScheduleInputs : LimitInputs {
  std::string schedule;
  std::string topology;
  std::string hw;
  std::vector<std::string> defines;           // -D, schedule params
  std::vector<std::string> topology_defines;  // -T, topology params
};
// Declares them on `cmd`: the schedule (positional), -t, --hw, -D, -T and the limits. Defined in
// run_command.cpp.
void add_schedule_inputs(CLI::App* cmd, ScheduleInputs& in);

void add_topo_command(CLI::App& app);       // topo_command.cpp
void add_serve_command(CLI::App& app);      // serve_command.cpp
void add_run_command(CLI::App& app);        // run_command.cpp
void add_bound_command(CLI::App& app);      // bound_command.cpp
void add_check_command(CLI::App& app);      // check_command.cpp
void add_calibrate_command(CLI::App& app);  // calibrate_command.cpp
void add_validate_command(CLI::App& app);   // validate_command.cpp
void add_sweep_command(CLI::App& app);      // sweep_command.cpp

}  // namespace mgsim::cli
