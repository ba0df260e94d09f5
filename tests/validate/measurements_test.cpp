#include <string>

#include <catch2/catch.hpp>

#include "sim/config.hpp"
#include "validate/measurements.hpp"

using mgsim::sim::ConfigError;
using mgsim::validate::MeasurementTable;
using mgsim::validate::Unit;

namespace {

const std::string kMeta =
    "# gpu0_name: NVIDIA H200\n# date_utc: 2026-11-29\n# command: x --out .\n";

// The error message of parsing `text` (as file "m.csv"), or "" when it parses.
std::string error_of(const std::string& text) {
  try {
    MeasurementTable::parse(text, "m.csv");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a measurement file: metadata, units from column names, rows with their lines") {
  const MeasurementTable t =
      MeasurementTable::parse(kMeta +
                                  "op,sms,buffer_bytes,time_us_median,gbps_median\nread,1,1024,2.5,"
                                  "0.4\ncopy,2,2048,3,0.7\n",
                              "m.csv");
  CHECK(t.metadata().at("gpu0_name") == "NVIDIA H200");
  REQUIRE(t.rows() == 2);
  // Lines: 3 metadata lines, the header on line 4, rows on lines 5 and 6.
  CHECK(t.line_of(0) == 5);
  CHECK(t.line_of(1) == 6);
  CHECK(t.text(1, t.column("op", Unit::none)) == "copy");
  CHECK(t.number(0, t.column("time_us_median", Unit::microseconds)) == 2.5);
  CHECK(t.number(1, t.column("buffer_bytes", Unit::bytes)) == 2048);
  CHECK(t.number(1, t.column("gbps_median", Unit::gbps)) == 0.7);
}

TEST_CASE("column units: a token of the name or a bracketed unit") {
  const mgsim::sim::SourceLocation at{"m.csv", 4, 1};
  CHECK(mgsim::validate::unit_of_column("us_per_copy_median", at) == Unit::microseconds);
  CHECK(mgsim::validate::unit_of_column("sm_clock_mhz_end", at) == Unit::mhz);
  CHECK(mgsim::validate::unit_of_column("power_w_end", at) == Unit::watts);
  CHECK(mgsim::validate::unit_of_column("time[us]", at) == Unit::microseconds);
  CHECK(mgsim::validate::unit_of_column("sms", at) == Unit::none);  // "sms" is not the token "ms"
  CHECK(mgsim::validate::unit_of_column("ctas_per_sm", at) == Unit::none);
}

TEST_CASE("{gpu} in a data file's name is the measurement folder's own name") {
  using mgsim::validate::expand_data_name;
  CHECK(expand_data_name("../{gpu}-single/mlp.csv", "validate/data/h100") ==
        "../h100-single/mlp.csv");
  CHECK(expand_data_name("../{gpu}-single/mlp.csv", "/abs/data/h200/") == "../h200-single/mlp.csv");
  CHECK(expand_data_name("{gpu}.single_host", "d/h100") == "h100.single_host");
  CHECK(expand_data_name("hbm.csv", "d/h100") == "hbm.csv");
  CHECK(expand_data_name("", "d/h100").empty());
}

TEST_CASE("bad measurement files name the file and line") {
  SECTION("no metadata") {
    CHECK_THAT(error_of("op,time_us\nread,1\n"),
               Catch::Contains("m.csv:1:1") && Catch::Contains("no metadata"));
    CHECK_THAT(error_of(""), Catch::Contains("m.csv") && Catch::Contains("empty"));
  }
  SECTION("a required metadata key is missing") {
    CHECK_THAT(error_of("# gpu: H200\n# command: x\nop,time_us\n"),
               Catch::Contains("m.csv:3:1") && Catch::Contains("no 'date'"));
  }
  SECTION("an unknown unit") {
    CHECK_THAT(error_of(kMeta + "op,time[furlongs]\nread,1\n"),
               Catch::Contains("m.csv:4:1") && Catch::Contains("unknown unit 'furlongs'"));
  }
  SECTION("a non-numeric value in a column with a unit, at load") {
    CHECK_THAT(error_of(kMeta + "op,time_us_median\nread,1\nwrite,fast\n"),
               Catch::Contains("m.csv:6:1") && Catch::Contains("'fast', not a number"));
  }
  SECTION("a non-numeric count, when it is read") {
    const MeasurementTable t = MeasurementTable::parse(kMeta + "op,sms\nread,many\n", "m.csv");
    CHECK_THROWS_WITH(t.number(0, t.column("sms", Unit::none)),
                      Catch::Contains("m.csv:5:1") && Catch::Contains("'many', not a number"));
  }
  SECTION("a missing column, with the nearest name") {
    const MeasurementTable t =
        MeasurementTable::parse(kMeta + "op,time_us_median\nread,1\n", "m.csv");
    CHECK_THROWS_WITH(t.column("time_us_medain", Unit::microseconds),
                      Catch::Contains("m.csv:4:1") && Catch::Contains("missing column") &&
                          Catch::Contains("did you mean 'time_us_median'"));
  }
  SECTION("a column in another unit than asked") {
    const MeasurementTable t =
        MeasurementTable::parse(kMeta + "op,time_us_median\nread,1\n", "m.csv");
    CHECK_THROWS_WITH(t.column("time_us_median", Unit::bytes),
                      Catch::Contains("is in us, expected bytes"));
  }
  SECTION("a row with the wrong number of fields") {
    CHECK_THAT(error_of(kMeta + "op,sms\nread,1,2\n"),
               Catch::Contains("m.csv:5:1") && Catch::Contains("3 fields"));
  }
  SECTION("no header row") { CHECK_THAT(error_of(kMeta), Catch::Contains("no header row")); }
}

TEST_CASE("every committed H100 file reads") {
  for (const char* f : {"hbm.csv", "l2.csv", "launch.csv", "gemm.csv"}) {
    INFO(f);
    const MeasurementTable t =
        MeasurementTable::load_file(std::string(MGSIM_SOURCE_DIR) + "/validate/data/h100/" + f);
    CHECK(t.rows() > 0);
  }
}

TEST_CASE("every committed H200 file reads") {
  for (const char* f : {"hbm.csv", "l2.csv", "launch.csv", "gemm.csv", "peer_ce.csv",
                        "peer_tma.csv", "peer_ldst.csv", "flag.csv", "nccl.csv", "ag_gemm.csv",
                        "gemm_rs.csv", "interference.csv", "put_signal.csv"}) {
    INFO(f);
    const MeasurementTable t =
        MeasurementTable::load_file(std::string(MGSIM_SOURCE_DIR) + "/validate/data/h200/" + f);
    CHECK(t.rows() > 0);
  }
}
