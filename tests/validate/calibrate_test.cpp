#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "models/hardware_loader.hpp"
#include "sim/config.hpp"
#include "validate/calibrate.hpp"

namespace {

const std::string kSource = MGSIM_SOURCE_DIR;

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("the committed calibrated H200 file is what calibrate produces from the committed data") {
  // Reproducible from a clean clone, byte for byte (the command string is the one documented).
  const auto c = mgsim::validate::calibrate(kSource + "/validate/data/h200", "h200",
                                            "mgsim calibrate validate/data/h200");
  CHECK(mgsim::validate::to_yaml(c) == read(kSource + "/models/presets/h200.calibrated.yaml"));
}

TEST_CASE("the calibrated file loads and its fits agree with each other") {
  const auto hw = mgsim::models::load_hardware(kSource + "/models/presets/h200.calibrated.yaml");
  // protocol_efficiency was set to b / (links x link rate), so the copy-engine peer rate the
  // executor uses (port x efficiency) is the fitted engine rate b again, up to the 6 decimals
  // the efficiency is written with: |error| <= 478.1 GB/s x 5e-7 = 0.24 MB/s.
  const double peer = static_cast<double>(
      mgsim::models::peer_bandwidth(hw, mgsim::models::PeerPath::copy_engine).bytes_per_second());
  CHECK(peer ==
        Approx(static_cast<double>(hw.copy_engine.bandwidth.bytes_per_second())).epsilon(1e-6));
  // Every fitted number records where it came from.
  for (const char* key : {"copy_engine.setup", "copy_engine.bandwidth", "nvlink.latency",
                          "nvlink.protocol_efficiency", "hbm.bandwidth", "launch.kernel"}) {
    INFO(key);
    REQUIRE(hw.sources.count(key) == 1);
    CHECK_THAT(hw.sources.at(key), Catch::Contains("csv") || Catch::Contains("nvlink_status"));
  }
}

TEST_CASE("a calibration with too few points says which fit failed") {
  const auto dir = std::filesystem::temp_directory_path() / "mgsim_calibrate_test";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(kSource + "/validate/data/h200/flag.csv", dir / "flag.csv",
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir / "peer_ce.csv")
      << "# gpu: H200\n# date: today\n# command: peer_ce\n"
         "direction,issuer_gpu,mode,streams,bytes,copies_per_rep,us_per_copy_median\n"
         "0to1_push,0,single,1,1024,1,5.0\n0to1_push,0,single,1,2048,1,5.1\n";
  CHECK_THROWS_WITH(mgsim::validate::calibrate(dir.string(), "h200", "test"),
                    Catch::Contains("peer_ce.csv") && Catch::Contains("cannot fit") &&
                        Catch::Contains("2 point(s) for 2 coefficient(s)"));
  std::filesystem::remove_all(dir);
}
