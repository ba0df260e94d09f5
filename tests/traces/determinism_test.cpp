// Determinism (DESIGN.md: "the same inputs give byte-identical JSON and traces, in any thread or
// process"): every example runs twice in this process, on two threads at once, and
// both runs must print the same JSON summary and write the same trace, byte for byte.
// (tests/cli/determinism.sh checks the same across two processes of the mgsim binary.)
#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/traces/examples.hpp"

#include "sim/trace.hpp"
#include "traces/report.hpp"
#include "traces/simulation.hpp"

using namespace mgsim;
using namespace mgsim::traces;

namespace {

struct Output {
  std::string json, trace;
};

Output run_once(const Schedule& s, const std::string& file, const Machine& machine) {
  sim::ChromeTraceWriter trace;
  const std::vector<Run> runs = run_points(s, {}, std::nullopt, machine, &trace);
  std::ostringstream t;
  trace.write(t);
  return {runs_json({file, &machine}, runs), t.str()};
}

}  // namespace

TEST_CASE("every example gives the same JSON and trace twice on two threads", "[determinism]") {
  // examples/ and its subfolders (examples/kernels/ holds the tile-level ones).
  const std::vector<std::filesystem::path> files = test::example_files();
  REQUIRE(files.size() >= 6);
  const Machine machine = Machine::load("hgx-h200-8", {}, "h200");
  for (const auto& f : files) {
    INFO(f.string());
    const Schedule s = load_schedule_file(f.string());
    // The two runs share the schedule and the machine and run at the same time (Machine's
    // contract: many threads may run on one machine at once).
    Output second;
    std::thread other([&] { second = run_once(s, f.string(), machine); });
    const Output first = run_once(s, f.string(), machine);
    other.join();
    REQUIRE(first.json.size() > 100);
    REQUIRE(first.trace.find("\"traceEvents\"") != std::string::npos);
    CHECK(first.json == second.json);
    CHECK(first.trace == second.trace);
  }
}
