// Runs kernel launches (traces/kernel_schedule.hpp) on the GPUs of a simulation: CTAs placed on
// SMs by occupancy, roles walking their ops lazily, ops mapped onto discrete events and fluid
// flows over the resources of each rank's models::Gpu.
//
// Model, per launch on rank r (traces/kernel/launch.cpp):
//   - the launch starts `start` after the call (its stream's launch.latency or launch.gap:
//     traces/executor.cpp), then CTAs are placed: ctas_per_sm from threads,
//     registers and shared memory (models::SmSpec::ctas_per_sm, footprint), slots = ctas_per_sm x
//     SMs. Alone on a GPU, CTA i of the first wave goes to SM i % SMs; a non-persistent grid
//     larger than the slots runs in waves (when a CTA ends, the next CTA takes the room it
//     freed). A persistent grid must fit an empty GPU.
//     Every CTA start goes through the GPU's one dispatcher, one CTA every launch.per_cta.
//   - a CTA runs its roles concurrently (those whose `if` holds); a role runs its ops in order
//     (traces/kernel/walker.cpp); the CTA ends when all its roles have; the launch ends when all
//     its CTAs have.
//   - each op kind's model is stated at the top of its unit, traces/kernel/op_<kind>.cpp:
//     load/store (op_load_store: tma, ldst, store-add, L2 working sets), multimem
//     (op_multimem: NVSwitch multicast and in-network reduction), mma, compute, mainloop,
//     signal, wait, arrive, sync. Flags and barriers are one table
//     (traces/kernel/sync_table.hpp).
// Concurrent kernels share the SMs (traces/kernel/launch.cpp): a CTA goes on an SM with room
// for it beside what is resident there (CTA slots, threads, registers, shared memory), searched
// round-robin; launches wait for room oldest first, so a persistent copy kernel holds its SMs and
// a GEMM launched beside it gets the rest.
// Ignores: instruction issue inside a role (a communication role beside math roles takes their
// SM's pipes only through the flows it shares), dynamic tile scheduling (a persistent kernel's
// CTA that waits for an SM still does its own tiles).
// Deterministic: same inputs, same picoseconds. Values are ConfigErrors naming the YAML value.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/gpu.hpp"
#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "traces/data_check.hpp"
#include "traces/kernel_schedule.hpp"
#include "traces/transfers.hpp"

namespace mgsim::traces {

class OpBudget;

namespace kernel {
struct Runner;
}

class KernelRunner {
 public:
  // Rank r runs on GPU r of `fabric`, its resources those of gpus[r] (which must outlive the
  // runner); the world is gpus.size(). Every role op is charged to `budget`, the run's one op
  // budget (traces/walker.hpp), which must outlive the runner.
  // REQUIRES: gpus non-empty, all of one HardwareSpec.
  // With `check`, launches from a checked stream report their data to it (it must outlive the
  // runner).
  KernelRunner(const KernelSet& kernels, sim::Engine& engine, sim::FluidNetwork& net,
               Interconnect& fabric, std::span<models::Gpu> gpus, OpBudget& budget,
               DataCheck* check = nullptr);
  ~KernelRunner();
  KernelRunner(const KernelRunner&) = delete;
  KernelRunner& operator=(const KernelRunner&) = delete;

  // Launches kernel `kernel` on `rank`, its CTAs placed `start` from now. `env` has the kernel's
  // slot_count slots with params, rank, world and the args filled in. `done` runs when the last
  // CTA has finished. `stream`: the data check's agent of the launching stream (none: the
  // launch is not checked, as NCCL's kernels are not: their collective is). Returns an id for
  // blocked_reason().
  int launch(int rank, int kernel, Env env, sim::Duration start, std::function<void()> done,
             std::optional<DataCheck::Agent> stream = std::nullopt);

  // When each role of launch `id` ran: from its first CTA's start to its last CTA's end, for
  // the roles that ran on some CTA, in the kernel's order.
  struct RoleTime {
    std::string role;
    sim::Time begin, end;
  };
  std::vector<RoleTime> role_times(int id) const;

  // Why launch `id` has not finished (for deadlock reports): the first blocked role, naming
  // rank, kernel, CTA, role and what it waits on, and how many more are blocked.
  std::string blocked_reason(int id) const;

  struct Stats {
    std::int64_t ctas = 0;   // CTAs run to completion
    std::int64_t ops = 0;    // role ops executed, `for` ops included
    std::int64_t flops = 0;  // mma, compute and mainloop flops (as written, not scaled)
  };
  const Stats& stats() const { return stats_; }

 private:
  Stats stats_;
  std::unique_ptr<kernel::Runner> runner_;
};

}  // namespace mgsim::traces
