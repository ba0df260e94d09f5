// The resource catalog and the communication-aware roofline: every expected number is derived in
// a comment before its assertion, from the presets' figures (hgx-h200-8, h200) or a toy machine.
#include "traces/roofline.hpp"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/traces/examples.hpp"

#include "models/hardware_loader.hpp"
#include "sim/check.hpp"
#include "sim/engine.hpp"
#include "topologies/fabric.hpp"
#include "traces/fabric_catalog.hpp"
#include "traces/fabric_interconnect.hpp"
#include "traces/simulation.hpp"

using namespace mgsim;
using namespace mgsim::traces;

namespace {

Schedule schedule_of(const std::string& text) {
  return load_schedule(sim::Node::load_string(text, "t.yaml"));
}

const UnitTerm& term(const Roofline& r, const std::string& group) {
  const auto it = std::find_if(r.terms.begin(), r.terms.end(),
                               [&](const UnitTerm& t) { return t.group == group; });
  REQUIRE(it != r.terms.end());
  return *it;
}

Result on_hgx(const std::string& text) {
  const Schedule s = schedule_of(text);
  return simulate(s, param_values(s, {}), Machine::load("hgx-h200-8", {}, "h200"));
}

// A crossbar whose ports are not registered: the roofline then sees only what Transfers adds.
class Crossbar final : public Interconnect {
 public:
  Crossbar(sim::FluidNetwork& net, int gpus) {
    for (int g = 0; g < gpus; ++g) {
      out_.push_back(net.add_resource("out" + std::to_string(g), sim::Bandwidth::GBps(100)));
      in_.push_back(net.add_resource("in" + std::to_string(g), sim::Bandwidth::GBps(100)));
    }
  }
  int gpu_count() const override { return static_cast<int>(out_.size()); }
  PeerRoute route(int src, int dst, std::uint64_t) override {
    path_ = {out_[static_cast<std::size_t>(src)], in_[static_cast<std::size_t>(dst)]};
    return {path_, sim::Duration::us(1)};
  }

 private:
  std::vector<sim::ResourceId> out_, in_, path_;
};

}  // namespace

TEST_CASE("register_fabric puts each GPU's NVLink directions in its own unit groups") {
  const Machine machine = Machine::load("hgx-h200-8", {}, "h200");  // NVLink rates resolved
  const topologies::Topology& topo = machine.topology();
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  const topologies::Fabric fabric(topo, net);
  models::ResourceCatalog catalog;
  register_fabric(catalog, fabric, topo);
  // HGX: 8 GPUs, each with one trunk to the merged "nvswitch" group vertex: 8 trunks x 2
  // directions = 16 arcs, all registered, half out of a GPU, half into one.
  REQUIRE(catalog.entries().size() == fabric.routing().arcs().size());
  CHECK(catalog.entries().size() == 16);
  int out = 0, in = 0;
  for (const models::CatalogEntry& e : catalog.entries()) {
    REQUIRE(e.gpu >= 0);
    if (e.kind == models::UnitKind::nvlink_out) {
      ++out;
      CHECK(e.group == models::gpu_group(e.gpu, "nvlink.out"));
    } else {
      ++in;
      CHECK(e.kind == models::UnitKind::nvlink_in);
      CHECK(e.group == models::gpu_group(e.gpu, "nvlink.in"));
    }
  }
  CHECK(out == 8);
  CHECK(in == 8);
  // gpu3's out direction is the arc named "gpu3->nvswitch" (fabric.hpp's naming).
  for (const models::CatalogEntry& e : catalog.entries())
    if (e.group == "gpu3.nvlink.out") CHECK(net.name(e.resource) == "gpu3->nvswitch");
}

TEST_CASE("a unit group cannot mix kinds and a resource is registered once") {
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  const sim::ResourceId a = net.add_resource("a", sim::Bandwidth::GBps(1));
  const sim::ResourceId b = net.add_resource("b", sim::Bandwidth::GBps(1));
  models::ResourceCatalog catalog;
  catalog.add(a, models::UnitKind::hbm, 0, "gpu0.hbm");
  CHECK_THROWS_AS(catalog.add(b, models::UnitKind::l2, 0, "gpu0.hbm"), sim::InternalError);
  CHECK_THROWS_AS(catalog.add(a, models::UnitKind::hbm, 0, "gpu0.other"), sim::InternalError);
  CHECK(catalog.find(b) == nullptr);
  REQUIRE(catalog.find(a) != nullptr);
  CHECK(catalog.find(a)->group == "gpu0.hbm");
  CHECK(measure_of(models::UnitKind::tensor_pipe) == models::Measure::flops);
  CHECK(measure_of(models::UnitKind::nvlink_out) == models::Measure::bytes);
}

