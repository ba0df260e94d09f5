// A toy fabric for the traces tests: each GPU has one outgoing and one incoming port of 100 GB/s;
// route(s, d) crosses s's out port and d's in port with 1 us of latency (two hops, so it counts as
// switched for multimem).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/fluid.hpp"
#include "traces/executor.hpp"

namespace mgsim::test {

class Crossbar final : public traces::Interconnect {
 public:
  Crossbar(sim::FluidNetwork& net, int gpus) {
    for (int g = 0; g < gpus; ++g) {
      out_.push_back(net.add_resource("out" + std::to_string(g), sim::Bandwidth::GBps(100)));
      in_.push_back(net.add_resource("in" + std::to_string(g), sim::Bandwidth::GBps(100)));
    }
    for (int s = 0; s < gpus; ++s)
      for (int d = 0; d < gpus; ++d) paths_.push_back({out_[s], in_[d]});
  }
  int gpu_count() const override { return static_cast<int>(out_.size()); }
  traces::PeerRoute route(int src, int dst, std::uint64_t) override {
    return {paths_[static_cast<std::size_t>(src * gpu_count() + dst)], sim::Duration::us(1)};
  }
  // Bytes carried by all ports together (both directions).
  std::int64_t port_bytes(sim::FluidNetwork& net) const {
    std::int64_t sum = 0;
    for (auto r : out_) sum += net.stats(r).bytes_carried.count();
    for (auto r : in_) sum += net.stats(r).bytes_carried.count();
    return sum;
  }

 private:
  std::vector<sim::ResourceId> out_, in_;
  std::vector<std::vector<sim::ResourceId>> paths_;
};

}  // namespace mgsim::test
