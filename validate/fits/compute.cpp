// Fits of the compute side: kernel launches and the tensor pipes' sustained clock.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <variant>

#include <fmt/format.h>

#include "validate/fits/fits.hpp"

namespace mgsim::validate::fits {
namespace {

// The GEMMs the tensor clock is fitted to: large enough that every SM is busy for long.
constexpr double kLargeGemmFrom = 4096;

// The mainloop of the busiest CTA of kernel `gemm` in `gemm` (validate/cases/gemm.yaml) for an
// m x n x k GEMM on `sms` SMs: its tile (m x n) and k, the K-loops of all its tiles back to back.
// CTA 0 of the persistent grid takes tiles 0, grid, 2 x grid, ..., so it has the most.
struct Mainloop {
  std::int64_t m = 0, n = 0, k = 0;
};

Mainloop busiest_cta(const traces::Schedule& gemm, int sms, std::int64_t m, std::int64_t n,
                     std::int64_t k) {
  const int index = gemm.kernels.find("gemm");
  if (index < 0)
    throw sim::ConfigError(
        {gemm.file, 0, 0},
        "expected a kernel named 'gemm' (the GEMM the tensor clock is fitted in)");
  const traces::KernelDef& kernel = gemm.kernels.kernels[static_cast<std::size_t>(index)];
  // The GEMM runs alone, on rank 0 of a world of 1, launched with its args' defaults; CTA 0.
  traces::Env host = traces::param_values(
      gemm,
      {{"M", fmt::format("{}", m)}, {"N", fmt::format("{}", n)}, {"K", fmt::format("{}", k)}});
  host[static_cast<std::size_t>(gemm.rank_slot)] = 0;
  host[static_cast<std::size_t>(gemm.world_slot)] = 1;
  traces::Env env = traces::launch_env(kernel, host, gemm.world_slot + 1, sms, {});
  for (const traces::RoleDef& role : kernel.roles) {
    if (role.condition && role.condition->eval(env) == 0) continue;
    for (const traces::KernelOp& op : role.ops) {
      const auto* mainloop = std::get_if<traces::MainloopOp>(&op.what);
      if (mainloop && (!op.condition || op.condition->eval(env)))
        return {mainloop->m.eval(env), mainloop->n.eval(env), mainloop->k.eval(env)};
    }
  }
  throw sim::ConfigError(kernel.where,
                         fmt::format("kernel '{}' has no mainloop op on CTA 0 (the tensor-clock "
                                     "fit reads the GEMM's tiling from it)",
                                     kernel.name));
}

}  // namespace

// The launch model of models/launch.hpp and models/host.hpp from launch.csv's empty kernel, one
// mode at a time, each fit using the earlier ones. A kernel of C CTAs ends D(C) x per_cta
// after it starts (the dispatcher; the CTAs do nothing).
//   graph_back_to_back: t = graph_node + D(C) x per_cta (the GPU alone; a line in D(C));
//   host_enqueue:       t = host.launch (the host alone);
//   single_event:       t = host.launch + latency + D(C) x per_cta + launch.event (events
//                       around one launch: the stop event is written launch.event after the
//                       kernel ends, models/launch.hpp; launch.event from the base preset);
//   stream_back_to_back where the GPU binds (t > 1.1 x host.launch): t = gap + D(C) x per_cta;
//   graph_single:       t = host.graph_launch + latency + D(C) x per_cta + launch.event;
//   single_sync (host wall time): t = host.launch + latency + D(C) x per_cta + host.sync.
void launch(Calibrator& c) {
  const MeasurementTable& t = c.table("launch.csv");
  const std::size_t ctas = c.column(t, "grid_ctas", Unit::none);
  const std::size_t us = c.column(t, "us_per_launch_median", Unit::microseconds);
  auto rows = [&](std::string_view mode) {
    return select(c, t, {{"kernel", "empty"}, {"mode", mode}});
  };
  // The dispatcher starts CTAs a round of sm.count at a time, a round every sm.count x per_cta:
  // an empty kernel of C CTAs ends D(C) = (ceil(C / sm.count) - 1) x sm.count x per_cta after
  // it starts.
  const double sms = c.base().sm.count;
  auto rounds = [&](std::size_t r) { return (std::ceil(t.number(r, ctas) / sms) - 1) * sms; };
  const Rows graph = rows("graph_back_to_back");
  const auto n = static_cast<Eigen::Index>(graph.size());
  Eigen::MatrixXd x(n, 2);
  Eigen::VectorXd y(n), w(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const std::size_t r = graph[static_cast<std::size_t>(i)];
    x(i, 0) = 1.0;
    x(i, 1) = rounds(r);
    y(i) = t.number(r, us);
    w(i) = 1.0 / t.number(r, us);
  }
  const FitResult gf =
      least_squares(x, y, w, "t = graph_node + D(ctas) (launch.csv)", {t.file(), 0, 0});
  const double per_cta = gf.coefficients[1] * 1e-6;
  const double node = gf.coefficients[0] * 1e-6;
  if (per_cta <= 0 || node <= 0)
    out_of_range(
        t, fmt::format("graph fit a = {} us, d = {} us", gf.coefficients[0], gf.coefficients[1]));
  auto dispatch = [&](std::size_t r) { return rounds(r) * per_cta; };
  auto sec = [&](std::size_t r) { return t.number(r, us) * 1e-6; };
  const std::string graph_fit = fmt::format(
      "fit: launch.csv lines {} (empty kernel, graph_back_to_back), least squares t = a + D(ctas) "
      "x d weighted 1/t, D = (ceil(ctas / {:.0f}) - 1) x {:.0f} (the dispatcher's rounds of one "
      "CTA per SM), a = {:.3f} us, d = {:.4f} ns, R^2={:.6f}",
      lines(t, graph), sms, sms, gf.coefficients[0], per_cta * 1e9, gf.r2);
  c.write("launch.per_cta", ps_value(per_cta), per_cta, graph_fit, "per_cta = d");
  c.write("launch.graph_node", ps_value(node), node, graph_fit, "graph_node = a");

  const Rows enqueue = rows("host_enqueue");
  const double host = mean_of(t, enqueue, sec, "host.launch");
  c.write("host.launch", ps_value(host), host,
          fmt::format("fit: launch.csv lines {} (empty kernel, host_enqueue: host wall time per "
                      "launch call), mean",
                      lines(t, enqueue)));

  const double event = c.base().launch.event.seconds();
  const Rows single = rows("single_event");
  const double latency = mean_of(
      t, single, [&](std::size_t r) { return sec(r) - host - dispatch(r) - event; },
      "launch.latency");
  c.write("launch.latency", ps_value(latency), latency,
          fmt::format("fit: launch.csv lines {} (empty kernel, single_event: events around one "
                      "launch), mean of t - host.launch - D(ctas) x per_cta - launch.event "
                      "({:.3f} us, {})",
                      lines(t, single), event * 1e6, c.base_name()));

  const Rows b2b = select(c, t, {{"kernel", "empty"}, {"mode", "stream_back_to_back"}},
                          [&](std::size_t r) { return sec(r) > 1.1 * host; });
  const double gap = mean_of(
      t, b2b, [&](std::size_t r) { return sec(r) - dispatch(r); }, "launch.gap");
  c.write("launch.gap", ps_value(gap), gap,
          fmt::format("fit: launch.csv lines {} (empty kernel, stream_back_to_back where the GPU "
                      "binds: more than 1.1 x host.launch per launch), mean of t - D(ctas) x "
                      "per_cta",
                      lines(t, b2b)));

  const Rows gsingle = rows("graph_single");
  const double graph_launch = mean_of(
      t, gsingle, [&](std::size_t r) { return sec(r) - latency - dispatch(r) - event; },
      "host.graph_launch");
  c.write("host.graph_launch", ps_value(graph_launch), graph_launch,
          fmt::format("fit: launch.csv lines {} (empty kernel, graph_single: events around one "
                      "replay of a one-kernel graph), mean of t - launch.latency - D(ctas) x "
                      "per_cta - launch.event",
                      lines(t, gsingle)));

  const Rows sync = rows("single_sync");
  const double sync_cost = mean_of(
      t, sync, [&](std::size_t r) { return sec(r) - host - latency - dispatch(r); }, "host.sync");
  c.write("host.sync", ps_value(sync_cost), sync_cost,
          fmt::format("fit: launch.csv lines {} (empty kernel, single_sync: host wall time of a "
                      "launch and a stream synchronize), mean of t - host.launch - launch.latency "
                      "- D(ctas) x per_cta",
                      lines(t, sync)));
}

// The host's own API costs, from host_api.csv (validate/cuda/host_api.cu: host wall time per call,
// back to back, on the host that measured it):
//   host.memcpy: the mean of the device-to-device cudaMemcpyAsync rows issued back to back (every
//     size and stream count measured: the host's call rate binds them all);
//   host.event_record, host.event_record_untimed, host.stream_wait: the row of that call back to
//     back (a timing event, one without timing, a wait on a completed event).
void host_api(Calibrator& c) {
  const MeasurementTable& t = c.table("host_api.csv");
  const std::size_t us = c.column(t, "host_us_median", Unit::microseconds);
  auto sec = [&](std::size_t r) { return t.number(r, us) * 1e-6; };
  const Rows copies = select(c, t, {{"api", "cudaMemcpyAsync_d2d"}, {"mode", "back_to_back"}});
  const double memcpy = mean_of(t, copies, sec, "host.memcpy");
  c.write("host.memcpy", ps_value(memcpy), memcpy,
          fmt::format("fit: host_api.csv lines {} (device-to-device cudaMemcpyAsync back to back, "
                      "host wall time per call), mean",
                      lines(t, copies)));
  struct Call {
    std::string_view parameter, api, mode, what;
  };
  for (const Call& call :
       {Call{"host.event_record", "cudaEventRecord", "back_to_back_timing", "a timing event"},
        Call{"host.event_record_untimed", "cudaEventRecord", "back_to_back_disable_timing",
             "cudaEventDisableTiming"},
        Call{"host.stream_wait", "cudaStreamWaitEvent", "back_to_back_completed_event",
             "on a completed event"}}) {
    const Rows r = select(c, t, {{"api", call.api}, {"mode", call.mode}});
    if (r.size() != 1)
      out_of_range(t, fmt::format("expected one {} / {} row", call.api, call.mode));
    c.write(call.parameter, ps_value(sec(r[0])), sec(r[0]),
            fmt::format("measured: host_api.csv line {} ({} back to back, {}, host median)",
                        t.line_of(r[0]), call.api, call.what));
  }
}

// The tensor pipes' rate at sm.clock. Large cuBLAS GEMMs run at the power cap (the SM clock read
// after them is 1425-1980 MHz, docs/MEASUREMENTS.md caveat 1): each row's time is scaled by its
// own clock (models/power.hpp: the pipes' rate goes with it). Fitted in the kernel model's terms,
// the GEMM schedule of validate/cases/gemm.yaml on the base preset's SMs: the busiest SM computes
// its mainloop's 2 x m x n x k flops, then the epilogue writes C (m x n x 2 B) to HBM at
// hbm.bandwidth; t - epilogue = a + busiest-SM flops / r, and tensor_clock = r /
// flops_per_cycle_bf16 (the base preset's).
void tensor_clock(Calibrator& c) {
  const MeasurementTable& gemm = c.table("gemm.csv");
  const traces::Schedule schedule = c.case_schedule("gemm.yaml");
  const models::HardwareSpec& base_hw = c.base();
  const std::size_t m = c.column(gemm, "m", Unit::none), n = c.column(gemm, "n", Unit::none),
                    k = c.column(gemm, "k", Unit::none);
  const std::size_t tcol = c.column(gemm, "time_us_median", Unit::microseconds);
  const std::size_t fcol = c.column(gemm, "sm_clock_mhz_end", Unit::mhz);
  const double max_mhz = static_cast<double>(base_hw.sm.clock.hertz()) * 1e-6;
  const Rows big = select(c, gemm, {{"dtype", "bf16"}}, [&](std::size_t r) {
    return gemm.number(r, m) >= kLargeGemmFrom && gemm.number(r, n) >= kLargeGemmFrom &&
           gemm.number(r, k) >= kLargeGemmFrom;
  });
  const int sms = base_hw.sm.count;
  const double hbm_read_rate = c.fitted("hbm.bandwidth").value;
  const auto rows_n = static_cast<Eigen::Index>(big.size());
  Eigen::MatrixXd x(rows_n, 2);
  Eigen::VectorXd y(rows_n), w(rows_n);
  Mainloop tile;  // the first row's; the fit's statement needs one tiling for all rows
  for (Eigen::Index i = 0; i < rows_n; ++i) {
    const std::size_t r = big[static_cast<std::size_t>(i)];
    const Mainloop cta =
        busiest_cta(schedule, sms, std::llround(gemm.number(r, m)), std::llround(gemm.number(r, n)),
                    std::llround(gemm.number(r, k)));
    if (i == 0) tile = cta;
    if (cta.m != tile.m || cta.n != tile.n)
      throw sim::ConfigError(
          {gemm.file(), gemm.line_of(r), 0},
          fmt::format("{} tiles this GEMM {} x {}, the first fitted row {} x {}: the tensor-clock "
                      "fit states one tiling",
                      schedule.file, cta.m, cta.n, tile.m, tile.n));
    // The row ran at its clock f, its tensor pipes at r x f / sm.clock.
    const double f = gemm.number(r, fcol);
    if (!(f > 0 && f <= max_mhz))
      out_of_range(gemm, fmt::format("line {}: SM clock {} MHz", gemm.line_of(r), f));
    x(i, 0) = 1.0;
    x(i, 1) = static_cast<double>(2 * cta.m * cta.n * cta.k) * max_mhz / f;
    const double epilogue_us = gemm.number(r, m) * gemm.number(r, n) * 2 / hbm_read_rate * 1e6;
    y(i) = gemm.number(r, tcol) - epilogue_us;
    w(i) = 1.0 / gemm.number(r, tcol);
  }
  const FitResult gf =
      least_squares(x, y, w, "t = a + busiest-SM flops / r (gemm.csv)", {gemm.file(), 0, 0});
  const double per_sm = 1e6 / gf.coefficients[1];  // flop/s of one SM
  const double clock = per_sm / static_cast<double>(base_hw.sm.flops_per_cycle_bf16);
  if (clock <= 0 || clock > 2.5e9) out_of_range(gemm, fmt::format("tensor clock {} Hz", clock));
  c.write("sm.tensor_clock", fmt::format("{:.3f}MHz", clock * 1e-6), clock,
          fmt::format("fit: gemm.csv lines {} (bf16, m, n, k >= {:.0f}), least squares t - m x n x "
                      "2 B / hbm.bandwidth (the epilogue's C store) = a + F x sm.clock / f / r "
                      "weighted 1/t with F = the busiest SM's flops (ceil(tiles / {}) x 2 x {} x "
                      "{} x k, the {} x {} persistent tiling of validate/cases/gemm.yaml) and f "
                      "the row's SM clock (sm_clock_mhz_end, under the power cap), r = {:.3f} "
                      "TFLOP/s per SM at sm.clock, a = {:.2f} us, R^2={:.6f}; tensor_clock = r / "
                      "{} flops per cycle: the tensor pipes' rate at sm.clock with cuBLAS's issue "
                      "efficiency, {:.1f} % of the datasheet's",
                      lines(gemm, big), kLargeGemmFrom, sms, tile.m, tile.n, tile.m, tile.n,
                      per_sm * 1e-12, gf.coefficients[0], gf.r2, base_hw.sm.flops_per_cycle_bf16,
                      100 * clock / static_cast<double>(base_hw.sm.tensor_clock.hertz())));
}

}  // namespace mgsim::validate::fits
