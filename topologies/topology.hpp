// A machine's interconnect as loaded from a topology YAML file: vertices (GPUs, NVSwitch chips,
// NICs, PCIe switches, CPUs, InfiniBand switches) and full-duplex links between them, held in a
// Boost.Graph adjacency_list with bundled properties.
//
// Contract:
//   - Every link is full duplex and symmetric: `bandwidth` is per direction, for all its lanes
//     together (lanes x per-lane rate); `latency` is one way.
//   - GPU ranks are the GPU vertices in file order (generators expand innermost loop fastest).
//   - A vertex may name a `group`: chips that a GPU's traffic is sprayed across as one plane
//     (NVLink stripes every transfer over all links of a GPU, so the 4 NVSwitch chips of an HGX
//     board act as one non-blocking switch). Routing (routing.hpp) merges a group into one
//     vertex and merges the links that then join the same two vertices into one trunk.
//   - load_topology() guarantees: names unique, no self links, no duplicate links between the
//     same two vertices, every size positive, at least one GPU, and every GPU reaches GPU 0
//     through non-GPU vertices. Bad input throws sim::ConfigError naming file:line:column.
//   - One source per rate: an NVLink link of a GPU may leave out its bandwidth; it then runs at
//     the GPU's per-link rate, which the hardware file defines (nvlink.link_bandwidth), filled in
//     by resolve_gpu_links() before anything routes over it. The presets leave it out, so a
//     what-if of the GPU's NVLink changes its links and its ports at once; a rate given here is
//     that wire's alone.
// Ignores: link-level protocol efficiency and flow control (models/ owns those), failures.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "sim/config.hpp"
#include "sim/units.hpp"

namespace mgsim::topologies {

enum class VertexKind { gpu, nvswitch, nic, pcie_switch, cpu, ib_switch };
enum class LinkKind { nvlink, pcie, ib, ethernet, c2c };
// The `kind` names of topology files, in the order error messages list them.
inline constexpr auto kVertexKindNames =
    sim::name_table<VertexKind>({{VertexKind::gpu, "gpu"},
                                 {VertexKind::nvswitch, "nvswitch"},
                                 {VertexKind::nic, "nic"},
                                 {VertexKind::pcie_switch, "pcie_switch"},
                                 {VertexKind::cpu, "cpu"},
                                 {VertexKind::ib_switch, "ib_switch"}});
inline constexpr auto kLinkKindNames = sim::name_table<LinkKind>({{LinkKind::nvlink, "nvlink"},
                                                                  {LinkKind::pcie, "pcie"},
                                                                  {LinkKind::ib, "ib"},
                                                                  {LinkKind::ethernet, "ethernet"},
                                                                  {LinkKind::c2c, "c2c"}});

std::string_view to_string(VertexKind k);
std::string_view to_string(LinkKind k);

struct VertexInfo {
  std::string name;
  VertexKind kind = VertexKind::gpu;
  int node = 0;           // host / tray / rack index the vertex belongs to
  bool in_node = false;   // `node:` was given; otherwise the vertex belongs to no node (0 above)
  std::string group;      // empty: the vertex routes on its own
  sim::Duration latency;  // added when a route crosses this vertex (switch traversal)
  sim::SourceLocation where;
};

struct LinkInfo {
  LinkKind kind = LinkKind::nvlink;
  int lanes = 1;
  sim::Bandwidth bandwidth;  // per direction, all lanes together
  sim::Duration latency;     // one way
  sim::SourceLocation where;
  // An NVLink link of a GPU given no bandwidth: it runs at the GPU's own per-link rate (the
  // hardware file's nvlink.link_bandwidth x lanes), set by resolve_gpu_links(); zero until then.
  bool gpu_rate = false;
};

using Graph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexInfo, LinkInfo>;
using VertexId = Graph::vertex_descriptor;

struct Topology {
  std::string name;
  std::string gpu_model;                       // hardware preset name in models/presets ("h200")
  std::string source;                          // file the topology was read from
  std::map<std::string, std::int64_t> params;  // after overrides
  Graph graph;
  std::vector<VertexId> gpus;  // rank -> vertex

  int gpu_count() const { return static_cast<int>(gpus.size()); }
};

// Loads a preset by name ("hgx-h200-8") or a topology file by path (anything holding a '/' or
// ending in .yaml/.yml). `overrides` replace declared params; overriding an undeclared one is an
// error. Throws sim::ConfigError.
Topology load_topology(const std::string& preset_or_path,
                       const std::map<std::string, std::int64_t>& overrides = {});
// Loads from YAML text; `file` names it in messages.
Topology load_topology_text(const std::string& text, const std::string& file,
                            const std::map<std::string, std::int64_t>& overrides = {});

// Sets every `gpu_rate` link's bandwidth to lanes x `per_link`. ConfigError when the NVLink lanes
// of a GPU with such a link do not add up to the hardware's `links` (the wiring and the GPU
// disagree); `hardware` names the hardware in messages. A link that gives its own rate keeps it:
// a what-if of that wire alone (the GPU's NVLink port stays the hardware's). REQUIRES:
// per_link > 0.
void resolve_gpu_links(Topology& topo, sim::Bandwidth per_link, int links,
                       const std::string& hardware);
// Whether every link has a bandwidth (no `gpu_rate` link left unresolved).
bool links_resolved(const Topology& topo);

// Names of the built-in presets, sorted.
std::vector<std::string> preset_names();

}  // namespace mgsim::topologies
