// Fluid max-min-fair bandwidth sharing (the design of SimGrid's LMM, restricted to the case
// every flow uses each of its resources with weight 1).
//
// Model: resources r have capacities C_r (bytes/s). A flow f crosses a set of resources and may
// have its own rate cap c_f. Rates x_f are the max-min fair allocation:
//     sum_{f uses r} x_f <= C_r  for every r,     x_f <= c_f,
// and no x_f can grow without shrinking some x_g <= x_f. It is computed by progressive
// filling (water-filling): repeatedly find the most constrained resource (smallest fair share
// C_r' / n_r' over its unfixed flows, or a flow's own cap if smaller), fix those flows at that
// share, subtract them, and continue.
//
// Incremental: when a flow starts or ends, only the connected component of flows that share a
// resource (transitively) with it is re-solved; other flows keep their rates and their
// scheduled completion events.
//
// Completion: each flow tracks the bytes still to move as of the time its rate last changed.
// Its completion event is scheduled at ceil(remaining / rate) picoseconds after that. When
// every rate in a case is a whole number of bytes per second and the bytes divide exactly the
// completion times are exact to the picosecond.
//
// Bundles: flows started at the same instant with the same path, bytes, cap and window are
// solved as one flow that counts as many times (sim/detail/fluid_impl.hpp): each keeps its own
// id, rate and callback, and ends when it would have alone; the GPU's CTAs that start one
// multimem op together cost one flow, not 148.
//
// Queueing: a resource may queue (set_queueing): its delay grows with its utilisation rho as
// an M/M/1 queue's waiting time, coefficient x rho / (1 - rho); with a QueueMix, the flows that
// also cross its marker resource, mixed with those that do not, add the mix's coefficient x
// 2 rho_m rho_u / rho, how often the two kinds alternate (a DRAM turning its bus between reads
// and writes), rho_m and rho_u the marked and unmarked flows' parts of rho (0 when either is
// absent). That term is added as it is, not through 1 / (1 - rho): measured, a load beside
// copies waits that much longer at every load (validate/cuda/hbm_turnaround.cu).
// A window flow (start_flow's `window`: what it keeps in flight, Little's law) is capped at its
// window over its hold time plus the delays of the queueing resources on its path, so the rates and
// the delays depend on each other: each re-solve finds the delays where they agree, from the last
// solve's, each step predicting the next water-filling from the window flows and checking it with
// one (sim/detail/fluid_solve.cpp's settle_queues; sim/detail/fluid_impl.hpp has the limits).
//
// Statistics: per resource, the bytes carried and the time-integral of utilisation; with a trace
// sink attached, a bandwidth counter per resource track at every rate change.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "sim/units.hpp"

namespace mgsim::sim {

class Engine;

struct ResourceId {
  std::uint32_t value = 0;
  auto operator<=>(const ResourceId&) const = default;
};

struct FlowId {
  std::uint64_t value = 0;  // 0 is never a valid flow
  auto operator<=>(const FlowId&) const = default;
};

struct ResourceStats {
  Bytes bytes_carried;
  // Integral of (allocated rate / capacity) over time, in picoseconds: divide by the elapsed
  // time for the mean utilisation.
  double busy_ps = 0.0;
};

// What a flow keeps in flight and for how long each byte holds its slot: it moves at most
// `bytes` per `waits` x (`hold` + the queueing delays on its path) (a loop that waits for its
// loads `waits` times per window; a queue its path crosses more than once is waited in once).
// With `customers` (warps, each keeping bytes / customers in flight), the window is a closed
// loop: each customer waits that long, then passes its bytes through `station` (a resource on
// the path, crossed once per listing: an SM's memory pipe), where it queues behind the others
// (closed_loop_rate); without, the station's queue is not seen (the sharp bound).
// `waited`: how many of the path's first hops the flow waits for; the queues of the rest it does
// not wait in (a copy's loads wait at their source's HBM, its posted stores not at the
// destination's); default all.
// REQUIRES: bytes > 0, hold > 0, waits >= 1, customers >= 0, station on the path if customers.
// What mixing costs a queueing resource (set_queueing): the flows that also cross `marker` and
// those that do not, alternating, add coefficient x 2 rho_m rho_u / rho to its delay.
// REQUIRES: coefficient >= 0.
struct QueueMix {
  ResourceId marker;
  Duration coefficient;
};

struct Window {
  Bytes bytes;
  Duration hold;
  std::int64_t waits = 1;
  std::int64_t customers = 0;
  ResourceId station{};
  std::optional<std::size_t> waited{};
};

// Throughput, in cycles per second, of `customers` identical customers that each wait `think`
// seconds (a delay every customer has at once: a memory latency) and then `demand` seconds at one
// queue (first come, first served), exact mean value analysis of that closed network (Reiser and
// Lavenberg, 1980): Q_0 = 0; R_k = demand (1 + Q_(k-1)), X_k = k / (think + R_k), Q_k = X_k R_k.
// Below the sharp bound min(customers / (think + demand), 1 / demand), most where the two meet:
// there the customers find each other at the queue. REQUIRES: 1 <= customers <= 65536,
// think >= 0, demand > 0.
double closed_loop_rate(std::int64_t customers, double think, double demand);

class FluidNetwork {
 public:
  explicit FluidNetwork(Engine& engine);
  ~FluidNetwork();
  FluidNetwork(const FluidNetwork&) = delete;
  FluidNetwork& operator=(const FluidNetwork&) = delete;

