// The manifest's `stream:` key: a case can predict one stream's end instead of the whole
// schedule's (interference.csv times the GEMM loop beside a longer-running transfer loop).
// Its `less:` key: a case can predict the difference of two runs (fence.csv's fence costs), and a
// measured column in nanoseconds is read as such.
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "models/hardware_loader.hpp"
#include "sim/config.hpp"
#include "validate/cases.hpp"

namespace {

const std::string kSource = MGSIM_SOURCE_DIR;

void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

// A folder with a two-stream schedule (`short` delays 3 us, `long` 10 us on its own host thread,
// rank 0), one data row measured at 2 us, and a manifest whose family has `family_extra`
// appended.
std::filesystem::path make_case(const std::string& name, const std::string& family_extra) {
  const auto dir = std::filesystem::temp_directory_path() / ("mgsim_cases_test_" + name);
  std::filesystem::create_directories(dir);
  write(dir / "two.yaml",
        "streams:\n"
        "  - name: short\n    if: rank == 0\n    ops:\n      - delay: 3us\n"
        "  - name: long\n    if: rank == 0\n    host: 1\n    ops:\n      - delay: 10us\n");
  write(dir / "d.csv",
        "# gpu0_name: test\n# date_utc: 2026-11-29\n# command: x\nop,time_us_median\nx,2\n");
  write(dir / "manifest.yaml",
        "topology: " + kSource +
            "/validate/cases/h200x2.yaml\n"
            "families:\n  - data: d.csv\n    category: primitive\n    schedule: two.yaml\n"
            "    measured: time_us_median\n" +
            family_extra);
  return dir;
}

}  // namespace

TEST_CASE("a case predicts the end of the named stream, or of the whole schedule") {
  // Whole schedule: the later stream ends at 10 us; `short` alone ends at 3 us.
  const auto whole = make_case("whole", "");
  auto run = mgsim::validate::run_validation((whole / "manifest.yaml").string(), whole.string(),
                                             "h200.calibrated");
  REQUIRE(run.cases.size() == 1);
  CHECK(run.cases[0].predicted_us == Approx(10.0));

  const auto named = make_case("named", "    stream: {name: short, rank: 0}\n");
  run = mgsim::validate::run_validation((named / "manifest.yaml").string(), named.string(),
                                        "h200.calibrated");
  REQUIRE(run.cases.size() == 1);
  CHECK(run.cases[0].predicted_us == Approx(3.0));
  CHECK(run.cases[0].error() == Approx(0.5));  // 3 / 2 - 1
}

TEST_CASE("a stream the schedule does not run is an error naming the data row") {
  const auto dir = make_case("missing", "    stream: {name: shrot}\n");
  CHECK_THROWS_WITH(mgsim::validate::run_validation((dir / "manifest.yaml").string(), dir.string(),
                                                    "h200.calibrated"),
                    Catch::Contains("d.csv:5") && Catch::Contains("no stream 'shrot' on rank 0"));
}

TEST_CASE("a case can predict a difference of two runs, measured in nanoseconds") {
  // `long` runs only with LONG = 1: the whole schedule ends at 10 us, without it at 3 us; the
  // manifest's `less: {LONG: 0}` predicts the difference, 7 us, against a row of 7000 ns.
  const auto dir = std::filesystem::temp_directory_path() / "mgsim_cases_test_less";
  std::filesystem::create_directories(dir);
  write(dir / "two.yaml",
        "params:\n  LONG: 1\nstreams:\n"
        "  - name: short\n    if: rank == 0\n    ops:\n      - delay: 3us\n"
        "  - name: long\n    if: (rank == 0) * LONG\n    host: 1\n    ops:\n      - delay: 10us\n");
  write(dir / "d.csv",
        "# gpu0_name: test\n# date_utc: 2026-12-03\n# command: x\nop,time_ns_median\nx,7000\n");
  write(dir / "manifest.yaml", "topology: " + kSource +
                                   "/validate/cases/h200x2.yaml\n"
                                   "families:\n  - data: d.csv\n    category: primitive\n"
                                   "    schedule: two.yaml\n    measured: time_ns_median\n"
                                   "    less: {LONG: 0}\n");
  const auto run = mgsim::validate::run_validation((dir / "manifest.yaml").string(), dir.string(),
                                                   "h200.calibrated");
  REQUIRE(run.cases.size() == 1);
  CHECK(run.cases[0].measured_us == Approx(7.0));
  CHECK(run.cases[0].predicted_us == Approx(7.0));
}