TEST_CASE("a single peer copy is bound by the peer rate and misses it by setup + latency") {
  const Result run = on_hgx(R"(streams:
  - name: copy
    if: rank == 0
    ops: [{memcpy: {bytes: 1GiB, src: 0, dst: 1}}]
)");
  const Roofline& r = run.roofline;
  // The slowest unit is the peer rate models::peer_bandwidth(h200, copy_engine) = 18 x 25 GB/s x
  // 0.8196 = 368.82 GB/s, below the 450 GB/s engine and NVLink trunk. The model computes the
  // product in double and truncates it to whole B/s: 368'819'999'999 B/s.
  const std::int64_t peer = 368'819'999'999;
  CHECK(term(r, "gpu0.peer.out").capacity == peer);
  // bound = ceil(1073741824 B x 1e12 / 368819999999 B/s) = ceil(2911289583.0023) = 2911289584 ps
  // for gpu0's peer.out and gpu1's peer.in alike; the tie goes to the smaller name.
  CHECK(r.bound.picoseconds() == 2'911'289'584);
  REQUIRE(r.bottleneck() != nullptr);
  CHECK(r.bottleneck()->group == "gpu0.peer.out");
  CHECK(term(r, "gpu1.peer.in").time.picoseconds() == 2'911'289'584);
  // The link carries the same bytes at its raw 450 GB/s: ceil(1073741824 / 450e9 s) =
  // 2386092943 ps, less than the bound.
  CHECK(term(r, "gpu0.nvlink.out").amount == 1'073'741'824);
  CHECK(term(r, "gpu0.nvlink.out").time.picoseconds() == 2'386'092'943);
  // The run adds the host's call (host.memcpy 3 us), the engine's 2 us setup and the route's
  // 500 ns (gpu0->nvswitch 250 ns + nvswitch->gpu1 250 ns) before the bytes flow at exactly the
  // bound's rate: 5500000 ps more, less the solver's rounding: it computes the completion in
  // double and loses the 0.0023 ps above, so it lands 1 ps early (2916789583 ps, the pinned
  // peer_copy example).
  const std::int64_t gap = run.run.end.picoseconds() - r.bound.picoseconds();
  CHECK(gap >= 5'500'000 - 1);
  CHECK(gap <= 5'500'000);
  // fraction = 2911289584 / 2916789583 = 0.99811..., below 1 by about 5.5 us / 2916.79 us.
  CHECK(r.fraction() < 1.0);
  CHECK(r.fraction() ==
        Approx(2911289584.0 / static_cast<double>(run.run.end.picoseconds())).epsilon(1e-12));
  // Nothing touched gpu2: its terms carry nothing.
  CHECK(term(r, "gpu2.peer.out").amount == 0);
  CHECK(term(r, "gpu2.peer.out").utilisation == 0.0);
}

TEST_CASE("a ring all-reduce's bound is 2(n-1)/n x S per GPU at the peer rate") {
  const Result run = on_hgx(R"(streams:
  - name: nccl
    ops:
      - collective: {op: all_reduce, algorithm: ideal_ring, bytes: 64MiB, chunk: 4MiB, dtype: float}
)");
  const Roofline& r = run.roofline;
  // n = 8, S = 64 MiB: every rank sends S/n = 8 MiB in each of 2(n-1) = 14 steps, so every
  // GPU's peer.out carries 2 x 7 / 8 x 67108864 = 117440512 B.
  for (int g = 0; g < 8; ++g) {
    CHECK(term(r, models::gpu_group(g, "peer.out")).amount == 117'440'512);
    CHECK(term(r, models::gpu_group(g, "peer.in")).amount == 117'440'512);
  }
  // bound = ceil(117440512 B x 1e12 / 368819999999 B/s) = ceil(318422298.14) = 318422299 ps; all 16
  // peer terms tie and gpu0.peer.in is the smallest name.
  CHECK(r.bound.picoseconds() == 318'422'299);
  REQUIRE(r.bottleneck() != nullptr);
  CHECK(r.bottleneck()->group == "gpu0.peer.in");
  CHECK(r.bound <= run.run.end.since_start());
  CHECK(r.fraction() > 0.0);
  CHECK(r.fraction() < 1.0);
}

TEST_CASE("a local copy is bound by HBM reading and writing every byte") {
  const Schedule s = schedule_of(R"(world: 1
streams:
  - name: s
    ops: [{memcpy: {bytes: 1000000000, src: 0, dst: 0}}]
)");
  // A 1000 GB/s engine (2 us setup) and 1000 GB/s HBM (500 ns latency).
  models::HardwareSpec dev;
  dev.copy_engine.count = 1;
  dev.copy_engine.bandwidth = sim::Bandwidth::GBps(1000);
  dev.copy_engine.setup = sim::Duration::us(2);
  dev.hbm.bandwidth = sim::Bandwidth::GBps(1000);
  dev.hbm.write_bandwidth = sim::Bandwidth::GBps(600);  // the write side alone: not the limit
  dev.hbm.latency = sim::Duration::ns(500);
  dev.nvlink.links = 0;  // no NVLink: no peer ports
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  Crossbar fabric(net, 1);
  models::ResourceCatalog catalog;
  const RunResult result = execute(s, param_values(s, {}), engine, net, fabric, dev, &catalog);
  const Roofline r = compute_roofline(catalog, net, result.end.since_start());
  // HBM carries the read and the write: 2e9 B / 1000 GB/s = 2 ms; the engine's rate (its NVLink
  // side) carries none of a local copy. The bound is HBM's 2 ms.
  CHECK(term(r, "gpu0.hbm").amount == 2'000'000'000);
  // HBM's write side carries the write alone: 1e9 B / 600 GB/s = 1.67 ms, under HBM's 2 ms.
  CHECK(term(r, "gpu0.hbm.write").amount == 1'000'000'000);
  CHECK(term(r, "gpu0.copy_engine").amount == 0);
  CHECK(r.bound.picoseconds() == 2'000'000'000);
  REQUIRE(r.bottleneck() != nullptr);
  CHECK(r.bottleneck()->kind == models::UnitKind::hbm);
  // The two flows share HBM at 500 GB/s each and end together after 2 ms, behind the host's
  // call (host.memcpy, 3 us by default), 2 us setup and 500 ns HBM latency: 2005500000 ps; HBM's
  // utilisation is 2 ms / 2.0055 ms.
  CHECK(dev.host.memcpy == sim::Duration::us(3));
  CHECK(result.end.picoseconds() == 2'005'500'000);
  CHECK(term(r, "gpu0.hbm").utilisation == Approx(2.0 / 2.0055).epsilon(1e-12));
  // The crossbar's ports were never registered, so they are not in the roofline.
  CHECK(r.terms.size() == 3);
}

TEST_CASE("nothing carried: no bottleneck, a zero bound and a zero fraction") {
  const Result run = on_hgx(R"(streams:
  - name: s
    ops: [{delay: 1us}]
)");
  CHECK(run.roofline.bottleneck() == nullptr);
  CHECK(run.roofline.bound.picoseconds() == 0);
  // 0 / 1 us.
  CHECK(run.roofline.fraction() == 0.0);
}

TEST_CASE("the bound never exceeds the predicted time, for every example") {
  // A property: the bound ignores latencies and dependencies, which can only add time.
  // examples/ and its subfolders (examples/kernels/ holds the tile-level ones).
  const std::vector<std::filesystem::path> files = test::example_files();
  REQUIRE(files.size() >= 6);
  const Machine machine = Machine::load("hgx-h200-8", {}, "h200");
  for (const auto& f : files) {
    INFO(f.string());
    const Schedule s = load_schedule_file(f.string());
    const Result run = simulate(s, param_values(s, {}), machine);
    REQUIRE(run.run.blocked.empty());
    CHECK(run.roofline.bound.picoseconds() > 0);
    CHECK(run.roofline.bound <= run.run.end.since_start());
    CHECK(run.roofline.fraction() <= 1.0);
  }
}

TEST_CASE("a copy between nodes is bound by the NIC") {
  const Schedule s = schedule_of(R"(streams:
  - name: copy
    if: rank == 0
    ops: [{memcpy: {bytes: 64MiB, src: 0, dst: 8}}]
)");
  const Result run = simulate(s, param_values(s, {}), Machine::load("hgx-h200-ib", {}, "h200"));
  const Roofline& r = run.roofline;
  // GPU 0 (node 0) to GPU 8 (node 1) leaves over PCIe (63 GB/s) to its rail's 400 Gb/s NIC
  // (50 GB/s): the NIC is slowest, 67108864 B / 50e9 B/s = 1342177.28 ns = 1342177280 ps, on
  // node 0's egress and node 1's ingress alike ("n0.nic0.out" < "n1.nic0.in" wins the tie).
  REQUIRE(r.bottleneck() != nullptr);
  CHECK(r.bottleneck()->kind == models::UnitKind::nic_out);
  CHECK(r.bottleneck()->group == "n0.nic0.out");
  CHECK(r.bottleneck()->gpu == -1);
  CHECK(r.bound.picoseconds() == 1'342'177'280);
  CHECK(term(r, "n1.nic0.in").time.picoseconds() == 1'342'177'280);
  // PCIe out of GPU 0: 67108864 B / 63e9 B/s = ceil(1065220063.49) = 1065220064 ps.
  CHECK(term(r, "gpu0.pcie.out").time.picoseconds() == 1'065'220'064);
  CHECK(r.bound <= run.run.end.since_start());
}
