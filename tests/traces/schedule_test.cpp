#include "traces/schedule.hpp"

#include <catch2/catch.hpp>

#include "tests/support/config_error.hpp"

using mgsim::sim::ConfigError;
using mgsim::sim::Node;
using namespace mgsim::traces;

namespace {
using mgsim::testing::error_of;

Schedule load(const std::string& text) { return load_schedule(Node::load_string(text, "s.yaml")); }

const char* kGood = R"(params:
  SIZE: 1GiB
  CHUNK: min(SIZE, 4MiB)
sweep: {param: SIZE, from: 1MiB, to: 8MiB, factor: 2}
streams:
  - name: main
    ops:
      - collective: {op: all_reduce, algorithm: ideal_ring, bytes: SIZE, chunk: CHUNK, dtype: bf16}
      - for: {var: i, from: 0, to: 2, ops: [{record: {event: done, index: i}}]}
  - name: side
    if: rank == 0
    ops:
      - wait: {event: done, index: 1, rank: world - 1}
      - memcpy: {bytes: CHUNK, dst: (rank + 1) % world}
      - delay: 2us
      - sleep: 1ms
)";
}  // namespace

TEST_CASE("a schedule loads into params, sweep and streams") {
  const Schedule s = load(kGood);
  REQUIRE(s.params.size() == 2);
  CHECK(s.params[0].name == "SIZE");
  REQUIRE(s.sweep);
  // 1MiB, 2MiB, 4MiB, 8MiB: four values, each twice the last.
  CHECK(sweep_values(*s.sweep) == std::vector<std::int64_t>{1 << 20, 2 << 20, 4 << 20, 8 << 20});
  REQUIRE(s.streams.size() == 2);
  const auto* collective = std::get_if<CollectiveOp>(&s.streams[0].ops[0].what);
  REQUIRE(collective);
  CHECK(collective->dtype.name == "bfloat16");
  CHECK(collective->dtype.size == 2);
  REQUIRE(loop_of(s.streams[0].ops[1]));
  CHECK(loop_of(s.streams[0].ops[1])->body.size() == 1);
  CHECK(std::get<DelayOp>(s.streams[1].ops[2].what).duration == mgsim::sim::Duration::us(2));
  CHECK(!std::get<DelayOp>(s.streams[1].ops[2].what).idle);
  CHECK(std::get<DelayOp>(s.streams[1].ops[3].what).duration == mgsim::sim::Duration::ms(1));
  CHECK(std::get<DelayOp>(s.streams[1].ops[3].what).idle);
  CHECK(s.collective_count == 1);
  // slots: SIZE, CHUNK, rank, world, i.
  CHECK(s.slot_count == 5);
}

TEST_CASE("params: -D overrides them, and defaults that depend on them follow") {
  const Schedule s = load(kGood);
  // Defaults: SIZE = 1GiB, CHUNK = min(1GiB, 4MiB) = 4MiB.
  Env env = param_values(s, {});
  CHECK(env[0] == (1 << 30));
  CHECK(env[1] == (4 << 20));
  // SIZE = 1MiB makes CHUNK = min(1MiB, 4MiB) = 1MiB.
  env = param_values(s, {{"SIZE", "1MiB"}});
  CHECK(env[1] == (1 << 20));
  CHECK(error_of([&] {
          param_values(s, {{"SIZEE", "1"}});
        }) ==
        "s.yaml:2:3: error: -D SIZEE: the schedule has no param 'SIZEE'; did you mean 'SIZE'?");
  CHECK(error_of([&] { param_values(s, {{"SIZE", "1MB/s"}}); }).find("-D SIZE=1MB/s") == 0);
}

TEST_CASE("bad schedules name file:line:col") {
  CHECK(error_of([] { load("streams: [\n"); }).rfind("s.yaml:2:1: error: not valid YAML", 0) == 0);
  // An op is exactly one of the op keys; the message lists them. Keys are read in the list's order
  // (record before delay), so the second one found, delay, is reported at its value (column 35).
  CHECK(error_of([] { load("streams: [{name: a, ops: [{delay: 1us, record: e}]}]\n"); }) ==
        "s.yaml:1:35: error: an op holds exactly one of memcpy, record, wait, collective, delay, "
        "sleep, "
        "for, launch, sync, graph, group");
  CHECK(error_of([] { load("streams: [{name: a, ops: [{sleep: -1ms}]}]\n"); }) ==
        "s.yaml:1:35: error: expected a duration such as '12us', got '-1ms'");
  CHECK(
      error_of([] { load("streams: [{name: a, ops: [{if: 1}]}]\n"); }) ==
      "s.yaml:1:27: error: an op needs one of memcpy, record, wait, collective, delay, sleep, for, "
      "launch, sync, graph, group");
  CHECK(error_of([] { load("streams:\n  - name: a\n    opps: []\n"); }) ==
        "s.yaml:3:5: error: unknown key 'opps' in stream; did you mean 'ops'?");
  CHECK(error_of([] { load("streams:\n  - name: a\n    ops:\n      - memcopy: {bytes: 1}\n"); }) ==
        "s.yaml:4:9: error: unknown key 'memcopy' in op; did you mean 'memcpy'?");
  CHECK(error_of([] { load("streams:\n  - name: a\n    ops: 3\n"); }) ==
        "s.yaml:3:10: error: expected a list");
  CHECK(error_of([] { load("streams:\n  - name: a\n    ops: [{memcpy: {bytes: SIZE}}]\n"); })
            .rfind("s.yaml:3:28: error: in expression 'SIZE' at character 1: undefined name "
                   "'SIZE'",
                   0) == 0);
  CHECK(error_of([] { load("streams:\n  - name: a\n    ops: [{delay: 500}]\n"); }) ==
        "s.yaml:3:19: error: '500' has no valid unit for a duration: expected one of ps, ns, us, "
        "µs, ms, s");
  CHECK(error_of([] { load("streams:\n  - name: a\n    ops: [{wait: done}]\n"); }) ==
        "s.yaml:3:18: error: no stream records event 'done'");
  CHECK(error_of([] {
          load("streams:\n  - name: a\n    ops: [{collective: {op: allreduce, bytes: 8}}]\n");
        }) == "s.yaml:3:29: error: unknown collective 'allreduce'; did you mean 'all_reduce'?");
  CHECK(error_of([] { load("params: {rank: 3}\nstreams: []\n"); }).find("cannot name a param") !=
        std::string::npos);
  CHECK(error_of([] { load("params: {A: 3}\nstreams: []\n"); }) ==
        "s.yaml:2:10: error: a schedule needs at least one stream");
  CHECK(error_of([] {
          load(
              "streams:\n  - name: a\n    ops: [{for: {var: rank, from: 0, to: 2, "
              "ops: []}}]\n");
        }).find("hides a name") != std::string::npos);
  CHECK(error_of([] { load(""); }) == "s.yaml: error: the schedule is empty");
}