TEST_CASE("divide_by names a count column, a number or a param of the schedule's run") {
  // N delays of 3 us: 12 us with the default N = 4, 6 us where the row's group sets N = 2; a
  // time per delay either way, 3 us, against a row of 3 us.
  const auto dir = std::filesystem::temp_directory_path() / "mgsim_cases_test_divide";
  std::filesystem::create_directories(dir);
  write(dir / "loop.yaml",
        "params:\n  N: 4\nstreams:\n  - name: s\n    if: rank == 0\n    ops:\n"
        "      - for: {var: i, from: 0, to: N, ops: [delay: 3us]}\n");
  write(dir / "d.csv",
        "# gpu0_name: test\n# date_utc: 2026-12-03\n# command: x\nop,reps,time_us_median\n"
        "x,4,3\ny,2,3\n");
  auto run_with = [&](const std::string& divide_by) {
    write(dir / "manifest.yaml",
          "topology: " + kSource +
              "/validate/cases/h200x2.yaml\n"
              "families:\n  - data: d.csv\n    category: primitive\n    schedule: loop.yaml\n"
              "    measured: time_us_median\n    divide_by: " +
              divide_by +
              "\n    groups:\n      - where: {op: x}\n      - where: {op: y}\n"
              "        set: {N: 2}\n");
    return mgsim::validate::run_validation((dir / "manifest.yaml").string(), dir.string(),
                                           "h200.calibrated");
  };
  for (const std::string by : {"N", "reps"}) {
    const auto run = run_with(by);
    REQUIRE(run.cases.size() == 2);
    CHECK(run.cases[0].predicted_us == Approx(3.0));
    CHECK(run.cases[1].predicted_us == Approx(3.0));
  }
  const auto constant = run_with("4");  // the same 4 for both rows: 3 us and 1.5 us
  CHECK(constant.cases[1].predicted_us == Approx(1.5));
  CHECK_THROWS_WITH(run_with("M"), Catch::Contains("divide_by M: expected a count column of "
                                                   "d.csv or a param of every schedule"));
  CHECK_THROWS_WITH(run_with("-1"), Catch::Contains("divide_by -1: expected a positive number"));
}

TEST_CASE("a family measured on another host is predicted with that host's costs") {
  // One device copy's host call, measured as the host thread's end: host.memcpy of the
  // validated preset, or of the family's `host:` preset (a file beside the manifest here).
  const auto dir = std::filesystem::temp_directory_path() / "mgsim_cases_test_host";
  std::filesystem::create_directories(dir);
  write(dir / "copy.yaml",
        "streams:\n  - name: s\n    if: rank == 0\n    ops:\n      - memcpy: {bytes: 4KiB}\n");
  write(dir / "d.csv",
        "# gpu0_name: test\n# date_utc: 2026-12-05\n# command: x\nop,time_us_median\nx,7\n");
  write(dir / "slow_host.yaml",
        "base: h200\nname: slow_host\nhost:\n  memcpy: {value: 7us, source: \"measured: test\"}\n");
  auto run_with = [&](const std::string& host) {
    write(dir / "manifest.yaml", "topology: " + kSource +
                                     "/validate/cases/h200x2.yaml\n"
                                     "families:\n  - data: d.csv\n    category: primitive\n"
                                     "    schedule: copy.yaml\n    measured: time_us_median\n"
                                     "    measure: host\n" +
                                     host);
    const auto run = mgsim::validate::run_validation((dir / "manifest.yaml").string(), dir.string(),
                                                     "h200.calibrated");
    REQUIRE(run.cases.size() == 1);
    return run.cases[0].predicted_us;
  };
  const auto calibrated = mgsim::models::load_hardware("h200.calibrated");
  CHECK(run_with("") == Approx(calibrated.host.memcpy.microseconds()));
  CHECK(run_with("    host: slow_host.yaml\n") == Approx(7.0));
  CHECK_THROWS_WITH(run_with("    host: no_such_host\n"),
                    Catch::Contains("manifest.yaml:8:11") &&
                        Catch::Contains("host no_such_host: ") &&
                        Catch::Contains("unknown hardware preset"));
}
