#include "validate/calibrate.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "validate/calibrator.hpp"
#include "validate/fits/fits.hpp"

namespace mgsim::validate {

namespace {
using F = FitInput::Folder;

// The launch model: in the GPU's table and in a host's.
Fit launch_fit() {
  return {"launch",
          {{F::data, "launch.csv", {"kernel", "mode", "grid_ctas", "us_per_launch_median"}}},
          {},
          {"sm.count", "launch.event"},
          {"launch.per_cta", "launch.graph_node", "host.launch", "launch.latency", "launch.gap",
           "host.graph_launch", "host.sync"},
          fits::launch};
}

// The table in two parts, in run order: the fabric's and HBM's fits, then the caches', the
// SM's, the launches' and the tensor pipes'.
std::vector<Fit> fabric_and_hbm_fits() {
  return {
      {"nvlink latency",
       {{F::data, "flag.csv", {"location", "sync", "one_way_us_median"}}},
       {},
       {},
       {"nvlink.latency"},
       fits::nvlink_latency},
      {"flags",
       {{F::data, "flag.csv", {"location", "sync", "one_way_us_median"}}},
       {"nvlink.latency"},
       {},
       {"sync.flag_latency", "sync.remote_poll", "sync.atomic"},
       fits::flags},
      {"copy engine",
       {{F::data, "peer_ce.csv", {"direction", "mode", "streams", "bytes", "us_per_copy_median"}}},
       {"nvlink.latency"},
       {},
       {"host.memcpy", "copy_engine.setup", "copy_engine.bandwidth", "copy_engine.pull_setup",
        "copy_engine.count"},
       fits::copy_engine},
      {"nvlink port",
       {{F::data, "system/nvlink_status.txt", {}}},
       {"copy_engine.bandwidth"},
       {},
       {"nvlink.link_bandwidth", "nvlink.protocol_efficiency"},
       fits::nvlink_port},
      {"hbm spread",
       {{F::data,
         fits::kMlpWarpsCsv,
         {"set", "op", "ctas", "threads_per_cta", "bytes_per_access", "unroll",
          "bytes_in_flight_per_cta", "gbps_per_cta_median"}}},
       {},
       {},
       {"hbm.latency_spread"},
       fits::hbm_spread},
      {"hbm",
       {{F::data,
         "hbm.csv",
         {"op", "sms", "threads_per_cta", "gbps_median", "bytes_moved", "time_us_median"}},
        {F::data, "launch.csv", {"kernel", "mode", "grid_ctas", "us_per_launch_median"}}},
       {"hbm.latency_spread"},
       {"sm.count"},
       {"hbm.latency", "hbm.bandwidth", "hbm.write_bandwidth"},
       fits::hbm},
      {"peer ld/st",
       {{F::data, "peer_ldst.csv", {"direction", "sms", "bytes", "gbps_median"}}},
       {"copy_engine.bandwidth", "hbm.latency", "nvlink.latency"},
       {},
       {"ldst.nvlink_efficiency"},
       fits::peer_ldst},
      {"peer tma",
       {{F::data, "peer_tma.csv", {"direction", "sms", "bytes", "gbps_median"}}},
       {"copy_engine.bandwidth", "nvlink.latency"},
       {},
       {"tma.nvlink_efficiency", "tma.messages_in_flight", "tma.max_message"},
       fits::peer_tma},
  };
}

std::vector<Fit> cache_sm_and_launch_fits() {
  return {
      {"l2",
       {{F::data, "l2.csv", {"working_set_bytes", "gbps_median", "gpu0_l2_bytes"}}},
       {},
       {},
       {"l2.bandwidth", "l2.capacity"},
       fits::l2},
      {"l2 latency",
       {{F::data, fits::kMlpCsv, {"op", "ctas", "bytes_in_flight_per_cta", "gbps_per_cta_median"}}},
       {},
       {},
       {"l2.hit_latency"},
       fits::l2_latency},
      {"hbm queue",
       {{F::data,
         fits::kMlpCsv,
         {"set", "op", "ctas", "threads_per_cta", "bytes_per_access", "unroll",
          "bytes_in_flight_per_cta", "gbps_per_cta_median"}}},
       {"hbm.bandwidth"},
       {},
       {"hbm.queue_delay"},
       fits::hbm_queue},
      {"fences",
       {{F::data, fits::kFenceCsv, {"scope", "warps", "threads_per_cta", "ctas", "fence_ns"}},
        {F::data, fits::kSmGroupsCsv, {"test", "set", "unit", "probe"}}},
       {},
       {},
       {"sync.fence_cta", "sync.fence_cta_per_warp", "sync.fence_gpu", "sync.fence_gpu_per_warp",
        "sync.fence_system", "sync.fence_system_per_warp", "sync.fence_far",
        "sync.fence_round_warps", "sync.fence_gpu_round", "sync.fence_system_round"},
       fits::fences},
      {"tma store-add",
       {{F::data, "peer_tma_reduce.csv", {"direction", "op", "source", "sms", "gbps_median"}}},
       {},
       {"sm.count"},
       {"tma.reduce_efficiency", "l2.reduction_bandwidth"},
       fits::tma_store_add},
      {"sm memory pipe",
       {{F::data, fits::kMlpCsv, {"op", "ctas", "bytes_in_flight_per_cta", "gbps_per_cta_median"}},
        {F::data, "hbm.csv", {"op", "sms", "gbps_median"}}},
       {"l2.hit_latency"},
       {},
       {"sm.memory_rate", "sm.store_cost"},
       fits::sm_pipe},
      {"sm store-add",
       {{F::data, "peer_tma_reduce.csv", {"direction", "op", "source", "sms", "gbps_median"}}},
       {"sm.memory_rate"},
       {},
       {"sm.store_add_cost"},
       fits::sm_store_add},
      launch_fit(),
      {"tensor clock",
       {{F::data, "gemm.csv", {"m", "n", "k", "dtype", "time_us_median", "sm_clock_mhz_end"}},
        {F::cases, "gemm.yaml", {"M", "N", "K"}}},
       {"hbm.bandwidth"},
       {"sm.count", "sm.clock", "sm.flops_per_cycle_bf16", "sm.tensor_clock"},
       {"sm.tensor_clock"},
       fits::tensor_clock},
  };
}

}  // namespace

// The fits, in run order, each with its inputs and outputs (docs/VALIDATION.md quotes this table).
// A fit's `fitted` inputs are outputs of fits above it; the order also fixes the file's order.
const std::vector<Fit>& calibration_fits() {
  static const std::vector<Fit> fits = [] {
    std::vector<Fit> all = fabric_and_hbm_fits();
    std::vector<Fit> rest = cache_sm_and_launch_fits();
    all.insert(all.end(), std::make_move_iterator(rest.begin()),
               std::make_move_iterator(rest.end()));
    return all;
  }();
  return fits;
}

const std::vector<Fit>& host_calibration_fits() {
  static const std::vector<Fit> fits = {
      launch_fit(),
      {"host api",
       {{F::data, "host_api.csv", {"api", "mode", "host_us_median"}}},
       {},
       {},
       {"host.memcpy", "host.event_record", "host.event_record_untimed", "host.stream_wait"},
       fits::host_api},
  };
  return fits;
}

std::string configured_cases_dir() { return MGSIM_CASES_DIR; }

namespace {

// The fits in order over one data folder, the result named `name` and described. With
// `partial`, a fit whose inputs the folder lacks is left out, and said so.
Calibration run_fits(const std::vector<Fit>& fits, Calibrator c, std::string name,
                     std::string description, bool partial = false) {
  for (const Fit& fit : fits) {
    const std::string missing = partial ? c.missing_input(fit) : "";
    if (missing.empty()) {
      c.run(fit);
      continue;
    }
    c.result().left_out.push_back(
        fmt::format("not fitted (--partial): {} ({}): {}; the base's values stay", fit.name,
                    fmt::join(fit.writes, ", "), missing));
  }
  Calibration out = std::move(c.result());
  out.name = std::move(name);
  out.description = std::move(description);
  return out;
}

}  // namespace

Calibration calibrate(const std::string& data_dir, const std::string& base,
                      const std::string& command, const std::string& cases_dir, bool partial) {
  return run_fits(calibration_fits(), Calibrator(data_dir, cases_dir, base, command),
                  base + ".calibrated", base + " fitted to measurements (mgsim calibrate)",
                  partial);
}

Calibration calibrate_host(const std::string& data_dir, const std::string& base,
                           const std::string& command) {
  return run_fits(host_calibration_fits(),
                  Calibrator(data_dir, configured_cases_dir(), base, command), base + ".host",
                  base +
                      " driven from the host its launch.csv and host_api.csv were measured on "
                      "(mgsim calibrate --host)");
}

std::string to_yaml(const Calibration& c) {
  std::string out =
      "# Generated by `mgsim calibrate` from the primitive measurements (docs/VALIDATION.md);\n"
      "# do not edit by hand. Parameters not listed are the base preset's.\n";
  for (const std::string& n : c.notes) out += "# " + n + "\n";
  for (const std::string& n : c.left_out) out += "# " + n + "\n";
  out += fmt::format("name: {}\nbase: {}\ndescription: \"{}\"\n", c.name, c.base, c.description);
  // One mapping per unit, in the order units first appear.
  std::vector<std::string> order;
  for (const FittedParameter& p : c.parameters)
    if (std::find(order.begin(), order.end(), p.section) == order.end()) order.push_back(p.section);
  for (const std::string& s : order) {
    out += "\n" + s + ":\n";
    for (const FittedParameter& p : c.parameters) {
      if (p.section != s) continue;
      std::string quoted;
      for (const char ch : p.source)
        quoted += (ch == '"' || ch == '\\') ? std::string("\\") + ch : std::string(1, ch);
      out += fmt::format("  {}:\n    value: {}\n    source: \"{}\"\n", p.key, p.value, quoted);
    }
  }
  return out;
}

}  // namespace mgsim::validate