  // `name` labels the resource in stats and traces ("gpu0.nvlink.out"). REQUIRES: capacity > 0.
  ResourceId add_resource(std::string name, Bandwidth capacity);
  // Room for `more` resources beyond those added so far (a GPU's SM pipes come by the hundred).
  void reserve_resources(std::size_t more);
  // The trace track of a resource's bandwidth counter, when its name does not say it: by default
  // "gpu0.hbm" is counter "hbm" of process "gpu0" (a name without a dot is its own process).
  void set_trace_track(ResourceId id, std::string process, std::string thread);
  // The name of a resource's rate counter in traces, which shows its amount per second / 1e9:
  // "GB/s" by default; "GFLOP/s" for a resource whose "bytes" are flops (an SM pipe).
  void set_trace_counter(ResourceId id, std::string name);

  // Starts moving `bytes` over `path` now. `on_done` runs (as an engine event) when the last
  // byte has moved. `cap`, if set, bounds this flow's own rate (e.g. bytes in flight / latency).
  // A flow of zero bytes completes at now() (still through an event). An empty path needs a cap.
  // REQUIRES: bytes >= 0; every id in path valid; path non-empty or cap set.
  // `window`, if set, caps it too, at its window over its hold time plus the queueing delays.
  FlowId start_flow(std::span<const ResourceId> path, Bytes bytes, std::optional<Bandwidth> cap,
                    std::function<void()> on_done, std::optional<Window> window = std::nullopt);
  // Removes an unfinished flow without running its callback. Returns false if it was not active.
  bool cancel_flow(FlowId id);
  // Changes a resource's capacity from now on (something outside the flows takes or gives back
  // part of it); its flows are re-shared at once. REQUIRES: capacity > 0.
  void set_capacity(ResourceId id, Bandwidth capacity);
  // Makes a resource queue: window flows crossing it wait `coefficient` x rho / (1 - rho) more
  // (rho its utilisation, held below 1), more where `mix`'s marked and unmarked flows mix.
  // Zero: it does not queue (the default).
  void set_queueing(ResourceId id, Duration coefficient,
                    std::optional<QueueMix> mix = std::nullopt);
  // A queueing resource's delay as of the last solve.
  Duration queueing_delay(ResourceId id) const;

  // The current rate of an active flow, in bytes per second (0 if not active).
  double rate(FlowId id) const;
  std::size_t active_flows() const;
  std::size_t resource_count() const;
  const std::string& name(ResourceId r) const;
  Bandwidth capacity(ResourceId r) const;
  // Stats up to now(); folds the running flows' progress in first.
  ResourceStats stats(ResourceId r);
  // Flows started and finished so far (for benchmarks).
  std::uint64_t flows_started() const;
  // Flows that completed (their callback was scheduled); cancelled flows are not counted.
  std::uint64_t flows_finished() const;

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace mgsim::sim
