// Fits of the memory side: HBM, the L2, and TMA store-adds (the L2's read-modify-write).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "models/hbm.hpp"
#include "validate/fit.hpp"
#include "validate/fits/fits.hpp"

namespace mgsim::validate::fits {
namespace {

// Facts of the measuring kernel hbm_l2.cu (kernels.cuh read_words: 16-byte loads, 4 per thread
// per loop), needed to turn a rate into a latency: its compiled loop uses its first load before
// it issues its fourth, so a thread waits twice per 4 loads (scripts/sass_loads.py on
// validate/data/h200-single/system_run18/sass_hbm_l2_read.txt; validate/cases/hbm.yaml declares
// `rounds: 2`).
constexpr double kHbmLoadsPerThread = 4;
constexpr double kHbmLoadBytes = 16;
constexpr double kHbmLoadRounds = 2;
constexpr double kWarpThreads = 32;
// The per-SM HBM rate is fitted where it is linear in SMs.
constexpr double kHbmLinearUpToSms = 16;
// Working sets well inside the L2 (60 MiB on H200), so every read hits it.
constexpr double kMiB = 1048576;
constexpr double kL2WorkingSetUpTo = 32 * kMiB;
// The L2 read that measures the SM's memory pipe must move less than this share of what its
// window over the hit latency allows (else the latency, not the pipe, set its rate).
constexpr double kPipeBoundBelow = 0.8;

// The per-SM rate r (B/s) of `op` rows on 1 - kHbmLinearUpToSms SMs, where it is linear.
std::pair<Rows, FitResult> hbm_per_sm_rate(Calibrator& c, const MeasurementTable& hbm,
                                           const char* op) {
  const std::size_t sms = c.column(hbm, "sms", Unit::none);
  const Rows few = select(c, hbm, {{"op", op}},
                          [&](std::size_t r) { return hbm.number(r, sms) <= kHbmLinearUpToSms; });
  FitResult fit = fit_line(hbm, few, sms, c.column(hbm, "gbps_median", Unit::gbps),
                           LineFit::through_origin, "gbps = r x sms");
  return {few, std::move(fit)};
}

// mlp.csv's l2_read rows on one CTA (an L2-resident working set re-read), with the columns of
// their bytes in flight and rate.
struct OneCtaL2Reads {
  const MeasurementTable& t;
  std::size_t window, gbps;
  Rows rows;
};
OneCtaL2Reads one_cta_l2_reads(Calibrator& c) {
  const MeasurementTable& t = c.table(kMlpCsv);
  const std::size_t ctas = c.column(t, "ctas", Unit::none);
  return {t, c.column(t, "bytes_in_flight_per_cta", Unit::bytes),
          c.column(t, "gbps_per_cta_median", Unit::gbps),
          select(c, t, {{"op", "l2_read"}}, [&](std::size_t r) { return t.number(r, ctas) == 1; })};
}

// The columns of an mlp.cu table (mlp.csv, mlp_warps.csv) that the HBM fits read.
struct MlpReads {
  const MeasurementTable& t;
  std::size_t set, ctas, threads, width, unroll, window, per_cta;
  // mlp.cu's own read loop (not hbm_l2.cu's, which waits twice) where it waits once per
  // iteration (scripts/sass_loads.py: all but 8 B x 8 and 16 B x 8).
  bool waits_once(std::size_t r) const {
    return t.text(r, set) != "hbm_l2_kernel" &&
           !(t.number(r, unroll) == 8 && (t.number(r, width) == 8 || t.number(r, width) == 16));
  }
};
MlpReads mlp_reads(Calibrator& c, const char* file) {
  const MeasurementTable& t = c.table(file);
  return {t,
          c.column(t, "set", Unit::none),
          c.column(t, "ctas", Unit::none),
          c.column(t, "threads_per_cta", Unit::none),
          c.column(t, "bytes_per_access", Unit::bytes),
          c.column(t, "unroll", Unit::none),
          c.column(t, "bytes_in_flight_per_cta", Unit::bytes),
          c.column(t, "gbps_per_cta_median", Unit::gbps)};
}

}  // namespace

// The latency's spread: one warp of one CTA reading HBM (mlp_warps.csv, mlp.cu's loops that wait
// once) waits W / r per iteration for its k = W / 128 lines (W its bytes in flight, r its
// rate), the latest of k: least squares W / r = a + spread x H_k over k = 1 - 16, weighted
// 1 / (W / r).
void hbm_spread(Calibrator& c) {
  const MlpReads m = mlp_reads(c, kMlpWarpsCsv);
  const MeasurementTable& t = m.t;
  const Rows rows = select(c, t, {{"op", "read"}}, [&](std::size_t r) {
    return m.waits_once(r) && t.number(r, m.ctas) == 1 && t.number(r, m.threads) == kWarpThreads;
  });
  Eigen::MatrixXd x(rows.size(), 2);
  Eigen::VectorXd y(rows.size()), w(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double bytes = t.number(rows[i], m.window);
    const double lines = std::ceil(bytes / static_cast<double>(models::HbmSpec::kLineBytes));
    y(i) = bytes / (t.number(rows[i], m.per_cta) * 1e9);
    x(i, 0) = 1;
    x(i, 1) = models::harmonic(static_cast<std::int64_t>(lines));
    w(i) = 1 / y(i);
  }
  const FitResult f =
      least_squares(x, y, w, "W / r = a + spread x H_k (mlp_warps.csv)", {t.file(), 0, 0});
  const double spread = f.coefficients[1];
  if (spread < 0) out_of_range(t, fmt::format("hbm.latency_spread {} s", spread));
  c.write("hbm.latency_spread", ps_value(spread), spread,
          fmt::format("fit: {} lines {} (read, one CTA of one warp, k = 1 - 16 lines in flight, "
                      "mlp.cu's loops that wait once: scripts/sass_loads.py), least squares of "
                      "the wait W / r = a + spread x H_k weighted 1 / (W / r), a = {:.1f} ns, "
                      "R^2={:.6f} ({} rows)",
                      c.data_name(kMlpWarpsCsv), lines(t, rows), f.coefficients[0] * 1e9, f.r2,
                      rows.size()));
}

// Full-chip read and write rates (the rows on all SMs, net of the launch their time includes),
// and the latency the per-SM read rate on few SMs implies: bytes in flight per SM / r.
void hbm(Calibrator& c) {
  const MeasurementTable& hbm = c.table("hbm.csv");
  const std::size_t gbps = c.column(hbm, "gbps_median", Unit::gbps);
  const std::size_t threads = c.column(hbm, "threads_per_cta", Unit::none);
  // Loads: Little's law on the measuring kernel's bytes in flight gives the read latency. (Stores
  // are posted: the write rows give the SM's store rate, not a latency: sm_pipe below.)
  const auto [read_few, hf] = hbm_per_sm_rate(c, hbm, "read");
  const double per_sm = hf.coefficients[0] * 1e9;
  const double cta_threads = hbm.number(read_few.front(), threads);
  const double per_loop = cta_threads * kHbmLoadsPerThread * kHbmLoadBytes;
  const double wait = per_loop / per_sm / kHbmLoadRounds;
  // Each wait is for the latest of a warp's lines (models::HbmSpec::latest_of).
  const double lines_per_wait = kWarpThreads * kHbmLoadsPerThread * kHbmLoadBytes / kHbmLoadRounds /
                                static_cast<double>(models::HbmSpec::kLineBytes);
  const double spread = c.fitted("hbm.latency_spread").value;
  const double latency =
      wait - spread * (models::harmonic(static_cast<std::int64_t>(lines_per_wait)) - 1);
  c.write("hbm.latency", ps_value(latency), latency,
          fmt::format("fit: hbm.csv lines {} (read, 1-{:.0f} SMs), least squares gbps = r x sms, "
                      "r = {:.3f} GB/s per SM, R^2={:.6f}; a wait = bytes per loop per SM "
                      "({:.0f} B: {:.0f} threads x {:.0f} x {:.0f} B) / r / {:.0f} (the loop "
                      "waits {:.0f} times: scripts/sass_loads.py) = {:.1f} ns, for the latest of a "
                      "warp's {:.0f} lines: latency = that - hbm.latency_spread x (H_{:.0f} - 1)",
                      lines(hbm, read_few), kHbmLinearUpToSms, per_sm * 1e-9, hf.r2, per_loop,
                      cta_threads, kHbmLoadsPerThread, kHbmLoadBytes, kHbmLoadRounds,
                      kHbmLoadRounds, wait * 1e9, lines_per_wait, lines_per_wait));
  // The full-chip rows are timed by events around one launch, as launch.csv's single_event rows
  // time an empty kernel of as many CTAs: the rate is the bytes over the time less that one's.
  const int count = c.base().sm.count;
  const std::pair<const char*, const char*> ops[] = {{"read", "hbm.bandwidth"},
                                                     {"write", "hbm.write_bandwidth"}};
  Rows full;
  for (const auto& [op, parameter] : ops) {
    const Rows rows = select_all_sms(c, hbm, {{"op", op}}, {}, op);
    if (rows.size() != 1)
      out_of_range(hbm, fmt::format("expected one {} row on {} SMs for {}, found {}", op, count,
                                    parameter, rows.size()));
    full.push_back(rows[0]);
  }
  const MeasurementTable& launch = c.table("launch.csv");
  const std::size_t ctas = c.column(launch, "grid_ctas", Unit::none);
  const Rows empty = select(c, launch, {{"kernel", "empty"}, {"mode", "single_event"}},
                            [&](std::size_t r) { return launch.number(r, ctas) == count; });
  if (empty.size() != 1)
    out_of_range(launch, fmt::format("expected one empty single_event row of {} CTAs", count));
  const double empty_us =
      launch.number(empty[0], c.column(launch, "us_per_launch_median", Unit::microseconds));
  const std::size_t bytes = c.column(hbm, "bytes_moved", Unit::bytes);
  const std::size_t time = c.column(hbm, "time_us_median", Unit::microseconds);
  for (std::size_t i = 0; i < full.size(); ++i) {
    const auto [op, parameter] = ops[i];
    const double t_us = hbm.number(full[i], time);
    if (t_us <= 2 * empty_us)
      out_of_range(hbm, fmt::format("the {} row on {} SMs ({} us) is not long past an empty "
                                    "launch ({} us)",
                                    op, count, t_us, empty_us));
    const double rate = hbm.number(full[i], bytes) / ((t_us - empty_us) * 1e-6);
    c.write(parameter, bw_value(rate), rate,
            fmt::format("fit: hbm.csv line {} ({} on all {} SMs, median {:.3f} us, {:.1f} GB/s "
                        "over the whole launch): bytes / (time - launch.csv line {}'s empty "
                        "kernel of {} CTAs between the same events, {:.3f} us)",
                        hbm.line_of(full[i]), op, count, t_us, hbm.number(full[i], gbps),
                        launch.line_of(empty[0]), count, empty_us));
  }
}

// The L2's rate: a constant over working sets it holds; its size from the device properties.
void l2(Calibrator& c) {
  const MeasurementTable& l2 = c.table("l2.csv");
  const std::size_t ws = c.column(l2, "working_set_bytes", Unit::bytes);
  const Rows in_l2 =
      select(c, l2, {}, [&](std::size_t r) { return l2.number(r, ws) <= kL2WorkingSetUpTo; });
  const std::size_t gbps = c.column(l2, "gbps_median", Unit::gbps);
  const ConstantFit lf = fit_constant(l2, in_l2, gbps, "saturated gbps = B");
  c.write("l2.bandwidth", bw_value(lf.coefficients[0] * 1e9), lf.coefficients[0] * 1e9,
          fmt::format("fit: l2.csv lines {} (working sets 1-{:.0f} MiB, all SMs, 4 GiB read per "
                      "launch), least squares of the rate B (a constant), rows {:.0f}-{:.0f} GB/s",
                      lines(l2, in_l2), kL2WorkingSetUpTo / kMiB, lf.min, lf.max));
  const std::string& capacity = c.metadata(l2, "gpu0_l2_bytes");
  c.write("l2.capacity", capacity + "B", std::strtod(capacity.c_str(), nullptr),
          "measured: l2.csv metadata gpu0_l2_bytes (cudaDeviceProp::l2CacheSize)");
}

// The L2 hit latency: one CTA re-reading an L2-resident working set with the least in flight
// (mlp.csv's l2_read rows, 4 KiB per CTA, loops that wait once per iteration:
// scripts/sass_loads.py), where the rate is bytes in flight / latency.
void l2_latency(Calibrator& c) {
  const OneCtaL2Reads reads = one_cta_l2_reads(c);  // not bound: clang 14 lambdas cannot capture
  const MeasurementTable& t = reads.t;
  const std::size_t window = reads.window, gbps = reads.gbps;
  const Rows& one = reads.rows;
  double least = 0;
  for (const std::size_t r : one)
    if (least == 0 || t.number(r, window) < least) least = t.number(r, window);
  Rows fewest;
  for (const std::size_t r : one)
    if (t.number(r, window) == least) fewest.push_back(r);
  const double latency = mean_of(
      t, fewest, [&](std::size_t r) { return t.number(r, window) / (t.number(r, gbps) * 1e9); },
      "l2.hit_latency");
  c.write("l2.hit_latency", ps_value(latency), latency,
          fmt::format("fit: {} lines {} (l2_read, one CTA, {:.0f} B in flight: loops that wait "
                      "once, scripts/sass_loads.py), mean of bytes in flight / rate",
                      c.data_name(kMlpCsv), lines(t, fewest), least));
}

// How a load's latency grows with the HBM's load (hbm.queue_delay, sim/fluid.hpp's queueing):
// mlp.csv's reads on 2 - 132 CTAs against the same shape on one CTA, mlp.cu's loops that wait
// once per iteration (scripts/sass_loads.py: all but 8 B x 8 and 16 B x 8). One CTA's iteration
// takes T1 = W / r1 (W its bytes in flight, r1 its rate); on N CTAs TN = W / rN, longer by the
// queue's wait e = TN - T1 at the HBM's utilisation rho = N rN / hbm.bandwidth. The model's wait is
// c rho / (1 - rho) (M/M/1's, in units of c): c by least squares through the origin over the
// rows with 0.1 <= rho <= 0.9 (below, the wait is within the noise; above, the rate is the
// bandwidth's, not the latency's).
void hbm_queue(Calibrator& c) {
  const MlpReads m = mlp_reads(c, kMlpCsv);
  const MeasurementTable& t = m.t;
  const double bandwidth = c.fitted("hbm.bandwidth").value;
  const Rows reads = select(c, t, {{"op", "read"}}, [&](std::size_t r) { return m.waits_once(r); });
  // The one-CTA row of each shape (set, threads, width, unroll).
  std::map<std::tuple<std::string, double, double, double>, std::size_t> one;
  const auto shape = [&](std::size_t r) {
    return std::tuple{std::string(t.text(r, m.set)), t.number(r, m.threads), t.number(r, m.width),
                      t.number(r, m.unroll)};
  };
  for (const std::size_t r : reads)
    if (t.number(r, m.ctas) == 1) one[shape(r)] = r;
  Rows used;
  double sxy = 0, sxx = 0;
  for (const std::size_t r : reads) {
    const auto it = one.find(shape(r));
    if (t.number(r, m.ctas) < 2 || it == one.end()) continue;
    const double rate = t.number(r, m.per_cta) * 1e9;
    const double rho = t.number(r, m.ctas) * rate / bandwidth;
    if (rho < 0.1 || rho > 0.9) continue;
    const double w = t.number(r, m.window);
    const double wait = w / rate - w / (t.number(it->second, m.per_cta) * 1e9);
    const double x = rho / (1 - rho);
    sxy += x * wait;
    sxx += x * x;
    used.push_back(r);
  }
  if (used.size() < 2)
    out_of_range(t, "fewer than 2 reads on 2 or more CTAs at 0.1 - 0.9 of the HBM");
  const double coefficient = sxy / sxx;
  if (coefficient <= 0) out_of_range(t, fmt::format("hbm.queue_delay {} s", coefficient));
  c.write("hbm.queue_delay", ps_value(coefficient), coefficient,
          fmt::format(
              "fit: {} lines {} (reads on 2 or more CTAs at 0.1 - 0.9 of hbm.bandwidth, "
              "mlp.cu's loops that wait once: scripts/sass_loads.py), least squares through the "
              "origin of the iteration's wait beyond the same shape's on one CTA, "
              "W / r_N - W / r_1, against rho / (1 - rho), rho = N r_N / hbm.bandwidth "
              "({} rows)",
              c.data_name(kMlpCsv), lines(t, used), used.size()));
}

// TMA store-adds (bulk reduce-add, bf16 and f32) on all SMs: the peer rate against a plain bulk
// store's, and the local rate from shared memory (the L2's read-modify-write alone).
void tma_store_add(Calibrator& c) {
  const MeasurementTable& red = c.table("peer_tma_reduce.csv");
  const std::size_t gbps = c.column(red, "gbps_median", Unit::gbps);
  const std::size_t op = c.column(red, "op", Unit::none);
  auto adds = [&](bool add) {
    return [&red, op, add](std::size_t r) { return (red.text(r, op) != "store") == add; };
  };
  const int count = c.base().sm.count;
  const ConstantFit store =
      fit_constant(red, select_all_sms(c, red, {{"direction", "put"}}, adds(false), "put store"),
                   gbps, "store gbps = s");
  const Rows add_rows = select_all_sms(c, red, {{"direction", "put"}}, adds(true), "put store-add");
  const ConstantFit add = fit_constant(red, add_rows, gbps, "store-add gbps = a");
  const double ratio = add.coefficients[0] / store.coefficients[0];
  if (ratio <= 0 || ratio > 1) out_of_range(red, fmt::format("reduce efficiency {}", ratio));
  c.write("tma.reduce_efficiency", fmt::format("{:.6f}", ratio), ratio,
          fmt::format("fit: peer_tma_reduce.csv lines {} (put, {} SMs, bf16 and f32 adds, every "
                      "message size and source), least squares of the rate a (a constant) = "
                      "{:.3f} GB/s, over the bulk store's s = {:.3f} GB/s (the same rows' stores)",
                      lines(red, add_rows), count, add.coefficients[0], store.coefficients[0]));
  const Rows local = select_all_sms(c, red, {{"direction", "local"}, {"source", "smem"}},
                                    adds(true), "local store-add from shared memory");
  const ConstantFit lf = fit_constant(red, local, gbps, "local store-add gbps = l");
  c.write("l2.reduction_bandwidth", bw_value(lf.coefficients[0] * 1e9), lf.coefficients[0] * 1e9,
          fmt::format("fit: peer_tma_reduce.csv lines {} (local store-adds from shared memory, {} "
                      "SMs, bf16 and f32), least squares of the rate l (a constant), rows "
                      "{:.0f}-{:.0f} GB/s",
                      lines(red, local), count, lf.min, lf.max));
}

// One SM's memory pipe (traces/kernel/op_load_store.cpp): its rate is what one CTA loads from
// L2 with the most in flight (mlp.csv's l2_read rows; the row must be well under its window over
// the hit latency, or it would measure the latency); a stored byte's share is that over one SM's
// store rate (hbm.csv's writes on 1 - 16 SMs), a store-added byte's that over one SM's bulk
// store-add rate from shared memory (peer_tma_reduce.csv's local rows on 1 - 16 SMs), each to
// the nearest whole share (the model lists the pipe once per share on a flow's path).
namespace {

// `parameter` = memory_rate / unit_rate to the nearest whole share: how many of the SM memory
// pipe's slots one unit of the measured kind (a store, a store-add) takes.
void write_share(Calibrator& c, const MeasurementTable& t, std::string_view parameter,
                 double memory_rate, double unit_rate, const std::string& what) {
  const double ratio = memory_rate / unit_rate;
  const long whole = std::lround(ratio);
  if (whole < 1) out_of_range(t, fmt::format("{}: ratio {} below one share", parameter, ratio));
  c.write(parameter, fmt::format("{}", whole), static_cast<double>(whole),
          fmt::format("fit: memory_rate / {} = {:.1f} / {:.3f} GB/s = {:.3f}, to the nearest "
                      "whole share",
                      what, memory_rate * 1e-9, unit_rate * 1e-9, ratio));
}

}  // namespace

void sm_pipe(Calibrator& c) {
  const OneCtaL2Reads reads = one_cta_l2_reads(c);  // not bound: clang 14 lambdas cannot capture
  const MeasurementTable& t = reads.t;
  const std::size_t window = reads.window, per_cta = reads.gbps;
  const Rows& one = reads.rows;
  const std::size_t most = *std::max_element(one.begin(), one.end(), [&](auto a, auto b) {
    return t.number(a, window) < t.number(b, window);
  });
  const double rate = t.number(most, per_cta) * 1e9;
  const double hit_latency = c.fitted("l2.hit_latency").value;
  const double latency_bound = t.number(most, window) / hit_latency;
  if (rate > kPipeBoundBelow * latency_bound)
    out_of_range(t, fmt::format("the l2_read row with the most in flight ({:.0f} B) moves {:.1f} "
                                "GB/s, near its window over the hit latency ({:.1f} GB/s): it "
                                "measures the latency, not the SM's memory pipe",
                                t.number(most, window), rate * 1e-9, latency_bound * 1e-9));
  c.write("sm.memory_rate", bw_value(rate), rate,
          fmt::format("measured: {} line {} (l2_read, one CTA, {:.0f} B in flight, whose window "
                      "over l2.hit_latency would allow {:.1f} GB/s)",
                      c.data_name(kMlpCsv), t.line_of(most), t.number(most, window),
                      latency_bound * 1e-9));

  const MeasurementTable& hbm = c.table("hbm.csv");
  const auto [writes, wf] = hbm_per_sm_rate(c, hbm, "write");
  write_share(c, hbm, "sm.store_cost", rate, wf.coefficients[0] * 1e9,
              fmt::format("one SM's store rate (hbm.csv lines {}, write on 1-{:.0f} SMs, least "
                          "squares gbps = r x sms, R^2={:.6f})",
                          lines(hbm, writes), kHbmLinearUpToSms, wf.r2));
}

void sm_store_add(Calibrator& c) {
  const MeasurementTable& red = c.table("peer_tma_reduce.csv");
  const std::size_t sms = c.column(red, "sms", Unit::none);
  const std::size_t op = c.column(red, "op", Unit::none);
  const Rows adds =
      select(c, red, {{"direction", "local"}, {"source", "smem"}}, [&](std::size_t r) {
        return red.text(r, op) != "store" && red.number(r, sms) <= kHbmLinearUpToSms;
      });
  const FitResult af = fit_line(red, adds, sms, c.column(red, "gbps_median", Unit::gbps),
                                LineFit::through_origin, "gbps = r x sms");
  write_share(c, red, "sm.store_add_cost", c.fitted("sm.memory_rate").value,
              af.coefficients[0] * 1e9,
              fmt::format("one SM's bulk store-add rate from shared memory (peer_tma_reduce.csv "
                          "lines {}, local, bf16 and f32, 1-{:.0f} SMs, least squares gbps = r x "
                          "sms, R^2={:.6f})",
                          lines(red, adds), kHbmLinearUpToSms, af.r2));
}

}  // namespace mgsim::validate::fits
