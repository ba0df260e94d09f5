// Fits of the NVLink port and of the three ways to drive it (copy engine, ld/st, TMA).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "validate/fits/fits.hpp"

namespace mgsim::validate::fits {
namespace {

// Facts of the measuring kernels (validate/cuda), needed to turn a rate into in-flight bytes.
constexpr double kTmaMessageBytes = 32768;  // peer_sm.cu: 32 KiB bulk copies
constexpr double kGiB = 1073741824.0;
// The per-SM rate is fitted where it is linear in SMs, the saturated rate where it is flat.
constexpr double kLinearUpToSms = 4;
constexpr double kSaturatedFromSms = 16;

// NVLink per-link rate as nvidia-smi reports it (system/nvlink_status.txt): "Link 0: 26.562 GB/s".
double nvlink_link_rate(const std::string& path, int& links) {
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

// An SM-driven peer path (peer_ldst.csv, peer_tma.csv): the saturated rate s of 1 GiB put/get
// transfers from 16 SMs up; writes `section`.nvlink_efficiency = s / copy_engine.bandwidth.
void fit_peer_efficiency(Calibrator& c, const std::string& name, std::string_view section) {
  const MeasurementTable& t = c.table(name);
  const std::size_t sms = c.column(t, "sms", Unit::none);
  const std::size_t bytes = c.column(t, "bytes", Unit::bytes);
  const std::size_t gbps = c.column(t, "gbps_median", Unit::gbps);
  const std::size_t dir = c.column(t, "direction", Unit::none);
  const Rows many = select(c, t, {}, [&](std::size_t r) {
    return t.number(r, bytes) == kGiB && (t.text(r, dir) == "put" || t.text(r, dir) == "get") &&
           t.number(r, sms) >= kSaturatedFromSms;
  });
  const ConstantFit sf = fit_constant(t, many, gbps, "saturated gbps = s");
  const double b = c.fitted("copy_engine.bandwidth").value;
  const double eff = sf.coefficients[0] * 1e9 / b;
  if (eff <= 0 || eff > 1)
    out_of_range(t, fmt::format("{} efficiency {} outside (0, 1]", section, eff));
  const auto [lo, hi] = std::minmax_element(many.begin(), many.end(), [&](auto x, auto y) {
    return t.number(x, sms) < t.number(y, sms);
  });
  c.write(fmt::format("{}.nvlink_efficiency", section), fmt::format("{:.6f}", eff), eff,
          fmt::format("fit: {} lines {} (1 GiB put/get, {:.0f}-{:.0f} SMs), least squares of the "
                      "saturated rate s (a constant) = {:.3f} GB/s, efficiency = s / "
                      "copy_engine.bandwidth {:.3f} GB/s",
                      name, lines(t, many), t.number(*lo, sms), t.number(*hi, sms),
                      sf.coefficients[0], b * 1e-9));
}

// The per-SM rate r of 1 GiB `direction` transfers on 1 - `up_to` SMs (linear there).
struct PerSm {
  Rows rows;
  FitResult fit;
  double rate = 0;  // B/s
};
PerSm per_sm_rate(Calibrator& c, const MeasurementTable& t, std::string_view direction,
                  double up_to) {
  const std::size_t sms = c.column(t, "sms", Unit::none);
  const std::size_t bytes = c.column(t, "bytes", Unit::bytes);
  const Rows rows = select(c, t, {{"direction", direction}}, [&](std::size_t r) {
    return t.number(r, bytes) == kGiB && t.number(r, sms) <= up_to;
  });
  FitResult fit = fit_line(t, rows, sms, c.column(t, "gbps_median", Unit::gbps),
                           LineFit::through_origin, "gbps = r x sms");
  const double rate = fit.coefficients[0] * 1e9;
  return {rows, std::move(fit), rate};
}

}  // namespace

// One-way flag latency: a store over NVLink polled locally (the pattern a signal/wait pair uses).
void nvlink_latency(Calibrator& c) {
  const MeasurementTable& flag = c.table("flag.csv");
  const Rows fr = select(c, flag, {{"location", "write_remote_poll_local"}, {"sync", "volatile"}});
  if (fr.size() != 1) out_of_range(flag, "expected one write_remote_poll_local/volatile row");
  const double latency =
      flag.number(fr[0], c.column(flag, "one_way_us_median", Unit::microseconds)) * 1e-6;
  c.write("nvlink.latency", ps_value(latency), latency,
          fmt::format("measured: flag.csv line {}, one-way volatile flag (remote store, local "
                      "poll) = round trip / 2",
                      flag.line_of(fr[0])));
}

// The flag model of models/sync.hpp from flag.csv's one-way times (round trip / 2):
//   flag_latency = same_gpu, volatile (a store and a poll on one GPU);
//   remote_poll = write_local_poll_remote, volatile, less nvlink.latency (the remote write's
//     one-way time, polled locally): what polling over the fabric adds;
//   atomic = the mean over the three locations of atomic less volatile.
void flags(Calibrator& c) {
  const MeasurementTable& flag = c.table("flag.csv");
  const std::size_t one_way = c.column(flag, "one_way_us_median", Unit::microseconds);
  auto row = [&](std::string_view location, std::string_view sync) {
    const Rows r = select(c, flag, {{"location", location}, {"sync", sync}});
    if (r.size() != 1) out_of_range(flag, fmt::format("expected one {} / {} row", location, sync));
    return r[0];
  };
  auto us = [&](std::size_t r) { return flag.number(r, one_way) * 1e-6; };
  const std::size_t same = row("same_gpu", "volatile");
  c.write("sync.flag_latency", ps_value(us(same)), us(same),
          fmt::format("measured: flag.csv line {}, one-way volatile flag between two CTAs of one "
                      "GPU (round trip / 2)",
                      flag.line_of(same)));
  const std::size_t remote = row("write_local_poll_remote", "volatile");
  const double poll = us(remote) - c.fitted("nvlink.latency").value;
  if (poll < 0) out_of_range(flag, fmt::format("remote poll {} s", poll));
  c.write("sync.remote_poll", ps_value(poll), poll,
          fmt::format("fit: flag.csv line {} (local store, remote poll, volatile: one way {:.4f} "
                      "us) less nvlink.latency",
                      flag.line_of(remote), us(remote) * 1e6));
  Rows atomics;
  double extra = 0;
  for (const char* location : {"write_remote_poll_local", "write_local_poll_remote", "same_gpu"}) {
    const std::size_t a = row(location, "atomic");
    atomics.push_back(a);
    extra += us(a) - us(row(location, "volatile"));
  }
  extra /= 3;
  if (extra < 0) out_of_range(flag, fmt::format("atomic flag write costs {} s", extra));
  c.write("sync.atomic", ps_value(extra), extra,
          fmt::format("fit: flag.csv lines {} (atomic) against the volatile rows, mean of the "
                      "one-way differences",
                      lines(flag, atomics)));
}

namespace {

// sync.fence_far (see fences()).
void far_partition(Calibrator& c) {
  const MeasurementTable& t = c.table(kSmGroupsCsv);
  const std::size_t probe = c.column(t, "probe", Unit::none);
  const Rows rows =
      select(c, t, {{"test", "fence_gpu"}, {"set", "alone"}, {"unit", "ns_per_iter"}});
  if (rows.size() < 2) out_of_range(t, "fewer than two fence_gpu alone rows (one per SM)");
  const auto [lo, hi] = std::ranges::minmax_element(
      rows, std::less{}, [&](std::size_t r) { return t.number(r, probe); });
  const double near_ns = t.number(*lo, probe), far_ns = t.number(*hi, probe);
  const double extra = (far_ns - near_ns) * 1e-9;
  c.write("sync.fence_far", ps_value(extra), extra,
          fmt::format("fit: {} lines {} (fence_gpu, each SM alone fencing its word): the slowest "
                      "SM (line {}, {:.1f} ns) - the fastest (line {}, {:.1f} ns)",
                      c.data_name(kSmGroupsCsv), lines(t, rows), t.line_of(*hi), far_ns,
                      t.line_of(*lo), near_ns));
}

}  // namespace

// The fence model of models/sync.hpp, by scope, from fence.csv's rows on one SM whose warps fence
// together (one CTA of 32-1024 threads, each thread storing and fencing, then a barrier, in a
// loop; fence_ns = the loop's time per iteration over the same loop without the fence), as a
// kernel fences before it signals:
//   fence_<scope> = the one-warp row (32 threads), or 0 if the fence made the loop no slower
//     (at cta scope it makes it faster: the fence changes how the store and the barrier retire);
//   fence_<scope>_per_warp = the 32-warp row / 32 (the SM's fence throughput, where it binds);
//   fence_round_warps = the most warps (1, 2, 4, ... 32) that fence, at gpu and at system scope,
//     within 10 % of one warp's time, every smaller count too (the warps of one round);
//   fence_<scope>_round (gpu, system) = the row of twice that many warps - the one-warp row: the
//     warps too many for the first round take the next (fence_warps_timeline.csv says how far
//     apart rounds start when warps out of step alternate them: scripts/fence_rounds.py);
//   fence_far = from sm_groups.csv's rows of each SM alone fencing its word: the slowest SM's
//     fence - the fastest's. A kernel fencing on many CTAs ends with its slowest, so the far
//     partition costs what the farthest SM pays, not the mean of the far SMs.
void fences(Calibrator& c) {
  const MeasurementTable& t = c.table(kFenceCsv);
  const std::size_t threads = c.column(t, "threads_per_cta", Unit::none);
  const std::size_t ctas = c.column(t, "ctas", Unit::none);
  const std::size_t fence = c.column(t, "fence_ns", Unit::nanoseconds);
  constexpr double kWarp = 32;
  // The one-CTA, warps-together row of `scope` with `warps` warps.
  auto row_of = [&](const char* scope, double warps) {
    const Rows rows = select(c, t, {{"scope", scope}, {"warps", "together"}}, [&](std::size_t r) {
      return t.number(r, ctas) == 1 && t.number(r, threads) == warps * kWarp;
    });
    if (rows.size() != 1)
      out_of_range(t, fmt::format("expected one {} fence row of {} warps together on one CTA",
                                  scope, warps));
    return rows.front();
  };
  constexpr double kSameAsOne = 1.1;
  double round_warps = kWarp;
  for (const char* scope : {"gpu", "system"}) {
    const double one = t.number(row_of(scope, 1), fence);
    double w = 1;
    while (w < kWarp && t.number(row_of(scope, 2 * w), fence) <= kSameAsOne * one) w *= 2;
    round_warps = std::min(round_warps, w);
  }
  if (round_warps >= kWarp) out_of_range(t, "32 warps fence in one warp's time: no second round");
  c.write("sync.fence_round_warps", fmt::format("{}", round_warps), round_warps,
          fmt::format("fit: {} lines {}-{} and {}-{} (gpu and system scope, warps together, one "
                      "CTA of 32-1024 threads): the most warps fencing within {:.0f} % of one "
                      "warp's time, every smaller count too",
                      c.data_name(kFenceCsv), t.line_of(row_of("gpu", 1)),
                      t.line_of(row_of("gpu", kWarp)), t.line_of(row_of("system", 1)),
                      t.line_of(row_of("system", kWarp)), (kSameAsOne - 1) * 100));
  for (const char* scope : {"gpu", "system"}) {
    const std::size_t one = row_of(scope, 1), next = row_of(scope, 2 * round_warps);
    const double round = (t.number(next, fence) - t.number(one, fence)) * 1e-9;
    c.write(fmt::format("sync.fence_{}_round", scope), ps_value(round), round,
            fmt::format("fit: {} line {} ({} scope, {:.0f} warps together, one CTA: {:.3f} ns) - "
                        "line {} (one warp: {:.3f} ns): the warps past one round's take the next",
                        c.data_name(kFenceCsv), t.line_of(next), scope, 2 * round_warps,
                        t.number(next, fence), t.line_of(one), t.number(one, fence)));
  }
  for (const char* scope : {"cta", "gpu", "system"}) {
    const std::size_t one = row_of(scope, 1), all = row_of(scope, kWarp);
    const double one_s = std::max(0.0, t.number(one, fence) * 1e-9);
    const double per_warp = std::max(0.0, t.number(all, fence) * 1e-9) / kWarp;
    const std::string name = fmt::format("sync.fence_{}", scope);
    c.write(name, ps_value(one_s), one_s,
            fmt::format("measured: {} line {} ({} scope, warps together, one CTA of 32 threads: "
                        "{:.3f} ns{})",
                        c.data_name(kFenceCsv), t.line_of(one), scope, t.number(one, fence),
                        one_s == 0 ? ", no slower than without the fence" : ""));
    c.write(name + "_per_warp", ps_value(per_warp), per_warp,
            fmt::format("fit: {} line {} ({} scope, warps together, one CTA of 1024 threads: "
                        "{:.3f} ns) / 32 warps",
                        c.data_name(kFenceCsv), t.line_of(all), scope, t.number(all, fence)));
  }
  far_partition(c);
}

namespace {

// How many of one GPU's copies its engines run at once: one message cut over k streams of GPU 0
// and copied back to back (`0to1_splitK`, stream mode) against one stream's back-to-back copies
// of the pieces' size, t1 each (an engine's setup and latency s = t1 - piece / b, then the
// transfer). With n engines a round of k pieces takes the longest of: the engines' rounds,
// ceil(k / n) x t1; one setup and the k pieces through the port, s + k piece / b; the host's k
// calls, k x host.memcpy. The n in 1 .. k whose times are nearest the measured ones (least
// squares of the log ratio; the fewest engines on a tie), over the split rows whose one-stream
// piece row exists and is engine-bound (slower than the host's call).
void copy_engine_count(Calibrator& c, const MeasurementTable& ce, double host, double b) {
  const std::size_t dir = c.column(ce, "direction", Unit::none);
  const std::size_t streams = c.column(ce, "streams", Unit::none);
  const std::size_t bytes = c.column(ce, "bytes", Unit::bytes);
  const std::size_t us = c.column(ce, "us_per_copy_median", Unit::microseconds);
  const Rows one =
      select(c, ce, {{"direction", "0to1_push"}, {"mode", "stream"}, {"streams", "1"}});
  auto one_stream = [&](double piece) -> std::optional<std::size_t> {
    for (std::size_t r : one)
      if (ce.number(r, bytes) == piece) return r;
    return std::nullopt;
  };
  struct Row {
    double k, piece, t1, measured;
  };
  std::vector<Row> rows;
  Rows split, matched;
  for (std::size_t r : select(c, ce, {{"mode", "stream"}}, [&](std::size_t r) {
         return ce.text(r, dir).rfind("0to1_split", 0) == 0;
       })) {
    const double k = ce.number(r, streams);
    const double piece = ce.number(r, bytes) / k;
    const std::optional<std::size_t> p = one_stream(piece);
    if (!p || ce.number(*p, us) * 1e-6 <= host) continue;
    rows.push_back({k, piece, ce.number(*p, us) * 1e-6, ce.number(r, us) * 1e-6});
    split.push_back(r);
    matched.push_back(*p);
  }
  if (rows.empty())
    out_of_range(ce,
                 "no 0to1_split row in stream mode whose pieces have an engine-bound "
                 "one-stream row (0to1_push, stream, the piece's bytes, slower than the "
                 "host's call)");
  auto time = [&](const Row& w, double n) {
    const double setup = w.t1 - w.piece / b;
    return std::max({std::ceil(w.k / n) * w.t1, setup + w.k * w.piece / b, w.k * host});
  };
  double most = 0;
  for (const Row& w : rows) most = std::max(most, w.k);
  double best = 1, best_error = -1;
  std::vector<std::string> each;
  for (double n = 1; n <= most; ++n) {
    double error = 0;
    std::vector<std::string> times;
    times.reserve(rows.size());
    for (const Row& w : rows) {
      const double t = time(w, n);
      error += std::pow(std::log(t / w.measured), 2);
      times.push_back(fmt::format("{:.2f}", t * 1e6));
    }
    each.push_back(fmt::format("{:.0f}: {} us", n, fmt::join(times, ", ")));
    if (best_error < 0 || error < best_error) {
      best = n;
      best_error = error;
    }
  }
  std::vector<std::string> measured;
  measured.reserve(rows.size());
  for (const Row& w : rows) measured.push_back(fmt::format("{:.2f}", w.measured * 1e6));
  c.write("copy_engine.count", fmt::format("{}", best), best,
          fmt::format("fit: peer_ce.csv lines {} (one message over k streams of GPU 0, back to "
                      "back: {} us per round of k pieces) against lines {} (one stream's copies of "
                      "the pieces' size, t1), a round with n engines the longest of ceil(k / n) "
                      "t1, setup + k piece / copy_engine.bandwidth and k host.memcpy (n = {}); "
                      "the nearest in log",
                      lines(ce, split), fmt::join(measured, ", "), lines(ce, matched),
                      fmt::join(each, "; ")));
}

}  // namespace

// Copy-engine copies from peer_ce.csv, the host's share first:
//   host.memcpy: pushes back to back (`stream` mode) up to 256 KiB, where the host's call rate
//     binds (the engine would take under 3 us), mean time per copy;
//   one push by one engine, events around it: t = host.memcpy + setup + nvlink.latency + bytes/b,
//     least squares t = a + bytes / b; setup = a - host.memcpy - nvlink.latency;
//   one pull, events around it, up to 256 KiB (where the setup is most of the time):
//     pull_setup = mean of t - host.memcpy - nvlink.latency - bytes / b.
void copy_engine(Calibrator& c) {
  const MeasurementTable& ce = c.table("peer_ce.csv");
  const std::size_t bytes = c.column(ce, "bytes", Unit::bytes);
  const std::size_t us = c.column(ce, "us_per_copy_median", Unit::microseconds);
  const double latency = c.fitted("nvlink.latency").value;
  const Rows hr = select(c, ce, {{"mode", "stream"}, {"streams", "1"}}, [&](std::size_t r) {
    const std::string& d = ce.text(r, c.column(ce, "direction", Unit::none));
    return (d == "0to1_push" || d == "1to0_push") && ce.number(r, bytes) <= 256 * 1024;
  });
  const ConstantFit hf = fit_constant(ce, hr, us, "host-bound copy = m");
  const double host = hf.coefficients[0] * 1e-6;
  c.write("host.memcpy", ps_value(host), host,
          fmt::format("fit: peer_ce.csv lines {} (pushes back to back, stream mode, 1 KiB - "
                      "256 KiB: the host's call rate binds), least-squares constant = {:.3f} us "
                      "(rows {:.3f} - {:.3f} us)",
                      lines(ce, hr), host * 1e6, hf.min, hf.max));

  const Rows cr = select(c, ce, {{"direction", "0to1_push"}, {"mode", "single"}, {"streams", "1"}});
  const FitResult cf = fit_line(ce, cr, bytes, us, LineFit::intercept_relative, "t = a + bytes/b");
  const double a = cf.coefficients[0] * 1e-6;
  const double b = 1e6 / cf.coefficients[1];
  const double setup = a - host - latency;
  if (cf.coefficients[1] <= 0 || setup < 0)
    out_of_range(ce,
                 fmt::format("copy-engine fit gives a = {} s, 1/b = {}", a, cf.coefficients[1]));
  const std::string ce_fit = fmt::format(
      "fit: peer_ce.csv lines {} (0to1_push, single, 1 stream), least squares t = a + bytes/b "
      "weighted 1/t, a = {:.3f} us, b = {:.3f} GB/s, R^2={:.6f}",
      lines(ce, cr), a * 1e6, b * 1e-9, cf.r2);
  c.write("copy_engine.setup", ps_value(setup), setup, ce_fit,
          "setup = a - host.memcpy - nvlink.latency (the call, then the route's latency)");
  c.write("copy_engine.bandwidth", bw_value(b), b, ce_fit,
          "one engine reaches the port rate (splitting over streams never helps, "
          "docs/MEASUREMENTS.md)");

  const Rows pr = select(c, ce, {{"direction", "0to1_pull"}, {"mode", "single"}},
                         [&](std::size_t r) { return ce.number(r, bytes) <= 256 * 1024; });
  const double pull = mean_of(
      ce, pr,
      [&](std::size_t r) {
        return ce.number(r, us) * 1e-6 - host - latency - ce.number(r, bytes) / b;
      },
      "copy_engine.pull_setup");
  c.write("copy_engine.pull_setup", ps_value(pull), pull,
          fmt::format("fit: peer_ce.csv lines {} (0to1_pull, single, 1 KiB - 256 KiB), mean of t - "
                      "host.memcpy - nvlink.latency - bytes / copy_engine.bandwidth",
                      lines(ce, pr)));
  copy_engine_count(c, ce, host, b);
}

// The port: links x the link rate nvidia-smi reports; the protocol efficiency is what the copy
// engine, which reaches the port rate, gets of it.
void nvlink_port(Calibrator& c) {
  const std::string path = c.data_path("system/nvlink_status.txt");
  int links = 0;
  const double link_rate = nvlink_link_rate(path, links);
  c.write("nvlink.link_bandwidth", bw_value(link_rate), link_rate,
          fmt::format("measured: system/nvlink_status.txt, {} links of GPU 0 at {:.3f} GB/s each "
                      "(nvidia-smi nvlink -s)",
                      links, link_rate * 1e-9));
  const Fitted& b = c.fitted("copy_engine.bandwidth");
  const double protocol = b.value / (links * link_rate);
  if (protocol <= 0 || protocol > 1)
    throw sim::ConfigError({path, 0, 0},
                           fmt::format("calibration failed: protocol efficiency {} (the copy "
                                       "engine's {:.3f} GB/s over the port) outside (0, 1]",
                                       protocol, b.value * 1e-9));
  c.write("nvlink.protocol_efficiency", fmt::format("{:.6f}", protocol), protocol, b.statement,
          fmt::format("efficiency = b / ({} x {:.3f} GB/s)", links, link_rate * 1e-9));
}

// ld/st: the saturated rate only; what one SM keeps in flight is the kernel's (threads x vector
// x unroll, traces/kernel/op_load_store.cpp), not a fitted number.
void peer_ldst(Calibrator& c) { fit_peer_efficiency(c, "peer_ldst.csv", "ldst"); }

// TMA: the saturated rate; the messages a bulk store keeps in flight, from puts on 1 - 4 SMs
// (r x L in the measuring kernel's 32 KiB messages, L = the route's round trip, 2 x
// nvlink.latency: the kernel model holds a store's bytes until the peer acknowledges them; its
// loads run 5 ahead, declared in validate/cases/peer_tma.yaml). (Its local copies are
// predicted, from the SM's memory pipe: fits::sm_pipe.)
void peer_tma(Calibrator& c) {
  fit_peer_efficiency(c, "peer_tma.csv", "tma");
  const MeasurementTable& t = c.table("peer_tma.csv");
  const PerSm put = per_sm_rate(c, t, "put", kLinearUpToSms);
  const double round_trip = 2 * c.fitted("nvlink.latency").value;
  const double msgs = put.rate * round_trip / kTmaMessageBytes;
  const long m = std::max(1L, std::lround(msgs));
  c.write("tma.messages_in_flight", fmt::format("{}", m), static_cast<double>(m),
          fmt::format("fit: peer_tma.csv lines {} (1 GiB put, 1-{:.0f} SMs), least squares gbps = "
                      "r x sms, r = {:.3f} GB/s per SM, R^2={:.6f}; in flight = r x L, L = "
                      "2 x nvlink.latency = {:.1f} ns (a store holds its bytes until the peer "
                      "acknowledges them), = {:.2f} messages of 32 KiB (the measuring kernel's "
                      "size), rounded",
                      lines(t, put.rows), kLinearUpToSms, put.rate * 1e-9, put.fit.r2,
                      round_trip * 1e9, msgs));
  // The kernel model sizes a TMA op's messages as min(bytes, max_message); the count above is of
  // the measuring kernel's 32 KiB messages, so the message must be that size too.
  c.write("tma.max_message", fmt::format("{}B", static_cast<long long>(kTmaMessageBytes)),
          kTmaMessageBytes,
          "measured: the message (bulk-copy chunk) the measuring kernel issues, kTmaChunk in "
          "validate/cuda/kernels.cuh; the kernel model pipelines messages_in_flight messages of "
          "min(bytes, max_message), so in-flight bytes = messages_in_flight x this size, as "
          "fitted");
}

}  // namespace mgsim::validate::fits
