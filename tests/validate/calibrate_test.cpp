#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "models/hardware_loader.hpp"
#include "sim/config.hpp"
#include "tests/support/config_error.hpp"
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

TEST_CASE("an H100 measured on one GPU: --partial fits what it has and names what it left out") {
  const std::string data = kSource + "/validate/data/h100";
  const auto c = mgsim::validate::calibrate(
      data, "h100", "mgsim calibrate validate/data/h100 --base h100 --partial",
      mgsim::validate::configured_cases_dir(), true);
  CHECK(mgsim::validate::to_yaml(c) == read(kSource + "/models/presets/h100.calibrated.yaml"));
  // The fabric's fits need two GPUs: left out, each named with the file it lacks; the memory,
  // SM, launch and tensor fits ran on the H100's own files (../h100-single/ too).
  CHECK(c.left_out.size() == 8);
  for (const std::string& n : c.left_out) CHECK_THAT(n, Catch::Contains("not fitted (--partial)"));
  std::set<std::string> fitted;
  for (const auto& p : c.parameters) fitted.insert(p.section + "." + p.key);
  for (const char* p : {"hbm.bandwidth", "hbm.latency_spread", "hbm.queue_delay", "l2.hit_latency",
                        "sm.memory_rate", "sync.fence_gpu", "launch.per_cta", "sm.tensor_clock"})
    CHECK(fitted.count(p) == 1);
  CHECK(fitted.count("nvlink.latency") == 0);
  // Without --partial a missing file is the error it always was.
  CHECK_THAT(mgsim::testing::error_of([&] { mgsim::validate::calibrate(data, "h100", "x"); }),
             Catch::Contains("flag.csv") && Catch::Contains("cannot open"));
}

