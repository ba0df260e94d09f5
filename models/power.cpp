#include "models/power.hpp"

#include <algorithm>
#include <cmath>

#include "models/gpu.hpp"
#include "sim/check.hpp"

namespace mgsim::models {
namespace {

// The governor's step: this many per window (docs in power.hpp).
constexpr std::int64_t kStepsPerWindow = 64;
// A guard, not a measured floor: the clock is never set below this fraction of sm.clock (the
// measured cases stay above 0.7).
constexpr double kMinClock = 1.0 / 64;

double seconds(sim::Duration d) { return static_cast<double>(d.picoseconds()) * 1e-12; }

}  // namespace

PowerGovernor::PowerGovernor(Gpu& gpu, sim::Engine& engine, PowerStart start)
    : gpu_(gpu),
      engine_(engine),
      step_(sim::Duration::ps(
          std::max<std::int64_t>(1, gpu.spec().power.window.picoseconds() / kStepsPerWindow))),
      average_(start == PowerStart::limit ? gpu.spec().power.limit.watts()
                                          : gpu.spec().power.idle.watts()),
      last_(engine.now()) {
  MGSIM_CHECK(gpu.spec().power.governed(), "a power governor needs power.limit");
  summary_.min_clock = gpu.spec().sm.clock;
}

void PowerGovernor::kernel_started() {
  if (running_++ > 0) return;
  if (paused_ && engine_.now() < due_) {  // back within the step: it goes on
    schedule_tick(due_);
    return;
  }
  if (paused_) sample(ended_);  // the busy part of the step that was cut short
  paused_ = false;
  const PowerSpec& p = gpu_.spec().power;
  // Idle since the last sample: the average decays towards the idle power.
  const double decay = std::exp(-seconds(engine_.now() - last_) / seconds(p.window));
  const double idle = p.idle.watts();
  average_ = idle + (average_ - idle) * decay;
  if (average_ < p.limit.watts()) set_clock(1.0);
  last_ = engine_.now();
  flops_seen_ = gpu_.tensor_flops_carried();
  bytes_seen_ = static_cast<double>(gpu_.hbm_bytes_carried());
  schedule_tick(engine_.now() + step_);
}

void PowerGovernor::kernel_ended() {
  MGSIM_CHECK(running_ > 0, "a kernel ended that the power governor did not see start");
  if (--running_ > 0) return;
  // No event is left behind (it would outlast the run): the step resumes if a kernel starts
  // before it was due, and is folded in up to now otherwise.
  engine_.cancel(tick_);
  paused_ = true;
  ended_ = engine_.now();
}

void PowerGovernor::schedule_tick(sim::Time at) {
  due_ = at;
  paused_ = false;
  tick_ = engine_.schedule_background_at(at, [this] { tick(); });
}

PowerGovernor::Step PowerGovernor::sample(sim::Time until) {
  const PowerSpec& p = gpu_.spec().power;
  const double dt = seconds(until - last_);
  const double flops = gpu_.tensor_flops_carried();
  const auto bytes = static_cast<double>(gpu_.hbm_bytes_carried());
  const double x = gpu_.clock_scale();
  Step s;
  s.tensor = dt > 0 ? p.tensor_energy.joules() * x * x * (flops - flops_seen_) / dt : 0.0;
  const double hbm = dt > 0 ? p.hbm_energy.joules() * (bytes - bytes_seen_) / dt : 0.0;
  s.power = p.static_power.watts() + s.tensor + hbm;
  average_ = s.power + (average_ - s.power) * std::exp(-dt / seconds(p.window));
  summary_.busy += until - last_;
  if (x < 1.0) summary_.capped += until - last_;
  summary_.energy_joules += s.power * dt;
  clock_seconds_ += x * dt;
  last_ = until;
  flops_seen_ = flops;
  bytes_seen_ = bytes;
  return s;
}

void PowerGovernor::tick() {
  const double x = gpu_.clock_scale();
  const Step s = sample(engine_.now());
  const PowerSpec& p = gpu_.spec().power;
  const double limit = p.limit.watts();
  const double decay = std::exp(-seconds(step_) / seconds(p.window));
  // The mean power over the next step that brings the average to the limit; at or above it,
  // the limit itself (the clock holds the power there rather than dive below it).
  const double goal = average_ < limit ? (limit - average_ * decay) / (1 - decay) : limit;
  // Tensor power at clock x' is s.tensor x (x' / x)^3 (energy per flop x x'^2, rate x x').
  const double others = s.power - s.tensor;
  if (s.tensor <= 0 || others + s.tensor / (x * x * x) <= goal) {
    set_clock(1.0);
  } else {
    const double room = goal - others;
    set_clock(room <= 0 ? kMinClock : std::clamp(x * std::cbrt(room / s.tensor), kMinClock, 1.0));
  }
  // Nothing else will happen (kernels blocked for good; other GPUs' governors may still tick):
  // stop, so the run can end and say so.
  if (engine_.only_background()) return;
  schedule_tick(engine_.now() + step_);
}

PowerGovernor::Summary PowerGovernor::finish() {
  if (paused_) sample(ended_);
  paused_ = false;
  gpu_.set_clock_scale(1.0);
  const double busy = seconds(summary_.busy);
  summary_.mean_clock =
      sim::Frequency::hz(std::llround(static_cast<double>(gpu_.spec().sm.clock.hertz()) *
                                      (busy > 0 ? clock_seconds_ / busy : 1.0)));
  return summary_;
}

void PowerGovernor::set_clock(double x) {
  gpu_.set_clock_scale(x);
  summary_.min_clock = std::min(summary_.min_clock, gpu_.sm_clock());
}

}  // namespace mgsim::models
