// The timed part of the traces benchmarks: one run of a parsed schedule on a fresh engine and
// fabric (parsing, topology loading and hardware loading stay outside the timing loop).
#pragma once

#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "topologies/fabric.hpp"
#include "topologies/topology.hpp"
#include "traces/executor.hpp"
#include "traces/fabric_interconnect.hpp"
#include "traces/schedule.hpp"

namespace mgsim::bench {

inline traces::RunResult run_once(const traces::Schedule& schedule, const traces::Env& params,
                                  const topologies::Topology& topo,
                                  const models::HardwareSpec& hw) {
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  const topologies::Fabric fabric(topo, net);
  traces::FabricInterconnect interconnect(fabric);
  return traces::execute(schedule, params, engine, net, interconnect, hw);
}

}  // namespace mgsim::bench
