// A 1 GiB ring all-reduce simulated end to end: schedule parse, topology wiring and the run.
// ring_all_reduce is the ideal ring (peer copies at the path's rate); issue 2's target: <= 200 ms
// wall on gb200-nvl72 with 4 MiB chunks. nccl_all_reduce runs NCCL's ring kernels, nccl_nvls its
// NVLS kernels (docs/NCCL.md): every slice handover of every channel is simulated, so they cost
// far more. Counters: sends (peer copies, or slice handovers), engine events, and events per
// second of wall time.
#include <cstdint>
#include <map>
#include <string>

#include <benchmark/benchmark.h>

#include "traces/schedule.hpp"
#include "traces/simulation.hpp"

namespace {

using namespace mgsim;

const char* kAllReduce = R"(params: {SIZE: 1GiB, CHUNK: 4MiB}
streams:
  - name: nccl
    ops: [{collective: {op: all_reduce, algorithm: ideal_ring, bytes: SIZE, chunk: CHUNK}}]
)";

const char* kNcclAllReduce = R"(params: {SIZE: 1GiB}
streams:
  - name: nccl
    ops: [{collective: {op: all_reduce, bytes: SIZE, dtype: bf16, algorithm: ring}}]
)";

const char* kNcclNvls = R"(params: {SIZE: 1GiB}
streams:
  - name: nccl
    ops: [{collective: {op: all_reduce, bytes: SIZE, dtype: bf16, algorithm: nvls}}]
)";

void run_all_reduce(benchmark::State& state, const char* text, const char* topology,
                    const char* size,
                    const std::map<std::string, std::int64_t>& topology_params = {},
                    traces::Recording record = {}) {
  const traces::Schedule schedule =
      traces::load_schedule(sim::Node::load_string(text, "bench.yaml"));
  const traces::Machine machine = traces::Machine::load(topology, topology_params, "");
  const traces::Env params = traces::param_values(schedule, {{"SIZE", size}});
  std::int64_t sends = 0;
  std::uint64_t events = 0;
  for (auto _ : state) {
    const traces::RunResult r =
        traces::simulate(schedule, params, machine, nullptr, {}, record).run;
    sends = r.collectives.at(0).sends;
    events = r.events;
    benchmark::DoNotOptimize(r.end);
  }
  state.counters["sends"] = static_cast<double>(sends);
  state.counters["events"] = static_cast<double>(events);
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events) * state.iterations(),
                                                  benchmark::Counter::kIsRate);
}

void ring_all_reduce(benchmark::State& state, const char* topology) {
  run_all_reduce(state, kAllReduce, topology, "1GiB");
}
// hgx-h200-ib's rail rings over `nodes` x 8 GPUs, folded (two nodes simulated, standing for the
// rest: traces/simulation.hpp) or every rank simulated.
void ring_all_reduce_ib(benchmark::State& state, std::int64_t nodes, bool every_rank) {
  run_all_reduce(state, kAllReduce, "hgx-h200-ib", "1GiB", {{"nodes", nodes}},
                 {.every_rank = every_rank});
}
void nccl_all_reduce(benchmark::State& state, const char* topology, const char* size) {
  run_all_reduce(state, kNcclAllReduce, topology, size);
}
void nccl_nvls(benchmark::State& state, const char* topology, const char* size) {
  run_all_reduce(state, kNcclNvls, topology, size);
}

BENCHMARK_CAPTURE(ring_all_reduce, hgx_h200_8, "hgx-h200-8")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(ring_all_reduce, gb200_nvl72, "gb200-nvl72")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(ring_all_reduce, nvl576, "nvl576")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(ring_all_reduce_ib, folded_512, 64, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(ring_all_reduce_ib, every_rank_512, 64, true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(nccl_all_reduce, hgx_h200_8_1gib, "hgx-h200-8", "1GiB")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(nccl_all_reduce, gb200_nvl72_64mib, "gb200-nvl72", "64MiB")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(nccl_nvls, hgx_h200_8_1gib, "hgx-h200-8", "1GiB")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(nccl_nvls, gb200_nvl72_64mib, "gb200-nvl72", "64MiB")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
