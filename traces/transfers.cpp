#include "traces/transfers.hpp"

#include <memory>

#include <fmt/format.h>

#include "sim/check.hpp"
#include "sim/trace.hpp"

namespace mgsim::traces {

Transfers::Transfers(sim::Engine& engine, sim::FluidNetwork& net, Interconnect& fabric,
                     std::span<models::Gpu> gpus)
    : engine_(engine), net_(net), fabric_(fabric), gpus_(gpus), queues_(gpus.size()) {
  for (std::size_t g = 0; g < gpus.size(); ++g)
    queues_[g].busy.assign(gpus[g].copy_engines().size(), false);
}

void Transfers::copy(int owner, CopyRequest req) {
  MGSIM_CHECK(req.bytes.count() > 0, "copy of {} bytes", req.bytes.count());
  MGSIM_CHECK(!req.source_in_l2 || req.src == req.dst, "an L2-resident source on a peer copy");
  Queue& queue = queues_[static_cast<std::size_t>(owner)];
  for (std::size_t e = 0; e < queue.busy.size(); ++e) {
    if (!queue.busy[e]) return start(owner, static_cast<int>(e), std::move(req));
  }
  queue.waiting.push_back(std::move(req));
}

void Transfers::start(int owner, int engine_index, CopyRequest req) {
  queues_[static_cast<std::size_t>(owner)].busy[static_cast<std::size_t>(engine_index)] = true;
  const models::HardwareSpec& spec = gpu(owner).spec();
  const sim::Time began = engine_.now();
  const bool local = req.src == req.dst;
  PeerRoute route{};
  if (!local) route = fabric_.route(req.src, req.dst, req.hint);
  // A pull (the owner reads a peer) starts slower than a push or a local copy.
  const bool pull = !local && req.src != owner;
  const sim::Duration setup = pull ? spec.copy_engine.pull_setup : spec.copy_engine.setup;
  const sim::Duration memory = req.source_in_l2 ? spec.l2.hit_latency : spec.hbm.latency;
  const sim::Duration wait = setup + (local ? memory : route.latency);
  engine_.schedule_in(wait, [this, owner, engine_index, req = std::move(req), route, local,
                             began]() mutable {
    const sim::ResourceId ce = gpu(owner).copy_engines()[static_cast<std::size_t>(engine_index)];
    // Runs when every flow of this copy has finished.
    auto finish = [this, owner, engine_index, began, label = req.label,
                   done = std::move(req.done)]() {
      if (sim::TraceSink* trace = engine_.trace()) {
        // Process "gpuN", thread "ceK": the same track the solver names for resource "gpuN.ceK",
        // so each engine's copies and its bandwidth counter sit together under their GPU.
        trace->slice(trace->track(fmt::format("gpu{}", owner), fmt::format("ce{}", engine_index)),
                     label, began, engine_.now());
      }
      release(owner, engine_index);
      done();
    };
    if (local) {
      const sim::ResourceId hbm = gpu(req.src).hbm();
      auto pending = std::make_shared<int>(2);
      auto shared_finish = std::make_shared<decltype(finish)>(std::move(finish));
      auto one_done = [pending, shared_finish]() {
        if (--*pending == 0) (*shared_finish)();
      };
      // The engine's own rate is not the limit here (its `bandwidth` is what it reaches over
      // NVLink): HBM's, shared by the read and the write, the write on HBM's write side too; a
      // source the L2 holds is read from the L2 (the write still goes to HBM: memcpy_local.csv's
      // write kernels take as long with the L2 warm as cold).
      const sim::ResourceId read[] = {req.source_in_l2 ? gpu(req.src).l2() : hbm};
      const sim::ResourceId write[] = {hbm, gpu(req.src).hbm_write()};
      net_.start_flow(read, req.bytes, std::nullopt, one_done);
      net_.start_flow(write, req.bytes, std::nullopt, one_done);
      return;
    }
    path_.clear();
    path_.push_back(ce);
    append_peer_path(route, req.src, req.dst);
    net_.start_flow(path_, req.bytes, std::nullopt, std::move(finish));
  });
}

void Transfers::sm_copy(int src, int dst, sim::Bytes bytes, std::uint64_t hint,
                        std::function<void()> done) {
  MGSIM_CHECK(bytes.count() > 0 && src != dst, "SM copy of {} bytes from {} to {}", bytes.count(),
              src, dst);
  const PeerRoute route = fabric_.route(src, dst, hint);
  const sim::Bandwidth cap = models::peer_bandwidth(gpu(src).spec(), models::PeerPath::ldst);
  engine_.schedule_in(route.latency,
                      [this, src, dst, bytes, route, cap, done = std::move(done)]() mutable {
                        path_.clear();
                        append_peer_path(route, src, dst);
                        net_.start_flow(path_, bytes, cap, std::move(done));
                      });
}

void Transfers::append_peer_path(const PeerRoute& route, int src, int dst) {
  path_.insert(path_.end(), route.resources.begin(), route.resources.end());
  if (!route.nvlink) return;  // over PCIe and the network: no NVLink port is crossed
  if (const auto out =
          gpu(src).peer_port(models::PeerPath::copy_engine, models::PortDirection::out))
    path_.push_back(*out);
  if (const auto in = gpu(dst).peer_port(models::PeerPath::copy_engine, models::PortDirection::in))
    path_.push_back(*in);
}

void Transfers::release(int owner, int engine_index) {
  Queue& queue = queues_[static_cast<std::size_t>(owner)];
  queue.busy[static_cast<std::size_t>(engine_index)] = false;
  if (queue.waiting.empty()) return;
  CopyRequest next = std::move(queue.waiting.front());
  queue.waiting.pop_front();
  start(owner, engine_index, std::move(next));
}

}  // namespace mgsim::traces
