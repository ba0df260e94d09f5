// A 1 GiB ring all-reduce simulated end to end: schedule parse, topology wiring and the run.
// Issue 2's target: <= 200 ms wall on gb200-nvl72 with 4 MiB chunks. Counters: sends (peer
// copies), engine events, and events per second of wall time.
#include <benchmark/benchmark.h>

#include "models/hardware_loader.hpp"
#include "tests/bench/traces/run_once.hpp"
#include "topologies/topology.hpp"
#include "traces/executor.hpp"
#include "traces/schedule.hpp"

namespace {

using namespace mgsim;

const char* kAllReduce = R"(params: {SIZE: 1GiB, CHUNK: 4MiB}
streams:
  - name: nccl
    ops: [{collective: {op: all_reduce, bytes: SIZE, chunk: CHUNK}}]
)";

void ring_all_reduce(benchmark::State& state, const char* topology) {
  const traces::Schedule schedule =
      traces::load_schedule(sim::Node::load_string(kAllReduce, "bench.yaml"));
  const topologies::Topology topo = topologies::load_topology(topology);
  const models::HardwareSpec hw = models::load_hardware(topo.gpu_model);
  const traces::Env params = traces::param_values(schedule, {});
  std::int64_t sends = 0;
  std::uint64_t events = 0;
  for (auto _ : state) {
    const traces::RunResult r = bench::run_once(schedule, params, topo, hw);
    sends = r.collectives.at(0).sends;
    events = r.events;
    benchmark::DoNotOptimize(r.end);
  }
  state.counters["sends"] = static_cast<double>(sends);
  state.counters["events"] = static_cast<double>(events);
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events) * state.iterations(),
                                                  benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(ring_all_reduce, hgx_h200_8, "hgx-h200-8")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(ring_all_reduce, gb200_nvl72, "gb200-nvl72")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(ring_all_reduce, nvl576, "nvl576")->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
