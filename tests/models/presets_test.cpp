// The datasheet presets: they load, every parameter records its source, and the derived whole-GPU
// figures agree with the datasheets and the ParallelKittens calibration point they came from.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "models/hardware_loader.hpp"
#include "models/parameter_table.hpp"

namespace mgsim::models {
namespace {

double rel_error(double got, double want) { return (got - want) / want; }

TEST_CASE("the datasheet presets are listed", "[models][presets]") {
  const std::vector<std::string> names = hardware_preset_names();
  for (const char* want : {"b200", "h100", "h200"})
    CHECK(std::find(names.begin(), names.end(), want) != names.end());
  CHECK(std::is_sorted(names.begin(), names.end()));
}

TEST_CASE("each preset loads with a source for every parameter", "[models][presets]") {
  for (const char* preset : {"h100", "h200", "b200"}) {
    INFO("preset " << preset);
    const HardwareSpec spec = load_hardware(preset);
    CHECK(spec.name == preset);
    // No preset has a public write figure: each assumes write = read until measured.
    CHECK(spec.hbm.write_bandwidth == spec.hbm.bandwidth);
    for (const Parameter& p : hardware_parameters()) {
      INFO("parameter " << p.name());
      // A GPU without a measured power model has no power section at all (its SMs stay at
      // sm.clock); one with it sources every number.
      if (p.section == "power" && !spec.power.governed()) {
        CHECK(spec.sources.count(p.name()) == 0);
        continue;
      }
      const auto it = spec.sources.find(p.name());
      REQUIRE(it != spec.sources.end());
      // A source says what kind of evidence it is (see the preset headers).
      const std::string& s = it->second;
      const bool kind = s.starts_with("datasheet:") || s.starts_with("whitepaper:") ||
                        s.starts_with("guide:") || s.starts_with("derived:") ||
                        s.starts_with("fit") || s.starts_with("third-party:") ||
                        s.starts_with("measured") || s.starts_with("assumed:");
      CHECK(kind);
    }
  }
}

TEST_CASE("the H200 and H100 presets have a power model and the B200 none", "[models][presets]") {
  // Each fitted on its own GPU's power.csv (scripts/power_model.py); no B200 was measured.
  CHECK(load_hardware("h200").power.governed());
  CHECK(load_hardware("h100").power.governed());
  CHECK_FALSE(load_hardware("b200").power.governed());
}

TEST_CASE("peak dense BF16 from per-SM rate x SMs x tensor clock matches the datasheet",
          "[models][presets][sm]") {
  // H100 SXM5: 4096 flops/cycle/SM x 132 SMs x 1.83 GHz = 989.42976 TFLOPS; the datasheet says
  // 989.4 (rounded to 0.1 TFLOPS, so +-0.005 %); allow 0.01 %.
  const HardwareSpec h100 = load_hardware("h100");
  CHECK(h100.sm.peak_flops_per_second(Dtype::bf16) == 989'429'760'000'000);
  CHECK(std::abs(rel_error(static_cast<double>(h100.sm.peak_flops_per_second(Dtype::bf16)),
                           989.4e12)) < 1e-4);
  // FP32 (non-tensor) runs at the 1.98 GHz boost: 256 x 132 x 1.98e9 = 66.90816 TFLOPS vs 66.9.
  CHECK(std::abs(rel_error(static_cast<double>(h100.sm.peak_flops_per_second(Dtype::fp32)),
                           66.9e12)) < 1e-3);
  // FP8 is twice BF16: 1978.86 TFLOPS vs the datasheet's 1978.9 (dense).
  CHECK(std::abs(rel_error(static_cast<double>(h100.sm.peak_flops_per_second(Dtype::fp8)),
                           1978.9e12)) < 1e-4);

  // H200 has the H100's compute: the same peak.
  const HardwareSpec h200 = load_hardware("h200");
  CHECK(h200.sm.peak_flops_per_second(Dtype::bf16) == h100.sm.peak_flops_per_second(Dtype::bf16));

  // B200: 8192 x 148 x 1.86 GHz = 2.25509 PFLOPS vs the datasheet's 2.25 (three significant
  // digits, so +-0.22 %, and the 1.86 GHz clock is itself rounded, +-0.27 %): allow 0.5 %.
  const HardwareSpec b200 = load_hardware("b200");
  CHECK(b200.sm.peak_flops_per_second(Dtype::bf16) == 2'255'093'760'000'000);
  CHECK(std::abs(rel_error(static_cast<double>(b200.sm.peak_flops_per_second(Dtype::bf16)),
                           2.25e15)) < 5e-3);
}

TEST_CASE("H200 differs from H100 only in memory", "[models][presets]") {
  const HardwareSpec h100 = load_hardware("h100");
  const HardwareSpec h200 = load_hardware("h200");
  CHECK(h200.hbm.capacity == sim::Bytes(141'000'000'000));
  CHECK(h200.hbm.bandwidth == sim::Bandwidth::GBps(4'800));
  CHECK(h200.hbm.write_bandwidth == h200.hbm.bandwidth);
  CHECK(h100.hbm.bandwidth == sim::Bandwidth::GBps(3'350));
  CHECK(h200.sm.count == h100.sm.count);
  CHECK(h200.nvlink.port_bandwidth() == h100.nvlink.port_bandwidth());
  CHECK(h200.l2.capacity == h100.l2.capacity);
}

TEST_CASE("per-GPU NVLink bandwidth and the ParallelKittens Table 1 calibration point",
          "[models][presets][nvlink]") {
  struct Point {
    const char* preset;
    std::int64_t port_gbps;         // links x per-link, per direction
    double copy_engine, tma, ldst;  // GB/s, ParallelKittens Table 1
  };
  // H100: 18 x 25 = 450 GB/s; B200: 18 x 50 = 900 GB/s. The efficiencies were fitted to these
  // figures (protocol = CE / port, TMA = TMA / CE, ld/st = ld/st / CE, six digits each), so
  // port x protocol x path must give them back to within the six-digit rounding (1e-5 relative).
  for (const Point& pt :
       {Point{"h100", 450, 368.82, 350.01, 342.68}, Point{"b200", 900, 726.13, 669.12, 628.35}}) {
    INFO("preset " << pt.preset);
    const HardwareSpec spec = load_hardware(pt.preset);
    CHECK(spec.nvlink.port_bandwidth() == sim::Bandwidth::GBps(pt.port_gbps));
    CHECK(std::abs(rel_error(peer_bandwidth(spec, PeerPath::copy_engine).gbps(), pt.copy_engine)) <
          1e-5);
    CHECK(std::abs(rel_error(peer_bandwidth(spec, PeerPath::tma).gbps(), pt.tma)) < 1e-5);
    CHECK(std::abs(rel_error(peer_bandwidth(spec, PeerPath::ldst).gbps(), pt.ldst)) < 1e-5);
    // The ordering the paper reports: copy engine > TMA > ld/st.
    CHECK(peer_bandwidth(spec, PeerPath::copy_engine) > peer_bandwidth(spec, PeerPath::tma));
    CHECK(peer_bandwidth(spec, PeerPath::tma) > peer_bandwidth(spec, PeerPath::ldst));
  }
}

TEST_CASE("occupancy on the presets: a 2-stage 128x256 bf16 GEMM CTA", "[models][presets][sm]") {
  // A CUTLASS-style Hopper GEMM CTA: 384 threads (1 producer + 2 consumer warpgroups), 168
  // registers per thread, 2 stages of (128x64 + 256x64) bf16 tiles = 2 x 48 KiB = 96 KiB plus a
  // 64 KiB epilogue buffer = 160 KiB. Registers: 168 x 32 = 5376 per warp, 65536 / 5376 = 12
  // warps = 1 CTA; shared memory (160 + 1) KiB of 228 also allows only 1.
  for (const char* preset : {"h100", "b200"}) {
    const HardwareSpec spec = load_hardware(preset);
    CHECK(spec.sm.ctas_per_sm({384, 168, sim::Bytes::KiB(160)}) == 1);
  }
}

TEST_CASE("overrides change one parameter and record it", "[models][presets]") {
  // "What if NVLink were 2x faster": 18 x 50 GB/s = 900 GB/s on an H100.
  const HardwareSpec spec = load_hardware("h100", {{"nvlink.link_bandwidth", "50GB/s"}});
  CHECK(spec.nvlink.port_bandwidth() == sim::Bandwidth::GBps(900));
  CHECK(spec.sources.at("nvlink.link_bandwidth") == "override: 50GB/s");
  CHECK(spec.hbm.bandwidth == sim::Bandwidth::GBps(3'350));
}

TEST_CASE("a file with base inherits and overrides, dropping the stale source",
          "[models][presets]") {
  const HardwareSpec spec = load_hardware_from_string(
      "base: h100\nname: h100-fast-hbm\nhbm:\n  bandwidth: {value: 4TB/s, source: \"measured: "
      "x\"}\n"
      "  latency: 500ns\n",
      "fast.yaml");
  CHECK(spec.name == "h100-fast-hbm");
  CHECK(spec.hbm.bandwidth == sim::Bandwidth::GBps(4'000));
  CHECK(spec.sources.at("hbm.bandwidth") == "measured: x");
  // A bare value records no source, so the base's no longer applies.
  CHECK(spec.hbm.latency == sim::Duration::ns(500));
  CHECK(spec.sources.count("hbm.latency") == 0);
  CHECK(spec.sm.count == 132);
}

TEST_CASE("describe_hardware lists every parameter once", "[models][presets]") {
  const auto lines = describe_hardware(load_hardware("h200"));
  CHECK(lines.size() == hardware_parameters().size());
  CHECK(std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
          return l.starts_with("hbm.bandwidth = 4800GB/s  # datasheet:");
        }) != lines.end());
}

TEST_CASE("a GPU driven from another host takes that host's costs only", "[models][presets]") {
  // h200.calibrated's GPU with the single-GPU machines' host (models/presets/h200.single_host):
  // the host's calls and the launch's path to the GPU change, nothing on the GPU does.
  const HardwareSpec gpu = load_hardware("h200.calibrated");
  const HardwareSpec host = load_hardware("h200.single_host");
  REQUIRE(gpu.host.launch != host.host.launch);
  REQUIRE(gpu.launch.latency != host.launch.latency);
  REQUIRE(gpu.launch.per_cta != host.launch.per_cta);
  const HardwareSpec both = with_host(gpu, host);
  CHECK(both.host.launch == host.host.launch);
  CHECK(both.host.memcpy == host.host.memcpy);
  CHECK(both.launch.latency == host.launch.latency);
  CHECK(both.sources.at("host.memcpy") == host.sources.at("host.memcpy"));
  CHECK(both.sources.at("launch.latency") == host.sources.at("launch.latency"));
  CHECK(both.launch.per_cta == gpu.launch.per_cta);  // the dispatcher is the GPU's
  CHECK(both.launch.gap == gpu.launch.gap);
  CHECK(both.sources.at("launch.per_cta") == gpu.sources.at("launch.per_cta"));
  CHECK(both.hbm.bandwidth == gpu.hbm.bandwidth);
  CHECK(both.sources.at("hbm.bandwidth") == gpu.sources.at("hbm.bandwidth"));
  CHECK(both.name == "h200.calibrated+h200.single_host host");
  // A hardware file says the same with `host_from`, and its own sections still apply after it.
  const auto dir = std::filesystem::temp_directory_path() / "mgsim_models_host_from_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "box.yaml") << "name: box\nbase: h200.calibrated\nhost_from: "
                                     "h200.single_host\nhost:\n  sync: 9us\n";
  const HardwareSpec box = load_hardware((dir / "box.yaml").string());
  CHECK(box.name == "box");
  CHECK(box.host.launch == both.host.launch);
  CHECK(box.launch.latency == both.launch.latency);
  CHECK(box.launch.per_cta == gpu.launch.per_cta);
  CHECK(box.host.sync == sim::Duration::us(9));
  std::filesystem::remove_all(dir);
  // The example hardware file (README) is this machine.
  const HardwareSpec example =
      load_hardware(std::string(MGSIM_SOURCE_DIR) + "/examples/hardware/h200_single_host.hw.yaml");
  CHECK(example.host.launch == both.host.launch);
  CHECK(example.launch.per_cta == gpu.launch.per_cta);
}

}  // namespace
}  // namespace mgsim::models

TEST_CASE("a bandwidth scaled by a factor is the exact product, rounded down once") {
  using mgsim::models::scale_bandwidth;
  using mgsim::sim::Bandwidth;
  // Halving is exact; 1 - 2^-53 of 2^62 - 1 B/s is 2^62 - 1 - 511.99999999999999989: 2^62 - 513;
  // 0.75 of 3 B/s is 2.25: 2; a factor of 0, 0; above 1, the product as well.
  constexpr std::int64_t top = (std::int64_t{1} << 62) - 1;
  CHECK(scale_bandwidth(Bandwidth::bytes_per_second(top), 0.5).bytes_per_second() ==
        (std::int64_t{1} << 61) - 1);
  CHECK(scale_bandwidth(Bandwidth::bytes_per_second(top), 1.0 - 0x1p-53).bytes_per_second() ==
        (std::int64_t{1} << 62) - 513);
  CHECK(scale_bandwidth(Bandwidth::bytes_per_second(3), 0.75).bytes_per_second() == 2);
  CHECK(scale_bandwidth(Bandwidth::GBps(100), 0.0).bytes_per_second() == 0);
  CHECK(scale_bandwidth(Bandwidth::GBps(100), 1.5).bytes_per_second() == 150'000'000'000);
  CHECK_THROWS(scale_bandwidth(Bandwidth::GBps(100), -1.0));
}
