// Fluid solver throughput: flows started + finished per second with N flows always in flight.
//
// Each benchmark iteration runs the engine until one flow finishes; its callback starts a
// replacement (so N stays constant) and stops the engine. One iteration = one flow finished
// and one started, each with a re-solve of the component they touch.
//   BM_FluidOneLink/N: N flows on one shared link; every start/end changes every rate, so a
//                      re-solve re-schedules all N completions: the worst case, O(N log N).
//   BM_FluidFabric/N:  72 "GPU ports" (an egress and an ingress resource per GPU, 900 GB/s),
//                      each flow from a random source to a random other destination: the
//                      NVL72 pattern of a random all-to-all phase.
// Sizes are uniform in [1 MB, 64 MB] from a fixed-seed generator, so runs are repeatable.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "sim/engine.hpp"
#include "sim/fluid.hpp"

namespace {

using namespace mgsim::sim;

struct Workload {
  Engine engine;
  FluidNetwork net{engine};
  std::vector<ResourceId> egress;
  std::vector<ResourceId> ingress;
  std::mt19937_64 rng{2024};
  bool fabric = false;

  std::int64_t next_size() {
    return std::uniform_int_distribution<std::int64_t>(1'000'000, 64'000'000)(rng);
  }

  void start_one() {
    std::vector<ResourceId> path;
    if (fabric) {
      auto n = static_cast<std::uint64_t>(egress.size());
      std::uint64_t src = rng() % n;
      std::uint64_t dst = (src + 1 + rng() % (n - 1)) % n;
      path = {egress[src], ingress[dst]};
    } else {
      path = {egress[0]};
    }
    net.start_flow(path, Bytes(next_size()), std::nullopt, [this] {
      start_one();
      engine.stop();
    });
  }
};

void run_workload(benchmark::State& state, Workload& w) {
  const auto n = state.range(0);
  for (std::int64_t i = 0; i < n; ++i) w.start_one();
  // Warm up: let the first completions happen so the size mix is in steady state.
  for (std::int64_t i = 0; i < std::min<std::int64_t>(n, 100); ++i) w.engine.run();
  const std::uint64_t finished_before = w.net.flows_finished();
  for (auto _ : state) w.engine.run();
  const auto finished = static_cast<std::int64_t>(w.net.flows_finished() - finished_before);
  // Each finished flow was replaced by a started one: count both, as the issue asks.
  state.SetItemsProcessed(2 * finished);
  state.counters["flows_finished_per_s"] =
      benchmark::Counter(static_cast<double>(finished), benchmark::Counter::kIsRate);
}

void BM_FluidOneLink(benchmark::State& state) {
  Workload w;
  w.egress.push_back(w.net.add_resource("link", Bandwidth::GBps(900)));
  run_workload(state, w);
}
BENCHMARK(BM_FluidOneLink)->Arg(1)->Arg(100)->Arg(10'000);

void BM_FluidFabric(benchmark::State& state) {
  Workload w;
  w.fabric = true;
  for (int g = 0; g < 72; ++g) {
    w.egress.push_back(
        w.net.add_resource(fmt::format("gpu{}.nvlink.out", g), Bandwidth::GBps(900)));
    w.ingress.push_back(
        w.net.add_resource(fmt::format("gpu{}.nvlink.in", g), Bandwidth::GBps(900)));
  }
  run_workload(state, w);
}
BENCHMARK(BM_FluidFabric)->Arg(1)->Arg(100)->Arg(10'000);

}  // namespace
