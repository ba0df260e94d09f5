#include "traces/transfers.hpp"

#include <memory>

#include <fmt/format.h>

#include "sim/check.hpp"

namespace mgsim::traces {

Transfers::Transfers(sim::Engine& engine, sim::FluidNetwork& net, Interconnect& fabric,
                     const DeviceModel& device, int gpus, ResourceCatalog* catalog)
    : engine_(engine), net_(net), fabric_(fabric), device_(device) {
  MGSIM_CHECK(device.copy_engines > 0, "a GPU needs at least one copy engine");
  gpus_.resize(static_cast<std::size_t>(gpus));
  for (int g = 0; g < gpus; ++g) {
    Gpu& gpu = gpus_[static_cast<std::size_t>(g)];
    for (int e = 0; e < device.copy_engines; ++e)
      gpu.engines.push_back(
          net.add_resource(fmt::format("gpu{}.ce{}", g, e), device.copy_engine_bandwidth));
    gpu.busy.assign(gpu.engines.size(), false);
    gpu.hbm = net.add_resource(fmt::format("gpu{}.hbm", g), device.hbm_bandwidth);
    if (device.peer_copy_cap) {
      gpu.peer_out = net.add_resource(fmt::format("gpu{}.peer.out", g), *device.peer_copy_cap);
      gpu.peer_in = net.add_resource(fmt::format("gpu{}.peer.in", g), *device.peer_copy_cap);
    }
    if (catalog) {
      for (const sim::ResourceId ce : gpu.engines)
        catalog->add(ce, UnitKind::copy_engine, g, gpu_group(g, "copy_engine"));
      catalog->add(gpu.hbm, UnitKind::hbm, g, gpu_group(g, "hbm"));
      if (gpu.peer_out)
        catalog->add(*gpu.peer_out, UnitKind::peer_out, g, gpu_group(g, "peer.out"));
      if (gpu.peer_in) catalog->add(*gpu.peer_in, UnitKind::peer_in, g, gpu_group(g, "peer.in"));
    }
  }
}

void Transfers::copy(int owner, int src, int dst, sim::Bytes bytes, std::uint64_t hint,
                     std::string_view label, std::function<void()> done) {
  MGSIM_CHECK(bytes.count() > 0, "copy of {} bytes", bytes.count());
  Gpu& gpu = gpus_[static_cast<std::size_t>(owner)];
  Request req{src, dst, bytes, hint, label, std::move(done)};
  for (std::size_t e = 0; e < gpu.busy.size(); ++e) {
    if (!gpu.busy[e]) return start(owner, static_cast<int>(e), std::move(req));
  }
  gpu.waiting.push_back(std::move(req));
}

void Transfers::start(int owner, int engine_index, Request req) {
  Gpu& gpu = gpus_[static_cast<std::size_t>(owner)];
  gpu.busy[static_cast<std::size_t>(engine_index)] = true;
  const sim::Time began = engine_.now();
  const bool local = req.src == req.dst;
  PeerRoute route{};
  if (!local) route = fabric_.route(req.src, req.dst, req.hint);
  const sim::Duration wait =
      device_.copy_engine_setup + (local ? device_.hbm_latency : route.latency);
  engine_.schedule_in(wait, [this, owner, engine_index, req = std::move(req), route, local,
                             began]() mutable {
    Gpu& g = gpus_[static_cast<std::size_t>(owner)];
    const sim::ResourceId ce = g.engines[static_cast<std::size_t>(engine_index)];
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
      const sim::ResourceId hbm = gpus_[static_cast<std::size_t>(req.src)].hbm;
      auto pending = std::make_shared<int>(2);
      auto shared_finish = std::make_shared<decltype(finish)>(std::move(finish));
      auto one_done = [pending, shared_finish]() {
        if (--*pending == 0) (*shared_finish)();
      };
      const sim::ResourceId write_path[] = {ce, hbm};
      const sim::ResourceId read_path[] = {hbm};
      net_.start_flow(write_path, req.bytes, std::nullopt, one_done);
      net_.start_flow(read_path, req.bytes, device_.copy_engine_bandwidth, one_done);
      return;
    }
    path_.clear();
    path_.push_back(ce);
    path_.insert(path_.end(), route.resources.begin(), route.resources.end());
    if (const auto& out = gpus_[static_cast<std::size_t>(req.src)].peer_out) path_.push_back(*out);
    if (const auto& in = gpus_[static_cast<std::size_t>(req.dst)].peer_in) path_.push_back(*in);
    net_.start_flow(path_, req.bytes, std::nullopt, std::move(finish));
  });
}

void Transfers::sm_copy(int src, int dst, sim::Bytes bytes, std::uint64_t hint,
                        std::function<void()> done) {
  MGSIM_CHECK(device_.hardware != nullptr, "an SM-driven copy needs the GPU model");
  MGSIM_CHECK(bytes.count() > 0 && src != dst, "SM copy of {} bytes from {} to {}", bytes.count(),
              src, dst);
  const PeerRoute route = fabric_.route(src, dst, hint);
  const sim::Bandwidth cap = models::peer_bandwidth(*device_.hardware, models::PeerPath::ldst);
  engine_.schedule_in(route.latency,
                      [this, src, dst, bytes, route, cap, done = std::move(done)]() mutable {
                        path_.clear();
                        path_.insert(path_.end(), route.resources.begin(), route.resources.end());
                        if (const auto& out = gpus_[static_cast<std::size_t>(src)].peer_out)
                          path_.push_back(*out);
                        if (const auto& in = gpus_[static_cast<std::size_t>(dst)].peer_in)
                          path_.push_back(*in);
                        net_.start_flow(path_, bytes, cap, std::move(done));
                      });
}

void Transfers::release(int owner, int engine_index) {
  Gpu& gpu = gpus_[static_cast<std::size_t>(owner)];
  gpu.busy[static_cast<std::size_t>(engine_index)] = false;
  if (gpu.waiting.empty()) return;
  Request next = std::move(gpu.waiting.front());
  gpu.waiting.pop_front();
  start(owner, engine_index, std::move(next));
}

}  // namespace mgsim::traces
