// Engine throughput: events executed per second on one core.
//   BM_EngineChain:   one event that re-schedules itself 1 ns later (queue of size 1): the
//                     floor cost of schedule + pop + callback.
//   BM_EnginePending: a queue that always holds 1e5 pending events at pseudo-random times;
//                     each event schedules one replacement, so every pop sifts a deep heap.
//   BM_EngineCancel:  schedule two, cancel one, run one: the fluid solver's pattern.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "sim/engine.hpp"

namespace {

using mgsim::sim::Duration;
using mgsim::sim::Engine;

// A functor rather than a lambda so it can copy itself into the next event; 16 bytes, within
// std::function's small buffer, so scheduling does not allocate.
struct Tick {
  Engine* engine;
  std::int64_t* left;
  void operator()() const {
    if (--*left > 0) engine->schedule_in(Duration::ns(1), *this);
  }
};

void BM_EngineChain(benchmark::State& state) {
  const std::int64_t kEvents = 1'000'000;
  for (auto _ : state) {
    Engine e;
    std::int64_t left = kEvents;
    e.schedule_in(Duration::ns(1), Tick{&e, &left});
    e.run();
    benchmark::DoNotOptimize(e.events_processed());
  }
  state.SetItemsProcessed(state.iterations() * kEvents);
}
BENCHMARK(BM_EngineChain)->Unit(benchmark::kMillisecond);

struct Refill {
  Engine* engine;
  std::uint64_t* rng;
  void operator()() const {
    *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
    // Delays up to ~1 us spread the heap over many distinct times.
    engine->schedule_in(Duration::ps(static_cast<std::int64_t>(*rng >> 44)), *this);
  }
};

void BM_EnginePending(benchmark::State& state) {
  const auto pending = static_cast<std::int64_t>(state.range(0));
  Engine e;
  std::uint64_t rng = 1;
  for (std::int64_t i = 0; i < pending; ++i) Refill{&e, &rng}();
  const std::int64_t kBatch = 1'000'000;
  for (auto _ : state) {
    e.run_until(e.now() + Duration::ps(1));  // keep the clock moving between batches
    std::uint64_t target = e.events_processed() + kBatch;
    while (e.events_processed() < target) {
      e.run_until(e.now() + Duration::ns(100));
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(e.events_processed()));
}
BENCHMARK(BM_EnginePending)->Arg(100'000)->Unit(benchmark::kMillisecond);

void BM_EngineCancel(benchmark::State& state) {
  const std::int64_t kRounds = 1'000'000;
  for (auto _ : state) {
    Engine e;
    std::int64_t ran = 0;
    for (std::int64_t i = 0; i < kRounds; ++i) {
      auto a = e.schedule_in(Duration::ns(2), [&ran] { ++ran; });
      e.schedule_in(Duration::ns(1), [&ran] { ++ran; });
      e.cancel(a);
      e.run();
    }
    benchmark::DoNotOptimize(ran);
  }
  state.SetItemsProcessed(state.iterations() * kRounds);
}
BENCHMARK(BM_EngineCancel)->Unit(benchmark::kMillisecond);

}  // namespace
