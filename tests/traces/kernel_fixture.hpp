// A toy machine for the kernel tests, with numbers that make the arithmetic easy:
//   - SMs: `sms` per GPU, 1000 bf16 flops/cycle at a 1 GHz tensor clock = 1e12 flops/s per SM;
//     SM clock 1 GHz (TMA issue: 64 cycles = 64 ns); 1 CTA per SM for 2048 threads.
//   - HBM 1000 GB/s, 500 ns latency; L2 100 GB/s, 100 ns hit latency; launch 1 us.
//   - NVLink: 4 links x 25 GB/s = 100 GB/s per direction, efficiencies 1 (TMA, ld/st, copy engine).
//   - one copy engine of 50 GB/s with 2 us setup.
//   - TMA: 8 messages in flight of at most 227 KiB; ld/st: 32 KiB in flight per SM.
//   - fabric: a crossbar, each GPU with one 100 GB/s out and one 100 GB/s in port; every route is
//     [src out, dst in] with 1 us latency (two hops, so it counts as switched for multimem).
#pragma once

#include <string>
#include <vector>

#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "tests/traces/crossbar.hpp"
#include "tests/traces/free_host.hpp"
#include "traces/executor.hpp"

namespace mgsim::test {

inline models::HardwareSpec toy_device(int sms = 4) {
  models::HardwareSpec hw;
  hw.name = "toy";
  hw.sm.count = sms;
  hw.sm.clock = sim::Frequency::mhz(1000);
  hw.sm.tensor_clock = sim::Frequency::mhz(1000);
  hw.sm.flops_per_cycle_bf16 = 1000;
  hw.sm.flops_per_cycle_fp16 = 1000;
  hw.sm.flops_per_cycle_fp8 = 2000;
  hw.hbm.bandwidth = sim::Bandwidth::GBps(1000);
  hw.hbm.latency = sim::Duration::ns(500);
  hw.l2.bandwidth = sim::Bandwidth::GBps(100);
  hw.l2.hit_latency = sim::Duration::ns(100);
  // A launch: 1 us from the stream reaching it to its CTAs, all at once; no host costs.
  hw.host = test::free_host();
  hw.launch.latency = sim::Duration::us(1);
  hw.launch.per_cta = sim::Duration::zero();
  hw.nvlink.links = 4;
  hw.nvlink.link_bandwidth = sim::Bandwidth::GBps(25);
  hw.tma.messages_in_flight = 8;
  hw.copy_engine.count = 1;
  hw.copy_engine.bandwidth = sim::Bandwidth::GBps(50);
  hw.copy_engine.setup = sim::Duration::us(2);
  // The SM's memory pipe and the TMA issuing thread never bind here (kernel_exec_test.cpp tests
  // them on their own).
  hw.sm.memory_rate = sim::Bandwidth::GBps(100'000);
  hw.tma.message_interval = sim::Duration::zero();
  return hw;
}

struct KernelRun {
  traces::RunResult result;
  std::int64_t port_bytes = 0;
};

inline KernelRun run_kernels(const std::string& text, int gpus, const models::HardwareSpec& dev,
                             const std::vector<std::pair<std::string, std::string>>& d = {}) {
  const traces::Schedule s = traces::load_schedule(sim::Node::load_string(text, "k.yaml"));
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  Crossbar fabric(net, gpus);
  KernelRun out;
  out.result = traces::execute(s, traces::param_values(s, d), engine, net, fabric, dev);
  out.port_bytes = fabric.port_bytes(net);
  return out;
}

inline std::int64_t stream_end(const traces::RunResult& r, int rank, const std::string& stream) {
  for (const auto& s : r.streams)
    if (s.rank == rank && s.stream == stream) return s.end.picoseconds();
  return -1;
}

inline std::string config_error(auto&& fn) {
  try {
    fn();
  } catch (const sim::ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace mgsim::test
