#include "validate/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "models/hardware_loader.hpp"
#include "validate/fit.hpp"
#include "validate/measurements.hpp"

namespace mgsim::validate {
namespace {

using Rows = std::vector<std::size_t>;

// Facts of the measuring kernels (validate/cuda), needed to turn a rate into in-flight bytes.
constexpr double kHbmBytesInFlightPerThread = 4 * 16;  // hbm_l2.cu: 4 x 16-byte loads per thread
constexpr double kTmaMessageBytes = 32768;             // peer_sm.cu: 32 KiB bulk copies
constexpr double kGiB = 1073741824.0;

struct Eq {
  std::string_view column;
  std::string_view value;
};

// Rows whose text columns equal the given values and that pass `keep`.
Rows select(const MeasurementTable& t, std::initializer_list<Eq> eqs,
            const std::function<bool(std::size_t)>& keep = {}) {
  std::vector<std::pair<std::size_t, std::string_view>> cols;
  for (const Eq& e : eqs) cols.emplace_back(t.column(e.column, Unit::none), e.value);
  Rows out;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    bool ok = true;
    for (const auto& [c, v] : cols) ok = ok && t.text(r, c) == v;
    if (ok && (!keep || keep(r))) out.push_back(r);
  }
  return out;
}

// "21-24,30": the file lines of `rows`, runs compressed.
std::string lines(const MeasurementTable& t, const Rows& rows) {
  std::string out;
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i;
    while (j + 1 < rows.size() && t.line_of(rows[j + 1]) == t.line_of(rows[j]) + 1) ++j;
    out += out.empty() ? "" : ",";
    out += j == i ? fmt::format("{}", t.line_of(rows[i]))
                  : fmt::format("{}-{}", t.line_of(rows[i]), t.line_of(rows[j]));
    i = j + 1;
  }
  return out;
}

std::string base_name(const MeasurementTable& t) {
  return std::filesystem::path(t.file()).filename().string();
}

std::string ps_value(double seconds) {
  const auto ps = static_cast<long long>(std::llround(seconds * 1e12));
  return fmt::format("{}.{:03}ns", ps / 1000, ps % 1000);
}
std::string bw_value(double bytes_per_second) {
  return fmt::format("{:.3f}GB/s", bytes_per_second * 1e-9);
}

// Rows -> (X, y, w) for a line y = c0 + c1 x, or through the origin when `intercept` is false.
FitResult fit_line(const MeasurementTable& t, const Rows& rows, std::size_t xcol, std::size_t ycol,
                   bool intercept, bool relative, const std::string& what) {
  const auto n = static_cast<Eigen::Index>(rows.size());
  Eigen::MatrixXd x(n, intercept ? 2 : 1);
  Eigen::VectorXd y(n), w(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const std::size_t r = rows[static_cast<std::size_t>(i)];
    if (intercept) x(i, 0) = 1.0;
    x(i, intercept ? 1 : 0) = t.number(r, xcol);
    y(i) = t.number(r, ycol);
    w(i) = relative && y(i) != 0 ? 1.0 / y(i) : 1.0;
  }
  return least_squares(x, y, w, fmt::format("{} ({})", what, base_name(t)), {t.file(), 0, 0});
}

// A constant fitted to rows (its least-squares value is their mean), with the rows' range.
struct ConstantFit {
  std::vector<double> coefficients;
  double min = 0, max = 0;
};
ConstantFit fit_constant(const MeasurementTable& t, const Rows& rows, std::size_t ycol,
                         const std::string& what) {
  const auto n = static_cast<Eigen::Index>(rows.size());
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) y(i) = t.number(rows[static_cast<std::size_t>(i)], ycol);
  const FitResult f = least_squares(Eigen::MatrixXd::Ones(n, 1), y, Eigen::VectorXd::Ones(n),
                                    fmt::format("{} ({})", what, base_name(t)), {t.file(), 0, 0});
  return {f.coefficients, n ? y.minCoeff() : 0, n ? y.maxCoeff() : 0};
}

