// The all-gather GEMM of DESIGN.md's speed target, simulated end to end: 8 GPUs, C = all_gather(A)
// x B with M = 16384 gathered rows, N = K = 8192, bf16, 128 x 256 tiles, a persistent kernel with
// 16 communication SMs (the schedule is examples/kernels/ag_gemm_inter_sm.yaml). Target: <= 20 ms
// wall per simulation (Release build). Topology wiring and the run are timed; parsing is not.
// A second benchmark scales the same kernel from 2 to 72 GPUs on gb200-nvl72 (ranks 0 .. world-1
// of the 72; every rank computes its 4096 tiles, so the simulated work grows with world).
// Counters: engine events, events per second of CPU time, the predicted time in us.
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "models/hardware_loader.hpp"
#include "tests/bench/traces/run_once.hpp"
#include "topologies/topology.hpp"
#include "traces/executor.hpp"
#include "traces/schedule.hpp"

namespace {

using namespace mgsim;

constexpr const char* kExample = MGSIM_EXAMPLES_DIR "/kernels/ag_gemm_inter_sm.yaml";

// The example with a WORLD param and `world: WORLD`, so that ranks 0 .. WORLD-1 of a bigger
// topology run it (the example itself runs on every GPU of the topology).
traces::Schedule ag_gemm_with_world() {
  std::ifstream in(kExample);
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const std::string params = "params:\n";
  yaml.insert(yaml.find(params) + params.size(), "  WORLD: 8\n");
  yaml += "world: WORLD\n";
  return traces::load_schedule(sim::Node::load_string(yaml, kExample));
}

void run(benchmark::State& state, const traces::Schedule& schedule, const char* topology,
         const std::vector<std::pair<std::string, std::string>>& defines) {
  const topologies::Topology topo = topologies::load_topology(topology);
  const models::HardwareSpec hw = models::load_hardware(topo.gpu_model);
  const traces::Env params = traces::param_values(schedule, defines);
  std::uint64_t events = 0;
  std::int64_t end_ps = 0;
  for (auto _ : state) {
    const traces::RunResult r = bench::run_once(schedule, params, topo, hw);
    events = r.events;
    end_ps = r.end.picoseconds();
    benchmark::DoNotOptimize(r.end);
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events) * state.iterations(),
                                                  benchmark::Counter::kIsRate);
  state.counters["predicted_us"] = static_cast<double>(end_ps) * 1e-6;
}

void ag_gemm_8(benchmark::State& state) {
  static const traces::Schedule schedule = traces::load_schedule_file(kExample);
  run(state, schedule, "hgx-h200-8",
      {{"M", "16384"}, {"N", "8192"}, {"K", "8192"}, {"COMM_SMS", "16"}});
}
BENCHMARK(ag_gemm_8)->Unit(benchmark::kMillisecond);

// The same kernel on ranks 0 .. world-1 of gb200-nvl72 (b200: 148 SMs). M must split into whole
// 128-row blocks per rank: 16384 gathered rows for world <= 64, 18432 = 72 x 256 for 72.
void ag_gemm_nvl72(benchmark::State& state) {
  static const traces::Schedule schedule = ag_gemm_with_world();
  const auto world = state.range(0);
  const std::string m = world == 72 ? "18432" : "16384";
  run(state, schedule, "gb200-nvl72",
      {{"WORLD", std::to_string(world)},
       {"M", m},
       {"N", "8192"},
       {"K", "8192"},
       {"COMM_SMS", "16"}});
}
BENCHMARK(ag_gemm_nvl72)
    ->Arg(2)
    ->Arg(4)
    ->Arg(8)
    ->Arg(16)
    ->Arg(32)
    ->Arg(64)
    ->Arg(72)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
