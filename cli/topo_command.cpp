// `mgsim topo T [-D key=value ...] [--dot]`: loads a topology (preset name or .yaml path) and
// prints its summary (GPUs, switches by kind, links, per-GPU injection bandwidth, bisection
// bandwidth of the rank-order halves, diameter between GPUs), or the graph in Graphviz DOT.
#include <charconv>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <boost/range/iterator_range.hpp>

#include "cli/commands.hpp"
#include "models/hardware_loader.hpp"
#include "sim/config.hpp"
#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "topologies/analysis.hpp"
#include "topologies/fabric.hpp"
#include "topologies/topology.hpp"

namespace mgsim::cli {
namespace {

struct TopoOptions {
  std::string topology;
  std::string hw;
  std::vector<std::string> defines;
  bool dot = false;
};

}  // namespace

std::map<std::string, std::int64_t> parse_topology_defines(const std::vector<std::string>& defines,
                                                           std::string_view flag) {
  std::map<std::string, std::int64_t> out;
  for (const std::string& d : defines) {
    const auto eq = d.find('=');
    std::int64_t value = 0;
    const char* begin = eq == std::string::npos ? nullptr : d.data() + eq + 1;
    const char* end = d.data() + d.size();
    if (eq == std::string::npos || eq == 0 || begin == end ||
        std::from_chars(begin, end, value).ptr != end)
      throw sim::ConfigError({fmt::format("{} {}", flag, d), 0, 0},
                             fmt::format("expected {} name=integer", flag));
    out[d.substr(0, eq)] = value;
  }
  return out;
}

namespace {

void print_summary(const topologies::Topology& topo, const models::HardwareSpec& hw) {
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  const topologies::Fabric fabric(topo, net);
  const auto& routing = fabric.routing();
  const auto s = topologies::summarize(topo, routing);
  std::cout << fmt::format("topology {} ({}): {} x {} GPUs on {} node{}\n", topo.name, topo.source,
                           topo.gpu_count(), topo.gpu_model, s.nodes, s.nodes == 1 ? "" : "s");
  if (!topo.params.empty()) {
    std::vector<std::string> p;
    for (const auto& [k, v] : topo.params) p.push_back(fmt::format("{}={}", k, v));
    std::cout << fmt::format("params: {}\n", fmt::join(p, " "));
  }
  std::vector<std::string> kinds;
  for (const auto& [kind, count] : s.vertices_by_kind)
    kinds.push_back(fmt::format("{} {}", count, kind));
  std::cout << fmt::format("vertices: {}\n", fmt::join(kinds, ", "));
  std::cout << fmt::format(
      "links: {} declared ({} lanes); {} trunks after merging groups and parallel links\n", s.links,
      s.lanes, s.trunks);
  sim::Bandwidth lo = fabric.injection_bandwidth(0);
  sim::Bandwidth hi = lo;
  for (int g = 1; g < fabric.gpu_count(); ++g) {
    lo = std::min(lo, fabric.injection_bandwidth(g));
    hi = std::max(hi, fabric.injection_bandwidth(g));
  }
  // Where the GPUs' NVLink rate came from: the hardware file, unless the topology gives its own.
  bool from_gpu = false;
  for (const auto& e : boost::make_iterator_range(boost::edges(topo.graph)))
    from_gpu |= topo.graph[e].gpu_rate;
  if (from_gpu)
    std::cout << fmt::format(
        "GPU NVLink: {} links x {} per direction (hardware {}: nvlink.links, "
        "nvlink.link_bandwidth, {})\n",
        hw.nvlink.links, sim::to_string(hw.nvlink.link_bandwidth), hw.name,
        hw.sources.contains("nvlink.link_bandwidth") ? hw.sources.at("nvlink.link_bandwidth")
                                                     : "no source given");
  std::cout << fmt::format("injection bandwidth per GPU: {} per direction\n",
                           lo == hi
                               ? sim::to_string(lo)
                               : fmt::format("{} to {}", sim::to_string(lo), sim::to_string(hi)));
  const int n = topo.gpu_count();
  if (n >= 2) {
    std::cout << fmt::format("bisection bandwidth (GPUs 0-{} -> {}-{}): {} per direction\n",
                             n / 2 - 1, n / 2, n - 1,
                             sim::to_string(topologies::bisection_bandwidth(routing)));
    const topologies::Diameter d = topologies::gpu_diameter(routing);
    if (d.exact)
      std::cout << fmt::format("diameter: {} hops between GPUs\n", d.hops);
    else
      std::cout << fmt::format(
          "diameter: at least {} hops between GPUs (routes to {} of the {} GPUs measured, all "
          "pairs only up to {} GPUs)\n",
          d.hops, d.destinations, n, topologies::kExactDiameterGpus);
  }
}

}  // namespace

void add_topo_command(CLI::App& app) {
  auto opts = std::make_shared<TopoOptions>();
  CLI::App* cmd = app.add_subcommand("topo", "Summarise a topology or print it as Graphviz DOT");
  cmd->add_option("topology", opts->topology, "preset name (e.g. hgx-h200-8) or path to a .yaml")
      ->required();
  cmd->add_option("-D,--define", opts->defines, "override a topology param: -D nodes=4");
  cmd->add_option("--hw", opts->hw,
                  "hardware preset or .yaml whose NVLink rate the GPUs' links take (default: the "
                  "topology's GPU)");
  cmd->add_flag("--dot", opts->dot, "print the graph in Graphviz DOT instead of the summary");
  cmd->footer(fmt::format("presets: {}", fmt::join(topologies::preset_names(), ", ")));
  cmd->callback([opts] {
    auto topo =
        topologies::load_topology(opts->topology, parse_topology_defines(opts->defines, "-D"));
    // Its GPUs' NVLink links run at the GPU's rate, which the hardware file gives.
    const models::HardwareSpec hw =
        models::load_hardware(opts->hw.empty() ? topo.gpu_model : opts->hw);
    if (hw.nvlink.links > 0)
      topologies::resolve_gpu_links(topo, hw.nvlink.link_bandwidth, hw.nvlink.links, hw.name);
    if (opts->dot) {
      topologies::write_dot(std::cout, topo);
    } else {
      print_summary(topo, hw);
    }
  });
}

}  // namespace mgsim::cli
