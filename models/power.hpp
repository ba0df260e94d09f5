// Board power and the SM clock that follows it: a GPU runs its SMs at sm.clock until an average
// of its board power reaches the power limit, then at the clock that holds the power there.
//
// Model (per GPU, while a kernel runs on it):
//   power P = static + E(f) x tensor flop rate + hbm_energy x HBM byte rate, with the energy of a
//   (bf16-equivalent) tensor flop E(f) = tensor_energy x (f / sm.clock)^2: dynamic energy goes
//   with the voltage squared, and along the DVFS curve the voltage goes with the clock;
//   the governor's average A follows P with time constant `window` (dA/dt = (P - A) / window);
//   from idle, A starts at `idle` (and decays towards it while no kernel runs);
//   every window / 64 the governor sets the clock for the next step (so a run that starts at the
//   limit runs its first step, 1.4 ms on the H200, at sm.clock: time the kernels after it):
//   sm.clock when that keeps A at or below `limit`, else the clock at which P would bring A to the
//   limit (or, once there, keep it there), assuming the tensor flop rate goes with the clock (it
//   does when the tensor pipes bind; when L2 or HBM binds the next step's measurement corrects it).
// The clock scales every SM's tensor and FP32 pipe (models::Gpu::set_clock) and the
// cycle-counted costs of ops that start after it changed.
// Source: validate/data/h200-single/power.csv and power_ramp.csv (issue 15), fitted by
// scripts/power_model.py; docs/VALIDATION.md, "Power and the SM clock".
// Ignores: NVLink and copy-engine power, FP32-pipe and L2 energy, temperature (the measured
// GEMMs stayed at 62 C or below, far from thermal limits), the memory clock (it stays at its
// maximum under the power cap), the clock's 15 MHz steps, and the governor's own sampling
// period (not measurable with NVML's 10 ms samples; window / 64 is this model's step).
#pragma once

#include <cstdint>

#include "sim/engine.hpp"
#include "sim/names.hpp"
#include "sim/units.hpp"

namespace mgsim::models {

struct PowerSpec {
  sim::Power limit;           // the board's power cap; zero: none (the SMs stay at sm.clock)
  sim::Power idle;            // board power with no kernel running
  sim::Power static_power;    // board power while kernels run, before their pipes and memory
  sim::Energy tensor_energy;  // per bf16-equivalent tensor flop at sm.clock
  sim::Energy hbm_energy;     // per byte read or written in HBM
  sim::Duration window;       // time constant of the power average the limit applies to

  bool governed() const { return limit.microwatts() > 0; }
};

class Gpu;

// Where a run finds a GPU's power average.
enum class PowerStart {
  idle,   // the GPU was idle: the average starts at power.idle (a short run stays at sm.clock)
  limit,  // the GPU has been running at its limit (a sustained load): the average starts there
};
// The `power: {start}` names of schedules.
inline constexpr auto kPowerStartNames =
    sim::name_table<PowerStart>({{PowerStart::idle, "idle"}, {PowerStart::limit, "limit"}});

// One GPU's governor. Owned by the executor beside its Gpu; the kernel runner tells it when
// kernels start and end (Gpu::kernel_started / kernel_ended forward here).
// Thread-safety: none, like the simulation it belongs to.
class PowerGovernor {
 public:
  // REQUIRES: gpu.spec().power.governed(); gpu and engine outlive the governor.
  PowerGovernor(Gpu& gpu, sim::Engine& engine, PowerStart start);
  PowerGovernor(const PowerGovernor&) = delete;
  PowerGovernor& operator=(const PowerGovernor&) = delete;

  void kernel_started();
  void kernel_ended();

  // What the clock did, for the run's report.
  struct Summary {
    sim::Frequency min_clock;   // lowest clock set (sm.clock if never lowered)
    sim::Duration capped;       // time run below sm.clock
    sim::Duration busy;         // time in the governor's steps: kernels ran, or paused within one
    double energy_joules = 0;   // while busy, as modelled
    sim::Frequency mean_clock;  // over the busy time (sm.clock if never busy)
  };
  // At the end of a run: the last step folded in, the clock back at sm.clock (the run's
  // roofline is at the hardware's peak), what the clock did.
  Summary finish();
  double average_watts() const { return average_; }

 private:
  // The mean power since the last sample (W), all of it and the tensor pipes' part.
  struct Step {
    double power = 0, tensor = 0;
  };
  // Folds the power from the last sample to `until` into the average and the summary.
  Step sample(sim::Time until);
  void tick();
  void schedule_tick(sim::Time at);
  void set_clock(double x);

  Gpu& gpu_;
  sim::Engine& engine_;
  sim::Duration step_;
  double average_;   // W
  int running_ = 0;  // kernels running
  sim::Time last_;   // time of the last sample (idle since, with no step pending)
  double flops_seen_ = 0, bytes_seen_ = 0;
  sim::EventId tick_{};
  sim::Time due_;        // when the step in progress ends
  bool paused_ = false;  // no kernel runs since ended_, within the step due_ ends
  sim::Time ended_;
  Summary summary_;
  double clock_seconds_ = 0;  // integral of clock / sm.clock over the busy time (s)
};

}  // namespace mgsim::models
