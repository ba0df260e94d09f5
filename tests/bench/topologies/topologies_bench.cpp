// Topology loading and routing costs: load + wire a preset, and route every ordered GPU pair.
// Run: build/tests/bench/topologies/bench_topologies (numbers go to docs/PERFORMANCE.md).
#include <benchmark/benchmark.h>

#include <string>

#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "topologies/fabric.hpp"
#include "topologies/topology.hpp"

namespace {

using namespace mgsim;

// A preset with its GPUs' NVLink links at 25 GB/s (h200's, models/presets), as a Machine sets them.
topologies::Topology load_preset(const std::string& name) {
  topologies::Topology t = topologies::load_topology(name);
  topologies::resolve_gpu_links(t, sim::Bandwidth::GBps(t.gpu_model == "b200" ? 50 : 25), 18,
                                t.gpu_model);
  return t;
}

void load_and_wire(benchmark::State& state, const std::string& preset) {
  for (auto _ : state) {
    const auto topo = load_preset(preset);
    sim::Engine engine;
    sim::FluidNetwork net(engine);
    const topologies::Fabric fabric(topo, net);
    benchmark::DoNotOptimize(fabric.gpu_count());
  }
}

// Every ordered pair once (first use: cost tables and routes built), then again (cache hits).
void all_pairs(benchmark::State& state, const std::string& preset) {
  const auto topo = load_preset(preset);
  std::int64_t routes = 0;
  for (auto _ : state) {
    sim::Engine engine;
    sim::FluidNetwork net(engine);
    const topologies::Fabric fabric(topo, net);
    const int n = fabric.gpu_count();
    for (int s = 0; s < n; ++s) {
      for (int d = 0; d < n; ++d) {
        if (s != d) benchmark::DoNotOptimize(fabric.route(s, d).latency);
      }
    }
    routes += static_cast<std::int64_t>(n) * (n - 1);
  }
  state.counters["routes/s"] =
      benchmark::Counter(static_cast<double>(routes), benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(load_and_wire, hgx_h200_8, std::string("hgx-h200-8"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(load_and_wire, gb200_nvl72, std::string("gb200-nvl72"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(load_and_wire, nvl576, std::string("nvl576"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(all_pairs, gb200_nvl72, std::string("gb200-nvl72"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(all_pairs, hgx_h200_ib, std::string("hgx-h200-ib"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(all_pairs, nvl576, std::string("nvl576"))->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