class Calibrator {
 public:
  Calibrator(std::string dir, std::string command)
      : dir_(std::move(dir)), command_(std::move(command)) {}

  const MeasurementTable& table(const std::string& name) {
    auto it = tables_.find(name);
    if (it == tables_.end())
      it = tables_.emplace(name, MeasurementTable::load_file(dir_ + "/" + name)).first;
    return it->second;
  }

  void add(std::string section, std::string key, std::string value, std::string source) {
    out_.parameters.push_back({std::move(section), std::move(key), std::move(value),
                               fmt::format("{}; command: {}", source, command_)});
  }
  void note(std::string line) { out_.notes.push_back(std::move(line)); }
  Calibration& result() { return out_; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_, command_;
  std::map<std::string, MeasurementTable> tables_;
  Calibration out_;
};

[[noreturn]] void out_of_range(const MeasurementTable& t, const std::string& what) {
  throw sim::ConfigError({t.file(), 0, 0}, fmt::format("calibration failed: {}", what));
}

// NVLink per-link rate as nvidia-smi reports it (system/nvlink_status.txt): "Link 0: 26.562 GB/s".
double nvlink_link_rate(const std::string& dir, int& links) {
  const std::string path = dir + "/system/nvlink_status.txt";
  std::ifstream in(path);
  if (!in) throw sim::ConfigError({path, 0, 0}, "cannot open (needed for the NVLink link rate)");
  std::string line;
  double rate = 0;
  links = 0;
  bool second_gpu = false;
  while (std::getline(in, line)) {
    if (line.rfind("GPU ", 0) == 0) {
      second_gpu = links > 0;
      continue;
    }
    const auto colon = line.find("Link ");
    const auto c2 = line.find(':');
    if (colon == std::string::npos || c2 == std::string::npos || second_gpu) continue;
    const double r = std::strtod(line.c_str() + c2 + 1, nullptr);
    if (r <= 0) continue;
    if (rate != 0 && r != rate)
      throw sim::ConfigError({path, 0, 0}, "links of GPU 0 report different rates");
    rate = r;
    ++links;
  }
  if (links == 0) throw sim::ConfigError({path, 0, 0}, "no 'Link N: <rate> GB/s' line for GPU 0");
  return rate * 1e9;
}

}  // namespace