TEST_CASE("the committed H100 host preset is what calibrate --host produces") {
  auto c = mgsim::validate::calibrate_host(
      kSource + "/validate/data/h100-single/host_again", "h100",
      "mgsim calibrate validate/data/h100-single/host_again --base h100 --host --name "
      "h100.single_host");
  c.name = "h100.single_host";
  CHECK(mgsim::validate::to_yaml(c) == read(kSource + "/models/presets/h100.single_host.yaml"));
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
                          "nvlink.protocol_efficiency", "hbm.bandwidth", "launch.latency",
                          "host.launch", "host.memcpy", "copy_engine.pull_setup"}) {
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
         "0to1_push,0,stream,1,1024,64,3.0\n0to1_push,0,stream,1,2048,64,3.1\n"
         "0to1_push,0,single,1,1024,1,5.0\n0to1_push,0,single,1,2048,1,5.1\n";
  CHECK_THROWS_WITH(mgsim::validate::calibrate(dir.string(), "h200", "test"),
                    Catch::Contains("peer_ce.csv") && Catch::Contains("cannot fit") &&
                        Catch::Contains("2 point(s) for 2 coefficient(s)"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("every fitted parameter is written by the one fit that declares it") {
  // The table is the contract docs/VALIDATION.md quotes: each output belongs to one fit, a fit
  // builds only on outputs of fits above it, and a run writes exactly the declared outputs.
  const auto& fits = mgsim::validate::calibration_fits();
  std::map<std::string, std::string> owner;  // "section.key" -> the fit declaring it
  for (const auto& fit : fits) {
    INFO(fit.name);
    for (const auto in : fit.fitted) CHECK(owner.count(std::string(in)) == 1);
    for (const auto out : fit.writes)
      CHECK(owner.emplace(std::string(out), std::string(fit.name)).second);
  }
  const auto c = mgsim::validate::calibrate(kSource + "/validate/data/h200", "h200", "test");
  std::set<std::string> written;
  for (const auto& p : c.parameters) {
    const std::string name = p.section + "." + p.key;
    INFO(name);
    CHECK(written.insert(name).second);
    REQUIRE(owner.count(name) == 1);
    CHECK(owner.at(name) == p.fit);
  }
  CHECK(written.size() == owner.size());
  // docs/VALIDATION.md quotes the table: a row per fit, naming its outputs.
  const std::string doc = read(kSource + "/docs/VALIDATION.md");
  for (const auto& fit : fits) {
    std::string head = "\n| ";
    head.append(fit.name).append(" |");
    const auto row = doc.find(head);
    REQUIRE(row != std::string::npos);
    const std::string line = doc.substr(row + 1, doc.find('\n', row + 1) - row - 1);
    for (const auto out : fit.writes)
      CHECK_THAT(line, Catch::Contains(std::string("`").append(out).append("`")));
  }
}

TEST_CASE("a base preset whose SM count the data was not measured on is an error") {
  // b200 has 148 SMs; the H200 data has full-chip rows on 132 only, which must not be fitted as
  // B200's.
  const std::string error = mgsim::testing::error_of(
      [] { mgsim::validate::calibrate(kSource + "/validate/data/h200", "b200", "test"); });
  CHECK_THAT(error,
             Catch::Contains("hbm.csv") && Catch::Contains("148 SMs") && Catch::Contains("b200"));
}

TEST_CASE("the tensor clock is fitted in the case file's GEMM tiling") {
  // gemm.yaml with 128 x 128 tiles in place of 128 x 256: the fit counts the busiest SM's flops
  // in the case file's tiles (nothing of the tiling is written in C++), and its source says so.
  const auto dir = std::filesystem::temp_directory_path() / "mgsim_calibrate_cases";
  std::filesystem::create_directories(dir);
  std::string gemm = read(kSource + "/validate/cases/gemm.yaml");
  const auto at = gemm.find("min(GN, 256)");
  REQUIRE(at != std::string::npos);
  gemm.replace(at, 12, "min(GN, 128)");
  std::ofstream(dir / "gemm.yaml") << gemm;
  const auto c =
      mgsim::validate::calibrate(kSource + "/validate/data/h200", "h200", "test", dir.string());
  const auto clock = std::find_if(c.parameters.begin(), c.parameters.end(),
                                  [](const auto& p) { return p.key == "tensor_clock"; });
  REQUIRE(clock != c.parameters.end());
  CHECK_THAT(clock->source, Catch::Contains("2 x 128 x 128 x k, the 128 x 128 persistent tiling"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("the far partition's fence cost is the spread of the SMs fencing alone") {
  // A kernel fencing on many SMs ends with its slowest one: sync.fence_far is the slowest SM's
  // fence over the fastest's, read here straight from sm_groups.csv's fence_gpu `alone` rows
  // (test,set,param,active,probe_sm,probe,...: column 6 is the SM's ns per fenced store).
  std::ifstream in(kSource + "/validate/data/h200-single/sm_groups.csv");
  REQUIRE(in);
  double lo = 1e300, hi = 0;
  int sms = 0;
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("fence_gpu,alone,")) continue;
    std::istringstream cells(line);
    std::string cell;
    for (int i = 0; i < 6; ++i) std::getline(cells, cell, ',');
    lo = std::min(lo, std::stod(cell));
    hi = std::max(hi, std::stod(cell));
    ++sms;
  }
  REQUIRE(sms == 132);
  const auto hw = mgsim::models::load_hardware(kSource + "/models/presets/h200.calibrated.yaml");
  // The file holds picoseconds: within half a picosecond of the measured spread.
  CHECK(hw.sync.fence_far.seconds() * 1e9 == Approx(hi - lo).margin(5e-4));
}

TEST_CASE("one H200's copies run one at a time: a message over k streams takes its pieces' time") {
  // peer_ce.csv: direction,issuer_gpu,mode,streams,bytes,copies_per_rep,us_per_copy_median. A
  // message cut over 4 streams and copied back to back: a round of 4 pieces. With n engines it
  // takes the longest of ceil(4 / n) pieces' one-stream time t1 (back-to-back copies of the
  // piece's size), one setup plus the 4 pieces through the port, and the host's 4 calls. 1 MiB
  // and 4 MiB pieces.
  auto us = [](const std::string& prefix) {
    std::ifstream in(kSource + "/validate/data/h200/peer_ce.csv");
    for (std::string line; std::getline(in, line);) {
      if (!line.starts_with(prefix)) continue;
      std::istringstream cells(line);
      std::string c;
      for (int i = 0; i <= 6; ++i) std::getline(cells, c, ',');
      return std::stod(c) * 1e-6;
    }
    FAIL("no row " << prefix << " in peer_ce.csv");
    return 0.0;
  };
  const auto hw = mgsim::models::load_hardware(kSource + "/models/presets/h200.calibrated.yaml");
  const double b = static_cast<double>(hw.copy_engine.bandwidth.bytes_per_second());
  const double host = hw.host.memcpy.seconds();
  struct Split {
    double piece, t1, measured;
  };
  const Split rows[] = {
      {1048576, us("0to1_push,0,stream,1,1048576,"), us("0to1_split4,0,stream,4,4194304,")},
      {4194304, us("0to1_push,0,stream,1,4194304,"), us("0to1_split4,0,stream,4,16777216,")}};
  auto error = [&](int n) {
    double e = 0;
    for (const Split& w : rows) {
      const double setup = w.t1 - w.piece / b;
      const double t = std::max({(4 + n - 1) / n * w.t1, setup + 4 * w.piece / b, 4 * host});
      e += std::pow(std::log(t / w.measured), 2);
    }
    return e;
  };
  // One engine is within 7 % of both rounds; two or more engines would take a third less.
  CHECK(error(1) < 0.01);
  for (int n = 2; n <= 4; ++n) CHECK(error(n) > 0.05);
  CHECK(hw.copy_engine.count == 1);
}

TEST_CASE("HBM's full-chip rates are the bytes over the time less an empty launch's") {
  // hbm.csv's rows on 132 SMs and launch.csv's empty kernel of 132 CTAs are both timed between
  // two events around one launch; the model charges that launch itself, so the fitted peak is
  // bytes_moved / (time_us_median - the empty kernel's us_per_launch_median).
  auto cell = [](const std::string& file, const std::string& prefix, int column) {
    std::ifstream in(kSource + "/validate/data/h200/" + file);
    for (std::string line; std::getline(in, line);) {
      if (!line.starts_with(prefix)) continue;
      std::istringstream cells(line);
      std::string c;
      for (int i = 0; i <= column; ++i) std::getline(cells, c, ',');
      return std::stod(c);
    }
    FAIL("no row " << prefix << " in " << file);
    return 0.0;
  };
  // launch.csv: kernel,mode,grid_ctas,threads_per_cta,launches_per_rep,us_per_launch_median
  const double empty_us = cell("launch.csv", "empty,single_event,132,", 5);
  // hbm.csv: op,sms,ctas_per_sm,threads_per_cta,buffer_bytes,bytes_moved,time_us_median
  auto rate = [&](const std::string& op) {
    const std::string row = op + ",132,";
    return cell("hbm.csv", row, 5) / ((cell("hbm.csv", row, 6) - empty_us) * 1e-6);
  };
  const auto hw = mgsim::models::load_hardware(kSource + "/models/presets/h200.calibrated.yaml");
  CHECK(static_cast<double>(hw.hbm.bandwidth.bytes_per_second()) ==
        Approx(rate("read")).epsilon(1e-6));
  CHECK(static_cast<double>(hw.hbm.write_bandwidth.bytes_per_second()) ==
        Approx(rate("write")).epsilon(1e-6));
}

TEST_CASE("the committed single-GPU host's preset is what calibrate --host produces") {
  const auto c = mgsim::validate::calibrate_host(
      kSource + "/validate/data/h200-single/host_run36", "h200",
      "mgsim calibrate validate/data/h200-single/host_run36 --host --name h200.single_host");
  auto named = c;
  named.name = "h200.single_host";
  CHECK(mgsim::validate::to_yaml(named) == read(kSource + "/models/presets/h200.single_host.yaml"));
  // Only the host's fits ran: nothing of the fabric, the memory or the SMs.
  for (const auto& p : c.parameters) CHECK((p.section == "host" || p.section == "launch"));
}

TEST_CASE("a host's API costs are its host_api.csv's back-to-back calls") {
  // Two back-to-back device copies at 3 and 5 us (mean 4), a single copy at 9 that is not
  // back to back, and the three event calls; the launch fit reads the committed launch.csv.
  const auto dir = std::filesystem::temp_directory_path() / "mgsim_calibrate_host_test";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(kSource + "/validate/data/h200/launch.csv", dir / "launch.csv",
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir / "host_api.csv")
      << "# gpu0_name: H200\n# date_utc: today\n# command: host_api\n"
         "api,mode,host_us_median\n"
         "cudaMemcpyAsync_d2d,back_to_back,3\ncudaMemcpyAsync_d2d,back_to_back,5\n"
         "cudaMemcpyAsync_d2d,single_event,9\ncudaEventRecord,back_to_back_timing,1.25\n"
         "cudaEventRecord,back_to_back_disable_timing,0.25\n"
         "cudaStreamWaitEvent,back_to_back_completed_event,0.5\n";
  const auto c = mgsim::validate::calibrate_host(dir.string(), "h200", "test");
  std::map<std::string, std::string> value;
  for (const auto& p : c.parameters) value[p.section + "." + p.key] = p.value;
  CHECK(value.at("host.memcpy") == "4000.000ns");
  CHECK(value.at("host.event_record") == "1250.000ns");
  CHECK(value.at("host.event_record_untimed") == "250.000ns");
  CHECK(value.at("host.stream_wait") == "500.000ns");
  // The launch model is the GPU calibration's fit of the same file.
  const auto gpu = mgsim::validate::calibrate(kSource + "/validate/data/h200", "h200", "test");
  for (const auto& p : gpu.parameters)
    if (p.section + "." + p.key == "host.launch") CHECK(value.at("host.launch") == p.value);
  CHECK(c.name == "h200.host");
  std::filesystem::remove_all(dir);
}
