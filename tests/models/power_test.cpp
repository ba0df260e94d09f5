// models::PowerGovernor: the SM clock follows the board power's average against the limit.
// Expected values come from the model's closed forms (models/power.hpp): a constant load P at
// sm.clock from an average A0 reaches the limit L after window x ln((P - A0) / (P - L)), and
// under the limit the clock x (a fraction of sm.clock) solves static + hbm + T x^3 = L, where T
// is the tensor pipes' power at sm.clock.
#include "models/power.hpp"

#include <cmath>
#include <optional>
#include <vector>

#include <catch2/catch.hpp>

#include "models/gpu.hpp"
#include "sim/engine.hpp"
#include "sim/fluid.hpp"

namespace mgsim::models {
namespace {

HardwareSpec governed_spec() {
  HardwareSpec hw;
  hw.sm.count = 4;
  hw.copy_engine.count = 1;
  hw.nvlink.links = 0;
  hw.power.limit = sim::Power::watts(100);
  hw.power.idle = sim::Power::watts(10);
  hw.power.static_power = sim::Power::watts(20);
  hw.power.tensor_energy = sim::Energy::attojoules(5'000'000);  // 5 pJ
  hw.power.hbm_energy = sim::Energy::attojoules(100'000'000);   // 100 pJ
  hw.power.window = sim::Duration::ms(10);
  return hw;
}

// Every SM's tensor pipe kept busy (a compute-bound kernel), the clock sampled every 10 us.
struct Bench {
  sim::Engine engine;
  sim::FluidNetwork net{engine};
  HardwareSpec hw = governed_spec();
  Gpu gpu{0, hw, net, nullptr};
  std::optional<PowerGovernor> governor;
  std::vector<std::pair<double, double>> clock;  // (ms, clock / sm.clock)

  explicit Bench(PowerStart start) {
    gpu.create_sm_pipes();
    governor.emplace(gpu, engine, start);
    gpu.set_governor(&*governor);
  }
  // T: the tensor pipes' power at sm.clock, all of them busy.
  double tensor_watts() const {
    return hw.power.tensor_energy.joules() * 4.0 *
           static_cast<double>(hw.sm.flops_per_second(Dtype::bf16));
  }
  void run_kernel(sim::Duration length) {
    gpu.kernel_started();
    std::vector<sim::FlowId> flows;
    for (int s = 0; s < hw.sm.count; ++s) {
      const sim::ResourceId pipe = gpu.pipe(s, Dtype::bf16);
      flows.push_back(
          net.start_flow({&pipe, 1}, sim::Bytes(std::int64_t{1} << 60), std::nullopt, [] {}));
    }
    const sim::Time end = engine.now() + length;
    for (sim::Time t = engine.now(); t < end; t += sim::Duration::us(10)) {
      engine.run_until(t);
      clock.emplace_back(t.since_start().microseconds() * 1e-3, gpu.clock_scale());
    }
    engine.run_until(end);
    for (const sim::FlowId f : flows) net.cancel_flow(f);
    gpu.kernel_ended();
  }
  // When the clock first went below sm.clock (ms), or -1.
  double first_capped() const {
    for (const auto& [ms, x] : clock)
      if (x < 1.0) return ms;
    return -1;
  }
};

TEST_CASE("from idle, the clock stays at sm.clock until the average reaches the limit",
          "[models][power]") {
  Bench b(PowerStart::idle);
  b.run_kernel(sim::Duration::ms(60));
  const PowerSpec& p = b.hw.power;
  const double load = p.static_power.watts() + b.tensor_watts();
  REQUIRE(load > p.limit.watts());
  const double expected_ms =
      p.window.microseconds() * 1e-3 *
      std::log((load - p.idle.watts()) / (load - p.limit.watts()));  // 8.28 ms here
  const double step_ms = p.window.microseconds() * 1e-3 / 64;
  const double first = b.first_capped();
  INFO("boost ends at " << first << " ms, closed form " << expected_ms << " ms");
  CHECK(first >= expected_ms - 2 * step_ms);
  CHECK(first <= expected_ms + step_ms);
  // Then the clock where static + T x^3 = limit.
  const double steady = std::cbrt((p.limit.watts() - p.static_power.watts()) / b.tensor_watts());
  CHECK(b.clock.back().second == Approx(steady).epsilon(0.002));
  CHECK(b.governor->finish().min_clock < b.hw.sm.clock);
  CHECK(b.gpu.clock_scale() == 1.0);  // the run's roofline sees the peak again
}

TEST_CASE("a run that starts at the limit finds its clock after the first step",
          "[models][power]") {
  Bench b(PowerStart::limit);
  b.run_kernel(sim::Duration::ms(2));
  const PowerSpec& p = b.hw.power;
  const double steady = std::cbrt((p.limit.watts() - p.static_power.watts()) / b.tensor_watts());
  const double step_ms = p.window.microseconds() * 1e-3 / 64;
  CHECK(b.first_capped() <= step_ms + 0.01);
  CHECK(b.clock.back().second == Approx(steady).epsilon(0.002));
}

TEST_CASE("HBM traffic takes part of the power the clock had", "[models][power]") {
  Bench b(PowerStart::limit);
  const sim::ResourceId hbm = b.gpu.hbm();
  const sim::Bandwidth rate = sim::Bandwidth::GBps(200);  // 100 pJ x 200 GB/s = 20 W
  b.net.start_flow({&hbm, 1}, sim::Bytes(std::int64_t{1} << 50), rate, [] {});
  b.run_kernel(sim::Duration::ms(3));
  const PowerSpec& p = b.hw.power;
  const double hbm_w = p.hbm_energy.joules() * static_cast<double>(rate.bytes_per_second());
  const double steady =
      std::cbrt((p.limit.watts() - p.static_power.watts() - hbm_w) / b.tensor_watts());
  CHECK(b.clock.back().second == Approx(steady).epsilon(0.002));
}

TEST_CASE("a short kernel stays at sm.clock and an idle gap lets the average fall back",
          "[models][power]") {
  Bench b(PowerStart::idle);
  b.run_kernel(sim::Duration::ms(5));  // ends before the 8.28 ms the limit needs
  CHECK(b.first_capped() < 0);
  const double after_first = b.governor->average_watts();
  CHECK(after_first > b.hw.power.idle.watts());
  b.engine.schedule_in(sim::Duration::ms(100), [] {});
  b.engine.run();  // 10 windows idle
  b.clock.clear();
  b.run_kernel(sim::Duration::ms(5));
  CHECK(b.first_capped() < 0);
  // Back to back instead, the second would have crossed the limit after 3.28 ms.
  Bench hot(PowerStart::idle);
  hot.run_kernel(sim::Duration::ms(5));
  hot.clock.clear();
  hot.run_kernel(sim::Duration::ms(5));
  CHECK(hot.first_capped() > 0);
}

TEST_CASE("a governor stops sampling when nothing else can happen", "[models][power]") {
  Bench b(PowerStart::idle);
  b.gpu.kernel_started();  // a kernel that never ends (blocked) and moves nothing
  // A governor that kept sampling would still have a step queued after 10 windows.
  b.engine.run_until(sim::Time::zero() + b.hw.power.window * 10);
  CHECK(b.engine.empty());
  CHECK(b.engine.events_processed() == 1);  // its first step, which found nothing else queued
}

}  // namespace
}  // namespace mgsim::models