Calibration calibrate(const std::string& data_dir, const std::string& base,
                      const std::string& command) {
  Calibrator c(data_dir, command);
  c.result().base = base;

  // --- NVLink latency: one-way flag latency, store over NVLink and poll locally (the pattern
  // a signal/wait pair uses).
  const MeasurementTable& flag = c.table("flag.csv");
  const Rows fr = select(flag, {{"location", "write_remote_poll_local"}, {"sync", "volatile"}});
  if (fr.size() != 1) out_of_range(flag, "expected one write_remote_poll_local/volatile row");
  const double latency =
      flag.number(fr[0], flag.column("one_way_us_median", Unit::microseconds)) * 1e-6;
  c.add(
      "nvlink", "latency", ps_value(latency),
      fmt::format("measured: flag.csv line {}, one-way volatile flag (remote store, local poll) = "
                  "round trip / 2",
                  flag.line_of(fr[0])));

  // --- Copy engine: one push, events around it: t = a + bytes / b.
  const MeasurementTable& ce = c.table("peer_ce.csv");
  const Rows cr = select(ce, {{"direction", "0to1_push"}, {"mode", "single"}, {"streams", "1"}});
  const FitResult cf =
      fit_line(ce, cr, ce.column("bytes", Unit::bytes),
               ce.column("us_per_copy_median", Unit::microseconds), true, true, "t = a + bytes/b");
  const double a = cf.coefficients[0] * 1e-6;
  const double b = 1e6 / cf.coefficients[1];
  const double setup = a - latency;
  if (cf.coefficients[1] <= 0 || setup < 0)
    out_of_range(ce,
                 fmt::format("copy-engine fit gives a = {} s, 1/b = {}", a, cf.coefficients[1]));
  const std::string ce_fit = fmt::format(
      "fit: peer_ce.csv lines {} (0to1_push, single, 1 stream), least squares t = a + bytes/b "
      "weighted 1/t, a = {:.3f} us, b = {:.3f} GB/s, R^2={:.6f}",
      lines(ce, cr), a * 1e6, b * 1e-9, cf.r2);
  c.add("copy_engine", "setup", ps_value(setup),
        fmt::format("{}; setup = a - nvlink.latency (the route's latency)", ce_fit));
  c.add("copy_engine", "bandwidth", bw_value(b),
        ce_fit +
            "; one engine reaches the port rate "
            "(splitting over streams never helps, docs/MEASUREMENTS.md)");

  int links = 0;
  const double link_rate = nvlink_link_rate(data_dir, links);
  c.add("nvlink", "link_bandwidth", bw_value(link_rate),
        fmt::format("measured: system/nvlink_status.txt, {} links of GPU 0 at {:.3f} GB/s each "
                    "(nvidia-smi nvlink -s)",
                    links, link_rate * 1e-9));
  const double protocol = b / (links * link_rate);
  if (protocol <= 0 || protocol > 1)
    out_of_range(ce, fmt::format("protocol efficiency {} outside (0, 1]", protocol));
  c.add("nvlink", "protocol_efficiency", fmt::format("{:.6f}", protocol),
        fmt::format("{}; efficiency = b / ({} x {:.3f} GB/s)", ce_fit, links, link_rate * 1e-9));

  // --- HBM: full-chip read and write rates, per-SM read rate -> latency.
  const MeasurementTable& hbm = c.table("hbm.csv");
  double hbm_latency = 0;
  double hbm_read_rate = 0;  // B/s, what the kernel model's local loads and stores share
  {
    const std::size_t sms = hbm.column("sms", Unit::none);
    const std::size_t gbps = hbm.column("gbps_median", Unit::gbps);
    const std::size_t threads = hbm.column("threads_per_cta", Unit::none);
    const Rows read_few =
        select(hbm, {{"op", "read"}}, [&](std::size_t r) { return hbm.number(r, sms) <= 16; });
    const FitResult hf = fit_line(hbm, read_few, sms, gbps, false, false, "gbps = r x sms");
    const double per_sm = hf.coefficients[0] * 1e9;
    const double in_flight = hbm.number(read_few.front(), threads) * kHbmBytesInFlightPerThread;
    hbm_latency = in_flight / per_sm;
    c.add("hbm", "latency", ps_value(hbm_latency),
          fmt::format("fit: hbm.csv lines {} (read, 1-16 SMs), least squares gbps = r x sms, r = "
                      "{:.3f} GB/s per SM, R^2={:.6f}; latency = bytes in flight per SM ({:.0f} B: "
                      "1024 threads x 4 x 16 B) / r",
                      lines(hbm, read_few), per_sm * 1e-9, hf.r2, in_flight));
    for (const auto& [op, key] :
         {std::pair{"read", "bandwidth"}, std::pair{"write", "write_bandwidth"}}) {
      const Rows full = select(hbm, {{"op", op}, {"sms", "132"}});
      if (full.size() != 1) out_of_range(hbm, fmt::format("expected one {} row on 132 SMs", op));
      if (std::string_view(op) == "read") hbm_read_rate = hbm.number(full[0], gbps) * 1e9;
      c.add("hbm", key, bw_value(hbm.number(full[0], gbps) * 1e9),
            fmt::format("measured: hbm.csv line {} ({} on all 132 SMs, median)",
                        hbm.line_of(full[0]), op));
    }
  }

  // --- SM-driven peer paths: per-SM rate from 1 GiB transfers on 1-4 SMs (linear there),
  // the saturated rate from 16 SMs up.
  // The latency the kernel model (traces/kernel_exec.hpp) divides in-flight bytes by for a peer
  // access: hbm.latency + the route's latency (nvlink.latency).
  const double round_trip = hbm_latency + latency;
  for (const std::string name : {"peer_ldst.csv", "peer_tma.csv"}) {
    const MeasurementTable& t = c.table(name);
    const std::size_t sms = t.column("sms", Unit::none);
    const std::size_t bytes = t.column("bytes", Unit::bytes);
    const std::size_t gbps = t.column("gbps_median", Unit::gbps);
    const std::size_t dir = t.column("direction", Unit::none);
    auto one_way = [&](std::size_t r) {
      return t.number(r, bytes) == kGiB && (t.text(r, dir) == "put" || t.text(r, dir) == "get");
    };
    const Rows few =
        select(t, {}, [&](std::size_t r) { return one_way(r) && t.number(r, sms) <= 4; });
    const FitResult pf = fit_line(t, few, sms, gbps, false, false, "gbps = r x sms");
    const double per_sm = pf.coefficients[0] * 1e9;
    const Rows many =
        select(t, {}, [&](std::size_t r) { return one_way(r) && t.number(r, sms) >= 16; });
    const ConstantFit sf = fit_constant(t, many, gbps, "saturated gbps = s");
    const double eff = sf.coefficients[0] * 1e9 / b;
    const bool tma = name == "peer_tma.csv";
    const std::string section = tma ? "tma" : "ldst";
    if (eff <= 0 || eff > 1)
      out_of_range(t, fmt::format("{} efficiency {} outside (0, 1]", section, eff));
    c.add(section, "nvlink_efficiency", fmt::format("{:.6f}", eff),
          fmt::format(
              "fit: {} lines {} (1 GiB put/get, 16-132 SMs), least squares of the "
              "saturated rate s (a constant) = {:.3f} GB/s, efficiency = s / copy_engine.bandwidth "
              "{:.3f} GB/s",
              name, lines(t, many), sf.coefficients[0], b * 1e-9));
    const std::string per_sm_fit = fmt::format(
        "fit: {} lines {} (1 GiB put/get, 1-4 SMs), least squares gbps = r x sms, r = {:.3f} "
        "GB/s per SM, R^2={:.6f}; in flight = r x L, L = hbm.latency + nvlink.latency = {:.1f} ns "
        "(the kernel model's peer latency)",
        name, lines(t, few), per_sm * 1e-9, pf.r2, round_trip * 1e9);
    if (tma) {
      const double msgs = per_sm * round_trip / kTmaMessageBytes;
      const long m = std::max(1L, std::lround(msgs));
      c.add("tma", "messages_in_flight", fmt::format("{}", m),
            fmt::format("{} = {:.2f} messages of 32 KiB (the measuring kernel's size), rounded",
                        per_sm_fit, msgs));
      // The kernel model sizes a TMA op's messages as min(bytes, max_message); the count above
      // is of the measuring kernel's 32 KiB messages, so the message must be that size too.
      c.add("tma", "max_message", fmt::format("{}B", static_cast<long long>(kTmaMessageBytes)),
            "measured: the message (bulk-copy chunk) the measuring kernel issues, kTmaChunk in "
            "validate/cuda/kernels.cuh; the kernel model pipelines messages_in_flight messages of "
            "min(bytes, max_message), so in-flight bytes = messages_in_flight x this size, as "
            "fitted");
    } else {
      const double in_flight = per_sm * round_trip;
      c.add("ldst", "bytes_in_flight_per_sm", fmt::format("{}B", std::llround(in_flight)),
            fmt::format("{} = {:.0f} B", per_sm_fit, in_flight));
    }
  }

  // --- L2: working sets well inside the 60 MiB L2 (<= 32 MiB), t = bytes / B.
  const MeasurementTable& l2 = c.table("l2.csv");
  {
    const std::size_t ws = l2.column("working_set_bytes", Unit::bytes);
    const Rows in_l2 =
        select(l2, {}, [&](std::size_t r) { return l2.number(r, ws) <= 32.0 * 1048576; });
    const std::size_t gbps = l2.column("gbps_median", Unit::gbps);
    const ConstantFit lf = fit_constant(l2, in_l2, gbps, "saturated gbps = B");
    c.add("l2", "bandwidth", bw_value(lf.coefficients[0] * 1e9),
          fmt::format("fit: l2.csv lines {} (working sets 1-32 MiB, all SMs, 4 GiB read per "
                      "launch), least squares of the rate B (a constant), rows {:.0f}-{:.0f} GB/s",
                      lines(l2, in_l2), lf.min, lf.max));
    const auto it = l2.metadata().find("gpu0_l2_bytes");
    if (it == l2.metadata().end()) out_of_range(l2, "no gpu0_l2_bytes in the metadata");
    c.add("l2", "capacity", it->second + "B",
          "measured: l2.csv metadata gpu0_l2_bytes (cudaDeviceProp::l2CacheSize)");
  }

  // --- TMA store-adds (bulk reduce-add, bf16 and f32): the peer rate against a plain bulk store's,
  // and the local rate from shared memory (the L2's read-modify-write alone), all at 132 SMs.
  const MeasurementTable& red = c.table("peer_tma_reduce.csv");
  {
    const std::size_t gbps = red.column("gbps_median", Unit::gbps);
    const std::size_t sms = red.column("sms", Unit::none);
    const std::size_t op = red.column("op", Unit::none);
    auto all_sms = [&](bool add) {
      return [&, add](std::size_t r) {
        return red.number(r, sms) == 132 && (red.text(r, op) != "store") == add;
      };
    };
    const ConstantFit store = fit_constant(red, select(red, {{"direction", "put"}}, all_sms(false)),
                                           gbps, "store gbps = s");
    const Rows add_rows = select(red, {{"direction", "put"}}, all_sms(true));
    const ConstantFit add = fit_constant(red, add_rows, gbps, "store-add gbps = a");
    const double ratio = add.coefficients[0] / store.coefficients[0];
    if (ratio <= 0 || ratio > 1) out_of_range(red, fmt::format("reduce efficiency {}", ratio));
    c.add("tma", "reduce_efficiency", fmt::format("{:.6f}", ratio),
          fmt::format("fit: peer_tma_reduce.csv lines {} (put, 132 SMs, bf16 and f32 adds, every "
                      "message size and source), least squares of the rate a (a constant) = "
                      "{:.3f} GB/s, over the bulk store's s = {:.3f} GB/s (the same rows' stores)",
                      lines(red, add_rows), add.coefficients[0], store.coefficients[0]));
    const Rows local = select(red, {{"direction", "local"}, {"source", "smem"}}, all_sms(true));
    const ConstantFit lf = fit_constant(red, local, gbps, "local store-add gbps = l");
    c.add("l2", "reduction_bandwidth", bw_value(lf.coefficients[0] * 1e9),
          fmt::format("fit: peer_tma_reduce.csv lines {} (local store-adds from shared memory, 132 "
                      "SMs, bf16 and f32), least squares of the rate l (a constant), rows "
                      "{:.0f}-{:.0f} GB/s",
                      lines(red, local), lf.min, lf.max));
  }

  // --- Launch: empty kernels back to back on one stream, t = a + ctas x d.
  const MeasurementTable& launch = c.table("launch.csv");
  {
    const Rows lr = select(launch, {{"kernel", "empty"}, {"mode", "stream_back_to_back"}});
    const FitResult lf = fit_line(launch, lr, launch.column("grid_ctas", Unit::none),
                                  launch.column("us_per_launch_median", Unit::microseconds), true,
                                  true, "t = a + ctas x d");
    c.add(
        "launch", "kernel", ps_value(lf.coefficients[0] * 1e-6),
        fmt::format("fit: launch.csv lines {} (empty kernel, stream back to back), least squares "
                    "t = a + ctas x d weighted 1/t, a = launch, d = {:.3f} ns per CTA, R^2={:.6f} "
                    "(host-bound: the host's enqueue rate, docs/MEASUREMENTS.md caveat 2)",
                    lines(launch, lr), lf.coefficients[1] * 1e3, lf.r2));
  }

  // --- GEMM: the sustained tensor clock. Large cuBLAS GEMMs run at the power cap (the SM
  // clock read after them is 1425-1980 MHz, docs/MEASUREMENTS.md caveat 1), not at the
  // datasheet's 1830 MHz tensor clock. Fitted in the kernel model's own terms (the GEMM
  // schedule of validate/cases/gemm.yaml): persistent CTAs on all SMs, 128 x 256 output tiles,
  // so the busiest SM computes ceil(tiles / SMs) tiles of 2 x 128 x 256 x k flops, then the
  // epilogue writes C (m x n x 2 B) to HBM at hbm.bandwidth; t - epilogue = a + busiest-SM
  // flops / r, and tensor_clock = r / flops_per_cycle_bf16 (the base preset's).
  const MeasurementTable& gemm = c.table("gemm.csv");
  {
    const models::HardwareSpec base_hw = models::load_hardware(base);
    const std::size_t m = gemm.column("m", Unit::none), n = gemm.column("n", Unit::none),
                      k = gemm.column("k", Unit::none);
    const std::size_t tcol = gemm.column("time_us_median", Unit::microseconds);
    const Rows big = select(gemm, {{"dtype", "bf16"}}, [&](std::size_t r) {
      return gemm.number(r, m) >= 4096 && gemm.number(r, n) >= 4096 && gemm.number(r, k) >= 4096;
    });
    const double sms = base_hw.sm.count;
    const auto rows_n = static_cast<Eigen::Index>(big.size());
    Eigen::MatrixXd x(rows_n, 2);
    Eigen::VectorXd y(rows_n), w(rows_n);
    for (Eigen::Index i = 0; i < rows_n; ++i) {
      const std::size_t r = big[static_cast<std::size_t>(i)];
      const double tiles = std::ceil(gemm.number(r, m) / 128) * std::ceil(gemm.number(r, n) / 256);
      x(i, 0) = 1.0;
      x(i, 1) = std::ceil(tiles / sms) * 2.0 * 128 * 256 * gemm.number(r, k);
      const double epilogue_us = gemm.number(r, m) * gemm.number(r, n) * 2 / hbm_read_rate * 1e6;
      y(i) = gemm.number(r, tcol) - epilogue_us;
      w(i) = 1.0 / gemm.number(r, tcol);
    }
    const FitResult gf =
        least_squares(x, y, w, "t = a + busiest-SM flops / r (gemm.csv)", {gemm.file(), 0, 0});
    const double per_sm = 1e6 / gf.coefficients[1];  // flop/s of one SM
    const double clock = per_sm / static_cast<double>(base_hw.sm.flops_per_cycle_bf16);
    if (clock <= 0 || clock > 2.5e9) out_of_range(gemm, fmt::format("tensor clock {} Hz", clock));
    c.add("sm", "tensor_clock", fmt::format("{:.3f}MHz", clock * 1e-6),
          fmt::format("fit: gemm.csv lines {} (bf16, m, n, k >= 4096), least squares t - m x n x "
                      "2 B / hbm.bandwidth (the epilogue's C store) = a + F / r weighted 1/t with "
                      "F = the busiest SM's flops (ceil(tiles / {:.0f}) x 2 x 128 "
                      "x 256 x k, the 128 x 256 persistent tiling of validate/cases/gemm.yaml), "
                      "r = {:.3f} TFLOP/s per SM, a = {:.2f} us, R^2={:.6f}; tensor_clock = r / {} "
                      "flops per cycle: the sustained clock under the power cap (and cuBLAS's "
                      "issue efficiency), {:.1f} % of the datasheet's",
                      lines(gemm, big), sms, per_sm * 1e-12, gf.coefficients[0], gf.r2,
                      base_hw.sm.flops_per_cycle_bf16,
                      100 * clock / static_cast<double>(base_hw.sm.tensor_clock.hertz())));
  }
  return c.result();
}

std::string to_yaml(const Calibration& c) {
  std::string out =
      "# Generated by `mgsim calibrate` from the primitive measurements (docs/VALIDATION.md);\n"
      "# do not edit by hand. Parameters not listed are the base preset's.\n";
  for (const std::string& n : c.notes) out += "# " + n + "\n";
  out += fmt::format(
      "name: {}.calibrated\nbase: {}\ndescription: \"{} fitted to measurements "
      "(mgsim calibrate)\"\n",
      c.base, c.base, c.base);
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
