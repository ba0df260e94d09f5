// traces/critical_path.hpp: the chain of ops that set a run's end, found from what each op waited
// for. Each test builds a schedule whose chain is known by construction.
#include "traces/critical_path.hpp"

#include <string>

#include <catch2/catch.hpp>

#include "traces/simulation.hpp"

using namespace mgsim;
using namespace mgsim::traces;

namespace {

Result run_text(const std::string& text) {
  static const Machine machine = Machine::load("hgx-h200-8", {}, "h200");
  const Schedule s = load_schedule(sim::Node::load_string(text, "path.yaml"));
  return simulate(s, param_values(s, {}), machine, nullptr, {}, {.critical_path = true});
}

// The steps follow one another without gaps and end at the run's end.
void check_chain(const Result& r) {
  const std::vector<PathStep>& path = r.run.critical_path;
  REQUIRE_FALSE(path.empty());
  CHECK(path.back().end == r.run.end);
  for (std::size_t i = 1; i < path.size(); ++i) {
    INFO("step " << i << ": " << step_place(path[i]) << " " << step_label(path[i]));
    CHECK(path[i].begin == path[i - 1].end);
  }
}

bool has(const std::vector<PathStep>& path, const std::string& place, const std::string& what) {
  for (const PathStep& p : path)
    if (step_place(p) == place && step_label(p) == what) return true;
  return false;
}

}  // namespace

TEST_CASE("the critical path follows an event from the stream that recorded it",
          "[critical_path]") {
  // Stream a copies 256 MiB (long), then records; stream b waits for it, then copies 1 MiB. The
  // end is b's copy; what held it is the wait, released by a's record after a's long copy.
  const Result r = run_text(R"(
world: 1
streams:
  - name: a
    ops:
      - memcpy: {bytes: 256MiB}
      - record: {event: done}
  - name: b
    ops:
      - memcpy: {bytes: 1MiB}
      - wait: {event: done}
      - memcpy: {bytes: 1MiB}
)");
  check_chain(r);
  const std::vector<PathStep>& path = r.run.critical_path;
  CHECK(step_place(path.back()) == "rank 0 stream b");
  CHECK(path.back().what == "memcpy");
  CHECK(has(path, "rank 0 stream a", "memcpy"));
  CHECK(has(path, "rank 0 stream a", "record"));
  CHECK(has(path, "rank 0 stream b", "wait"));
  // b's first copy ended long before: it is not on the path.
  int b_copies = 0;
  for (const PathStep& p : path)
    b_copies += step_place(p) == "rank 0 stream b" && p.what == "memcpy";
  CHECK(b_copies == 1);
  // Where the time went: a's copy holds most of it.
  CHECK(path_shares(path).front().place == "rank 0 stream a");
}

TEST_CASE("a collective's critical path goes through the rank that reached it last",
          "[critical_path]") {
  // Rank 1's host works 200 us before its all-reduce: every rank's collective waits for it.
  const Result r = run_text(R"(
world: 2
streams:
  - name: main
    ops:
      - delay: 200us
        if: rank == 1
      - collective: {op: all_reduce, bytes: 1MiB, dtype: float}
)");
  check_chain(r);
  const std::vector<PathStep>& path = r.run.critical_path;
  CHECK(has(path, "host thread 1", "delay"));
  CHECK_FALSE(has(path, "host thread 0", "delay"));
  // The delay holds it for its 200 us.
  for (const PathStep& p : path)
    if (step_label(p) == "delay") CHECK((p.end - p.begin) == sim::Duration::us(200));
}

TEST_CASE("without the flag no path is recorded", "[critical_path]") {
  static const Machine machine = Machine::load("hgx-h200-8", {}, "h200");
  const Schedule s = load_schedule(sim::Node::load_string(
      "world: 1\nstreams:\n  - name: a\n    ops: [memcpy: {bytes: 1MiB}]\n", "p.yaml"));
  CHECK(simulate(s, param_values(s, {}), machine).run.critical_path.empty());
}
