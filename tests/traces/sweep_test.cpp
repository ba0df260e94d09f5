// traces/sweep.hpp: a sweep file's points (machines outermost, the grid's axes in file order, then
// each zip group as one axis) and the checks made when it is loaded.
#include "traces/sweep.hpp"

#include "traces/html_report.hpp"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

using namespace mgsim;
using namespace mgsim::traces;

namespace {

const std::string kSchedule = std::string(MGSIM_EXAMPLES_DIR) + "/all_reduce_ring.yaml";

SweepSpec sweep_of(const std::string& body) {
  return load_sweep_text("schedule: " + kSchedule + "\n" + body, "s.yaml");
}

std::string error_of(const std::string& body) {
  try {
    (void)sweep_of(body);
  } catch (const sim::ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a sweep's points: machines outermost, the last axis fastest, zipped axes as one") {
  const SweepSpec s = sweep_of(R"(
machines:
  - {name: a, topology: hgx-h200-8}
  - {name: b, topology: hgx-h200-8, hardware: h200.calibrated}
grid:
  SIZE: {from: 1MiB, to: 4MiB, factor: 2}
zip:
  - {hw.hbm.bandwidth: [1TB/s, 2TB/s], hw.hbm.latency: [500ns, 600ns]}
)");
  REQUIRE(s.points == 2 * 3 * 2);
  REQUIRE(s.axes.size() == 3);
  CHECK(s.axes[0].values == std::vector<std::string>{"1048576", "2097152", "4194304"});
  const SweepPoint first = s.point(0);
  CHECK(first.machine == 0);
  CHECK(first.values == std::vector<std::string>{"1048576", "1TB/s", "500ns"});
  const SweepPoint second = s.point(1);  // the zip group moves first, both its axes at once
  CHECK(second.values == std::vector<std::string>{"1048576", "2TB/s", "600ns"});
  CHECK(s.point(2).values == std::vector<std::string>{"2097152", "1TB/s", "500ns"});
  const SweepPoint last = s.point(11);
  CHECK(last.machine == 1);
  CHECK(last.values == std::vector<std::string>{"4194304", "2TB/s", "600ns"});
  CHECK(s.params_of(last) == Overrides{{"SIZE", "4194304"}});
  const auto hw = s.hardware_of(last);
  REQUIRE(hw.size() == 2);
  CHECK(hw[0].parameter == "hbm.bandwidth");
  CHECK(hw[1].value == "600ns");
  // The machine of a point carries its hardware values.
  const Machine m = load_sweep_machine(s, last);
  CHECK(m.hardware().hbm.latency == sim::Duration::ns(600));
}

TEST_CASE("a topology axis sets the machine's topology param") {
  const SweepSpec s = load_sweep_text(
      "schedule: " + std::string(MGSIM_EXAMPLES_DIR) + "/all_reduce_nodes.yaml\n" + R"(
machines: [{topology: hgx-h200-ib, topology_params: {spines: 2}}]
grid: {topo.nodes: [1, 2]}
)",
      "s.yaml");
  REQUIRE(s.points == 2);
  CHECK(s.topology_of(s.point(1)) ==
        std::map<std::string, std::int64_t>{{"nodes", 2}, {"spines", 2}});
  CHECK(load_sweep_machine(s, s.point(1)).topology().gpu_count() == 16);
}

TEST_CASE("a sweep's names and values are checked when it is loaded") {
  const std::string machine = "machines: [{topology: hgx-h200-8}]\n";
  CHECK_THAT(error_of(machine + "grid: {SIZ: [1]}"), Catch::Contains("s.yaml:3:13") &&
                                                         Catch::Contains("SIZ is not a param") &&
                                                         Catch::Contains("did you mean 'SIZE'"));
  CHECK_THAT(error_of(machine + "grid: {hw.hbm.bandwith: [1TB/s]}"),
             Catch::Contains("not a hardware parameter") &&
                 Catch::Contains("did you mean 'hbm.bandwidth'"));
  CHECK_THAT(error_of(machine + "grid: {hw.hbm.bandwidth: [fast]}"),
             Catch::Contains("s.yaml:3:27") && Catch::Contains("expected a bandwidth"));
  CHECK_THAT(error_of(machine + "grid: {topo.nodes: [1]}"),
             Catch::Contains("nodes is not a param of topology hgx-h200-8"));
  CHECK_THAT(error_of(machine + "zip: [{SIZE: [1, 2], hw.hbm.latency: [1ns]}]"),
             Catch::Contains("advance as one"));
  CHECK_THAT(error_of(machine + "grid: {SIZE: []}"), Catch::Contains("has no values"));
  CHECK_THAT(error_of(machine + "grid: {SIZE: {from: 4, to: 2}}"),
             Catch::Contains("below its `from`"));
  CHECK_THAT(error_of("machines: []\n"), Catch::Contains("expected a list of machines"));
  CHECK_THAT(error_of("machines: [{topology: hgx-h200-8}, {topology: hgx-h200-8}]\n"),
             Catch::Contains("two machines are named hgx-h200-8"));
  // 41^5 points, counted before any name is looked at.
  const std::string range = "{from: 1, to: 1TiB}";
  CHECK_THAT(error_of(machine + "grid: {SIZE: " + range + ", a.b: " + range + ", c.d: " + range +
                      ", e.f: " + range + ", g.h: " + range + "}"),
             Catch::Contains("more than"));
}

TEST_CASE("a sweep's report: a plot per result and axis, lines capped, text escaped") {
  SweepReportData d;
  d.title = "<s>.yaml";
  d.columns = {"point", "A", "B", "time_us"};
  d.axes = {"A", "B"};
  d.results = {"time_us"};
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 20; ++b)
      d.rows.push_back({std::to_string(a * 20 + b), std::to_string(a), fmt::format("<{}>", b),
                        a == 0 && b == 0 ? "" : std::to_string(1 + a + b)});
  const std::string html = sweep_report_html(d);
  const auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (auto at = html.find(what); at != std::string::npos; at = html.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count("<svg class=\"plot\"") == 2);  // time_us by A, by B
  // By A: one line per value of B, at most kMaxSeries, the legend naming how many are left out.
  CHECK(count("<polyline") == kMaxSeries + 2);  // by B: one line per value of A
  CHECK(count("and 8 more settings") == 1);
  CHECK(count("<s>") == 0);
  CHECK(count("&lt;s&gt;.yaml") == 2);
  CHECK(count("<tr>") == 41);
  CHECK(html_escape("a&\"'<>") == "a&amp;&quot;&#39;&lt;&gt;");
}
