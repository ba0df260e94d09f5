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

// Into `dir`: two.yaml, whose `short` stream delays 3 us and `long` (10 us, on its own host
// thread) runs only with param LONG = 1 (its default `long_default`).
void write_two_streams(const std::filesystem::path& dir, int long_default) {
  write(dir / "two.yaml",
        "params:\n  LONG: " + std::to_string(long_default) +
            "\nstreams:\n"
            "  - name: short\n    if: rank == 0\n    ops:\n      - delay: 3us\n"
            "  - name: long\n    if: (rank == 0) * LONG\n    host: 1\n    ops:\n      - delay: "
            "10us\n");
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
  write_two_streams(dir, 1);
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

TEST_CASE("capture reads params out of a text column: a kernel's tile from its name") {
  // LONG comes from the kernel name's digit: k_1_x runs `long` (ends at 10 us), k_0_x not (3 us).
  const auto dir = std::filesystem::temp_directory_path() / "mgsim_cases_test_capture";
  std::filesystem::create_directories(dir);
  write_two_streams(dir, 0);
  const std::string meta = "# gpu0_name: test\n# date_utc: 2026-12-05\n# command: x\n";
  auto manifest = [&](const std::string& capture) {
    write(dir / "manifest.yaml", "topology: " + kSource +
                                     "/validate/cases/h200x2.yaml\n"
                                     "families:\n  - data: d.csv\n    category: primitive\n"
                                     "    schedule: two.yaml\n    measured: time_us_median\n" +
                                     capture);
  };
  auto run = [&] {
    return mgsim::validate::run_validation((dir / "manifest.yaml").string(), dir.string(),
                                           "h200.calibrated");
  };
  auto error = [&] {
    try {
      run();
    } catch (const mgsim::sim::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string capture = "    capture: {column: kernel, pattern: \"k_{LONG}_\"}\n";
  write(dir / "d.csv", meta + "kernel,time_us_median\nk_1_x,10\nk_0_x,3\n");
  manifest(capture);
  auto r = run();
  REQUIRE(r.cases.size() == 2);
  CHECK(r.cases[0].predicted_us == Approx(10.0));
  CHECK(r.cases[1].predicted_us == Approx(3.0));
  CHECK(r.cases[0].label == "LONG=1");

  SECTION("a row the pattern does not match names the row") {
    write(dir / "d.csv", meta + "kernel,time_us_median\nk_1_x,10\nnvjet,3\n");
    CHECK_THAT(error(), Catch::Contains("d.csv:6") && Catch::Contains("'nvjet' does not match"));
  }
  SECTION("a pattern whose slots cannot be told apart, at the manifest") {
    for (const auto& [pattern, why] :
         {std::pair{"k_{LONG", "without its '}'"}, std::pair{"k_{LONG}{X}", "side by side"},
          std::pair{"k_{LONG}0", "starts with a digit"}, std::pair{"k_x", "no {PARAM} slot"},
          std::pair{"{LONG}_{LONG}", "twice"}, std::pair{"k_{long}", "expected a param name"}}) {
      manifest("    capture: {column: kernel, pattern: \"" + std::string(pattern) + "\"}\n");
      INFO(pattern);
      CHECK_THAT(error(), Catch::Contains("manifest.yaml:7") && Catch::Contains(why));
    }
  }
  SECTION("a file without the column: an error, unless the capture is optional") {
    write(dir / "d.csv", meta + "op,time_us_median\nx,3\n");
    CHECK_THAT(error(), Catch::Contains("kernel"));
    manifest("    capture: {column: kernel, pattern: \"k_{LONG}_\", optional: true}\n");
    r = run();
    REQUIRE(r.cases.size() == 1);
    CHECK(r.cases[0].predicted_us == Approx(3.0));  // the schedule's own LONG: 0
  }
  std::filesystem::remove_all(dir);
}
