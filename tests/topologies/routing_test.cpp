// Routing and the wired fabric on the HGX H200 preset and small hand-written topologies.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "tests/topologies/preset.hpp"
#include "topologies/analysis.hpp"
#include "topologies/fabric.hpp"
#include "topologies/topology.hpp"

using namespace mgsim;
using topologies::Fabric;

namespace {

std::vector<std::string> names(const sim::FluidNetwork& net, const Fabric::Route& r) {
  std::vector<std::string> out;
  for (auto id : r.resources) out.push_back(net.name(id));
  return out;
}

}  // namespace

TEST_CASE("hgx-h200-8: every GPU pair is two hops through the NVSwitch group") {
  const auto topo = test::preset("hgx-h200-8");
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  const Fabric fabric(topo, net);
  REQUIRE(fabric.gpu_count() == 8);
  // The 4 chips are one group, so one trunk per GPU and direction: 8 GPUs x 2 = 16 resources.
  CHECK(net.resource_count() == 16);
  const auto& r = fabric.route(0, 5);
  CHECK(names(net, r) == std::vector<std::string>{"gpu0->nvswitch", "nvswitch->gpu5"});
  // Two links of 250 ns each (preset's assumed latency), no switch latency declared.
  CHECK(r.latency == sim::Duration::ns(500));
  // The trunk carries all 18 lanes: 18 x 25 GB/s = 450 GB/s per direction.
  CHECK(net.capacity(r.resources[0]) == sim::Bandwidth::GBps(450));
  CHECK(fabric.injection_bandwidth(3) == sim::Bandwidth::GBps(450));
  CHECK(fabric.gpu_name(7) == "gpu7");
  CHECK(fabric.node_of(7) == 0);
  // Cached: the same object comes back.
  CHECK(&fabric.route(0, 5) == &r);
}

TEST_CASE("ECMP without a group: flows spread over 4 parallel switches by their lanes") {
  // Two GPUs wired like HGX but without `group`: each switch is its own equal-cost 2-hop path,
  // with 4, 5, 5, 4 lanes (weights 4/18, 5/18, 5/18, 4/18 = 22 %, 28 %, 28 %, 22 %).
  const char* text = R"(
gpu: h200
vertices:
  - {name: "gpu{i}", kind: gpu, repeat: {i: 2}}
  - {name: "nvswitch{s}", kind: nvswitch, repeat: {s: 4}}
links:
  - {from: "gpu{i}", to: "nvswitch{s}", repeat: {i: 2, s: 4}, kind: nvlink,
     lanes: 4 + (s == 1) + (s == 2), bandwidth_per_lane: 25GB/s, latency: 250ns}
)";
  const auto topo = topologies::load_topology_text(text, "ecmp.yaml");
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  const Fabric fabric(topo, net);
  std::map<std::string, int> first_hop;
  for (std::uint64_t hint = 0; hint < 1000; ++hint) {
    const auto& r = fabric.route(0, 1, hint);
    REQUIRE(r.resources.size() == 2);
    // Both hops go through the same switch: the path is gpu0 -> s -> gpu1.
    const auto hop0 = net.name(r.resources[0]);
    const auto hop1 = net.name(r.resources[1]);
    CHECK(hop0.substr(6) == hop1.substr(0, hop1.find('-')));
    ++first_hop[hop0];
  }
  // Every switch carries a share; hints fold into 64 classes, so shares are multiples of 1/64
  // around the weights above. A bound of 10-40 % fails if a switch is never or always chosen.
  REQUIRE(first_hop.size() == 4);
  for (const auto& [hop, n] : first_hop) {
    INFO(hop << ": " << n);
    CHECK(n > 100);
    CHECK(n < 400);
  }
  // Deterministic: the same hint gives the same route.
  CHECK(&fabric.route(0, 1, 17) == &fabric.route(0, 1, 17));
}

