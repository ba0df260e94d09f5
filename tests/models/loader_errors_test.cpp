// Bad hardware input: each mistake is one ConfigError naming file:line:col, never a crash or a
// silently used default.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "models/hardware_loader.hpp"
#include "sim/config.hpp"

namespace mgsim::models {
namespace {

using sim::ConfigError;

std::string h100_text() {
  std::ifstream in(std::filesystem::path(hardware_preset_dir()) / "h100.yaml");
  std::stringstream s;
  s << in.rdbuf();
  REQUIRE(!s.str().empty());
  return s.str();
}

// The H100 preset with `from` (which must occur) replaced by `to`.
std::string h100_with(const std::string& from, const std::string& to) {
  std::string text = h100_text();
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// Loads `text` as "bad.yaml" and returns the error it must raise.
ConfigError error_of(const std::string& text) {
  try {
    load_hardware_from_string(text, "bad.yaml");
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("no ConfigError for:\n" << text);
  throw;  // unreachable: FAIL throws
}

TEST_CASE("unknown key: position and the nearest valid key", "[models][errors]") {
  // Line 3, column 3 is where `bandwith` starts.
  const ConfigError e = error_of("base: h100\nhbm:\n  bandwith: 5TB/s\n");
  CHECK(e.where().file == "bad.yaml");
  CHECK(e.where().line == 3);
  CHECK(e.where().column == 3);
  CHECK_THAT(e.message(), Catch::Contains("unknown key 'bandwith'") &&
                              Catch::Contains("did you mean 'bandwidth'"));
  // An unknown section too.
  const ConfigError s = error_of("base: h100\nnvlnk:\n  links: 18\n");
  CHECK(s.where().line == 2);
  CHECK_THAT(s.message(), Catch::Contains("did you mean 'nvlink'"));
  // And inside a {value, source} entry.
  const ConfigError v = error_of("base: h100\nhbm:\n  latency: {value: 1us, sorce: x}\n");
  CHECK(v.where().line == 3);
  CHECK_THAT(v.message(), Catch::Contains("did you mean 'source'"));
}

TEST_CASE("missing required parameter, section or name", "[models][errors]") {
  // Drop hbm.write_bandwidth from a full file (no base, so everything is required).
  const ConfigError e =
      error_of(h100_with("  write_bandwidth:", "  # write_bandwidth:\n  x_unused:"));
  CHECK(e.where().line > 0);
  CHECK_THAT(e.message(), Catch::Contains("missing the required key 'write_bandwidth'"));
  const ConfigError n = error_of(h100_with("name: h100\n", ""));
  CHECK_THAT(n.message(), Catch::Contains("missing the required key 'name'"));
  const ConfigError sec = error_of(h100_with("launch:\n", "launch_unused:\n"));
  CHECK_THAT(sec.message(), Catch::Contains("missing the required key 'launch'"));
}

TEST_CASE("bad units and bad types", "[models][errors]") {
  // A bandwidth without "/s".
  const ConfigError bw = error_of("base: h100\nhbm:\n  bandwidth: 4.8TB\n");
  CHECK(bw.where().line == 3);
  CHECK(bw.where().column == 14);
  // A duration without a unit.
  CHECK(error_of("base: h100\nhbm:\n  latency: 600\n").where().line == 3);
  // A frequency in the wrong unit.
  CHECK(error_of("base: h100\nsm:\n  clock: 1.98GB/s\n").where().line == 3);
  // A count that is not an integer.
  CHECK(error_of("base: h100\nsm:\n  count: 13.2\n").where().line == 3);
  // A switch that is not a boolean.
  CHECK(error_of("base: h100\nldst:\n  multimem: yes please\n").where().line == 3);
  // A list where a value belongs.
  CHECK(error_of("base: h100\nsm:\n  count: [1, 2]\n").where().line == 3);
  // Not YAML at all.
  CHECK(error_of("sm: {count: [\n").where().file == "bad.yaml");
}

TEST_CASE("zero and negative values", "[models][errors]") {
  CHECK_THAT(error_of("base: h100\nhbm:\n  bandwidth: 0GB/s\n").message(),
             Catch::Contains("must be positive"));
  CHECK_THAT(error_of("base: h100\nsm:\n  count: 0\n").message(),
             Catch::Contains("must be positive"));
  CHECK_THAT(error_of("base: h100\ncopy_engine:\n  count: -2\n").message(),
             Catch::Contains("must be positive"));
  CHECK_THAT(error_of("base: h100\nhbm:\n  capacity: 0B\n").message(),
             Catch::Contains("must be positive"));
  CHECK_THAT(error_of("base: h100\nsm:\n  clock: 0Hz\n").message(),
             Catch::Contains("must be positive"));
  const ConfigError neg = error_of("base: h100\nnvlink:\n  latency: -5ns\n");
  CHECK(neg.where().line == 3);
  CHECK_THAT(neg.message(), Catch::Contains("-5ns"));
  CHECK_THAT(error_of("base: h100\nnvlink:\n  protocol_efficiency: 1.5\n").message(),
             Catch::Contains("(0, 1]"));
  CHECK_THAT(error_of("base: h100\ntma:\n  nvlink_efficiency: 0\n").message(),
             Catch::Contains("(0, 1]"));
}

TEST_CASE("inconsistent parameters", "[models][errors]") {
  CHECK_THAT(error_of("base: h100\nsm:\n  shared_memory_per_cta: 300KiB\n").message(),
             Catch::Contains("exceeds sm.shared_memory"));
}

TEST_CASE("overrides are checked for consistency like a file", "[models][errors]") {
  // H100: 228KiB of shared memory per SM, at most 227KiB per CTA; 64KiB per SM breaks the relation
  // a preset must keep, and the error names the override, the only input that made it.
  try {
    load_hardware("h100", {{"sm.shared_memory", "64KiB"}});
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.where().file == "override sm.shared_memory=64KiB");
    CHECK(e.where().line == 0);
    CHECK_THAT(e.message(), Catch::Contains("sm.shared_memory_per_cta (227KiB) exceeds "
                                            "sm.shared_memory (64KiB)"));
  }
  // The same through a file given as text, and with several overrides: all of them are named.
  try {
    load_hardware_from_string("base: h100\n", "what_if.yaml",
                              {{"sm.shared_memory", "1KiB"}, {"sm.count", "100"}});
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.where().file == "overrides sm.shared_memory=1KiB, sm.count=100");
    CHECK_THAT(e.message(), Catch::Contains("exceeds sm.shared_memory (1KiB)"));
  }
  // Overrides that move both sides together stay consistent.
  const HardwareSpec ok =
      load_hardware("h100", {{"sm.shared_memory", "64KiB"}, {"sm.shared_memory_per_cta", "64KiB"}});
  CHECK(ok.sm.shared_memory_per_cta == ok.sm.shared_memory);
}

TEST_CASE("unknown preset lists the valid ones", "[models][errors]") {
  // From a file's base: the position of the value.
  const ConfigError e = error_of("base: h300\n");
  CHECK(e.where().line == 1);
  CHECK(e.where().column == 7);
  CHECK_THAT(e.message(), Catch::Contains("unknown hardware preset 'h300'") &&
                              Catch::Contains("b200, ") && Catch::Contains("h100") &&
                              Catch::Contains("did you mean"));
  // From the command line: no file position, the same list.
  try {
    load_hardware("h300");
    FAIL("no error");
  } catch (const ConfigError& err) {
    CHECK_THAT(err.message(), Catch::Contains("valid presets: ") && Catch::Contains("h200"));
  }
  // A path that does not exist.
  CHECK_THROWS_AS(load_hardware("/nonexistent/gpu.yaml"), ConfigError);
}

TEST_CASE("a base cycle ends with an error, not a hang", "[models][errors]") {
  const auto dir = std::filesystem::temp_directory_path() / "mgsim_models_cycle_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "a.yaml") << "base: b.yaml\n";
  std::ofstream(dir / "b.yaml") << "base: a.yaml\n";
  try {
    load_hardware((dir / "a.yaml").string());
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK_THAT(e.message(), Catch::Contains("cycle"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("a host_from cycle ends with an error, not a hang", "[models][errors]") {
  const auto dir = std::filesystem::temp_directory_path() / "mgsim_models_host_cycle_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "a.yaml") << "base: h200\nhost_from: b.yaml\n";
  std::ofstream(dir / "b.yaml") << "base: h200\nhost_from: a.yaml\n";
  try {
    load_hardware((dir / "a.yaml").string());
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK_THAT(e.message(), Catch::Contains("cycle"));
  }
  std::ofstream(dir / "c.yaml") << "base: h200\nhost_from: h200.singel_host\n";
  try {
    load_hardware((dir / "c.yaml").string());
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.where().line == 2);
    CHECK_THAT(e.message(), Catch::Contains("did you mean 'h200.single_host'"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("bad overrides", "[models][errors]") {
  try {
    load_hardware("h100", {{"hbm.bandwith", "5TB/s"}});
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK_THAT(e.message(), Catch::Contains("did you mean 'hbm.bandwidth'"));
  }
  CHECK_THROWS_AS(load_hardware("h100", {{"hbm.bandwidth", "fast"}}), ConfigError);
  CHECK_THROWS_AS(load_hardware("h100", {{"hbm.bandwidth", "-1TB/s"}}), ConfigError);
}

}  // namespace
}  // namespace mgsim::models
