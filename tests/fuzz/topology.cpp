// Fuzz target: a topology file (YAML) loaded as `--topology FILE` loads it, then summarised as
// `mgsim topo` does (routing, bisection by max-flow, diameter) when it has at most 4,096 GPUs (a
// bigger one is correct but slow to summarise for a fuzzer's time limit). Seeds: the presets.
#include "topologies/topology.hpp"
#include "models/hardware_loader.hpp"
#include "tests/fuzz/fuzz_target.hpp"
#include "topologies/analysis.hpp"
#include "topologies/routing.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mgsim;
  return fuzz::accept_bad_input([&] {
    topologies::Topology t = topologies::load_topology_text(fuzz::text_of(data, size), "<fuzz>");
    if (t.gpu_count() < 2 || t.gpu_count() > 4096) return;
    // As mgsim topo: the GPUs' NVLink links at their hardware's rate.
    const models::HardwareSpec hw = models::load_hardware(t.gpu_model);
    if (hw.nvlink.links > 0)
      topologies::resolve_gpu_links(t, hw.nvlink.link_bandwidth, hw.nvlink.links, hw.name);
    if (!topologies::links_resolved(t)) return;
    const topologies::RoutingGraph routing(t);
    topologies::bisection_bandwidth(routing);
    topologies::gpu_diameter(routing);
  });
}