TEST_CASE("hgx-h200-ib: same-rank GPUs of two nodes stay on their rail") {
  const auto topo = test::preset("hgx-h200-ib", {{"nodes", 4}});
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  const Fabric fabric(topo, net);
  REQUIRE(fabric.gpu_count() == 32);
  for (int i = 0; i < 8; ++i) {
    // Node 0 GPU i (rank i) to node 2 GPU i (rank 16 + i): down PCIe to NIC i, up to leaf i and
    // straight back down: 6 hops, never a spine.
    const auto hops = names(net, fabric.route(i, 16 + i, 12345));
    const std::string s = std::to_string(i);
    CHECK(hops ==
          std::vector<std::string>{"n0.gpu" + s + "->n0.pcie" + s, "n0.pcie" + s + "->n0.nic" + s,
                                   "n0.nic" + s + "->leaf" + s, "leaf" + s + "->n2.nic" + s,
                                   "n2.nic" + s + "->n2.pcie" + s, "n2.pcie" + s + "->n2.gpu" + s});
  }
  // Latency (preset's assumed values): 2 x 100 ns PCIe + 2 x 300 ns NIC-leaf + 200 ns leaf
  // traversal + 2 x 100 ns PCIe on the far side = 1200 ns.
  CHECK(fabric.route(0, 16).latency == sim::Duration::ns(1200));
  // Inside a node, NVLink: 2 hops through the node's NVSwitch group.
  CHECK(names(net, fabric.route(9, 13)) ==
        std::vector<std::string>{"n1.gpu1->n1.nvswitch", "n1.nvswitch->n1.gpu5"});
  // Injection: NVLink 18 x 25 = 450 GB/s plus PCIe Gen5 x16 63 GB/s = 513 GB/s.
  CHECK(fabric.injection_bandwidth(5) == sim::Bandwidth::GBps(513));
  // Its ports: the NVLink trunk and the PCIe link, each way.
  std::vector<std::string> out_ports;
  for (auto id : fabric.egress(5)) out_ports.push_back(net.name(id));
  std::vector<std::string> in_ports;
  for (auto id : fabric.ingress(5)) in_ports.push_back(net.name(id));
  std::sort(out_ports.begin(), out_ports.end());
  std::sort(in_ports.begin(), in_ports.end());
  CHECK(out_ports == std::vector<std::string>{"n0.gpu5->n0.nvswitch", "n0.gpu5->n0.pcie5"});
  CHECK(in_ports == std::vector<std::string>{"n0.nvswitch->n0.gpu5", "n0.pcie5->n0.gpu5"});
  CHECK(fabric.node_of(17) == 2);
}

TEST_CASE("hgx-h200-ib: cross-rail traffic crosses a spine, hints spread it over all spines") {
  const auto topo = test::preset("hgx-h200-ib");  // nodes 2, spines 4
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  const Fabric fabric(topo, net);
  std::set<std::string> spines;
  for (std::uint64_t hint = 0; hint < 200; ++hint) {
    // n0.gpu0 -> n1.gpu3: gpu, pcie, nic0, leaf0, spine, leaf3, nic3, pcie, gpu = 8 hops.
    const auto hops = names(net, fabric.route(0, 11, hint));
    REQUIRE(hops.size() == 8);
    CHECK(hops[2] == "n0.nic0->leaf0");
    CHECK(hops[5] == hops[4].substr(hops[4].find('>') + 1) + "->n1.nic3");
    spines.insert(hops[3]);
  }
  // Four equal spines (1 uplink each with 2 nodes): 200 hints over 64 classes reach them all.
  CHECK(spines ==
        std::set<std::string>{"leaf0->spine0", "leaf0->spine1", "leaf0->spine2", "leaf0->spine3"});
}

TEST_CASE("nvl576: a cross-rack route climbs to the spine tier") {
  const auto topo = test::preset("nvl576");
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  const Fabric fabric(topo, net);
  REQUIRE(fabric.gpu_count() == 576);
  // rack0.gpu0 -> rack1.gpu0 (rank 72): GPU, rack 0's chips, spine tier, rack 1's chips, GPU.
  CHECK(names(net, fabric.route(0, 72)) ==
        std::vector<std::string>{"rack0.gpu0->rack0.nvswitch", "rack0.nvswitch->spine",
                                 "spine->rack1.nvswitch", "rack1.nvswitch->rack1.gpu0"});
  // 4 links x 250 ns (assumed in the preset).
  CHECK(fabric.route(0, 72).latency == sim::Duration::ns(1000));
  // The rack's uplink trunk: 18 chips x 72 uplinks x 50 GB/s = 64.8 TB/s = 72 GPUs x 900 GB/s.
  const auto up = fabric.route(0, 72).resources[1];
  CHECK(net.capacity(up) == sim::Bandwidth::GBps(64'800));
  CHECK(fabric.node_of(575) == 7 * 18 + 71 / 4);
}
