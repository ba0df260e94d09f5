// End-to-end runs of small schedules on a toy machine whose numbers make the arithmetic easy:
// every expected picosecond count is derived in a comment before its assertion.
#include "traces/executor.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "sim/engine.hpp"
#include "sim/fluid.hpp"
#include "tests/support/config_error.hpp"
#include "tests/traces/crossbar.hpp"
#include "tests/traces/free_host.hpp"

using namespace mgsim;
using namespace mgsim::traces;

namespace {

using mgsim::test::Crossbar;
using mgsim::testing::error_of;

// Copy engines of 50 GB/s with 2 us setup; HBM 1000 GB/s with 500 ns latency; no NVLink, so no
// peer-copy limit beyond the crossbar's ports. The host's calls cost nothing here (host_test.cpp
// tests them), so that the times are the GPU's alone.
models::HardwareSpec device(int engines, sim::Bandwidth ce = sim::Bandwidth::GBps(50)) {
  models::HardwareSpec hw;
  hw.host = test::free_host();
  hw.copy_engine.count = engines;
  hw.copy_engine.bandwidth = ce;
  hw.copy_engine.setup = sim::Duration::us(2);
  hw.hbm.bandwidth = sim::Bandwidth::GBps(1000);
  hw.hbm.latency = sim::Duration::ns(500);
  hw.nvlink.links = 0;
  return hw;
}

// Collectives move their bytes with copy engines here: these tests check the algorithms' send
// order and pipelining, whose arithmetic the engines' queue makes easy.
RunResult run(const std::string& text, int gpus, const models::HardwareSpec& dev,
              const std::vector<std::pair<std::string, std::string>>& overrides = {}) {
  const Schedule s = load_schedule(sim::Node::load_string(text, "t.yaml"));
  sim::Engine engine;
  sim::FluidNetwork net(engine);
  Crossbar fabric(net, gpus);
  return execute(s, param_values(s, overrides), engine, net, fabric, dev, nullptr,
                 {CollectiveTransport::copy_engines});
}

std::int64_t end_of(const RunResult& r, int rank, const std::string& stream) {
  for (const auto& s : r.streams)
    if (s.rank == rank && s.stream == stream) return s.end.picoseconds();
  return -1;
}

}  // namespace

TEST_CASE("a peer memcpy costs setup + latency + bytes at the slowest resource") {
  const auto r = run(R"(world: 2
streams:
  - name: s
    if: rank == 0
    ops: [{memcpy: {bytes: 1000000000, dst: 1}}]
)",
                     2, device(1));
  // 2 us setup + 1 us route latency + 1e9 B / min(50 GB/s engine, 100 GB/s port) = 20 ms
  // = 2'000'000 + 1'000'000 + 20'000'000'000 ps.
  REQUIRE(r.blocked.empty());
  CHECK(end_of(r, 0, "s") == 20'003'000'000);
  CHECK(r.streams.size() == 1);
}

TEST_CASE("the peer-copy limit (NVLink protocol efficiency) applies below the engine's rate") {
  // One 25 GB/s NVLink link at full protocol efficiency: peer_bandwidth(copy_engine) = 25 GB/s.
  models::HardwareSpec dev = device(1);
  dev.nvlink.links = 1;
  dev.nvlink.link_bandwidth = sim::Bandwidth::GBps(25);
  dev.nvlink.protocol_efficiency = 1.0;
  const auto r =
      run("world: 2\nstreams: [{name: s, if: rank == 0, ops: [{memcpy: {bytes: 1GB, "
          "dst: 1}}]}]\n",
          2, dev);
  // 3 us + 1e9 B / 25 GB/s (cap < 50 GB/s engine < 100 GB/s port) = 3'000'000 + 40'000'000'000.
  CHECK(end_of(r, 0, "s") == 40'003'000'000);
}

TEST_CASE("copies queue for the copy engines, with two engines they share the port") {
  const char* text = R"(world: 2
streams:
  - {name: a, if: rank == 0, ops: [{memcpy: {bytes: 1GB, dst: 1}}]}
  - {name: b, if: rank == 0, ops: [{memcpy: {bytes: 1GB, dst: 1}}]}
)";
  // One engine: b waits for a's engine: a ends at 20'003'000'000 ps (as above), b then needs the
  // same again: 40'006'000'000.
  auto r = run(text, 2, device(1));
  CHECK(end_of(r, 0, "a") == 20'003'000'000);
  CHECK(end_of(r, 0, "b") == 40'006'000'000);
  // Two engines of 80 GB/s: both flows cross out0 (100 GB/s) and get 50 GB/s each:
  // 3 us + 1e9 / 50e9 s = 20'003'000'000 for both.
  r = run(text, 2, device(2, sim::Bandwidth::GBps(80)));
  CHECK(end_of(r, 0, "a") == 20'003'000'000);
  CHECK(end_of(r, 0, "b") == 20'003'000'000);
}

TEST_CASE("a local copy reads and writes its own HBM at HBM's rate, not the engine's") {
  const auto r =
      run("world: 1\nstreams: [{name: s, ops: [{memcpy: {bytes: 1GB}}]}]\n", 1, device(1));
  // Read and write flows of 1e9 B each share the 1000 GB/s HBM (the 50 GB/s engine rate is its
  // NVLink side): 2 us setup + 500 ns HBM latency + 2e9 B / 1e12 B/s = 2'002'500'000 ps.
  CHECK(end_of(r, 0, "s") == 2'002'500'000);
}

TEST_CASE("a local copy whose working set the L2 keeps reads its source from the L2") {
  const auto copy = [](const char* working_set) {
    return run(fmt::format("world: 2\nstreams: [{{name: s, if: rank == 0, ops: [{{memcpy: "
                           "{{bytes: 10MB{}}}}}]}}]\n",
                           working_set),
               2, device(1));
  };
  // Without a working set: 2 us setup + 500 ns HBM latency + 2e7 B (read and write) over the
  // 1000 GB/s HBM = 22'500'000 ps.
  CHECK(end_of(copy(""), 0, "s") == 22'500'000);
  // 20 MB of source and destination fit the 50 MB L2: the read crosses the L2 (10 TB/s: 1 us),
  // the write alone HBM (1e7 B / 1000 GB/s = 10 us, its write side 3350 GB/s): 2 us setup + the
  // 150 ns hit latency + 10 us = 12'150'000 ps.
  CHECK(end_of(copy(", working_set: 20MB"), 0, "s") == 12'150'000);
  // 60 MB do not fit: the copy's writes evict its source (models::L2Spec::keeps_copy), as
  // without a working set.
  CHECK(end_of(copy(", working_set: 60MB"), 0, "s") == 22'500'000);
  // A peer copy is bound by its route: a working set there is an error, not ignored.
  const std::string error = error_of([] {
    run("world: 2\nstreams: [{name: s, if: rank == 0, ops: [{memcpy: {bytes: 10MB, dst: 1, "
        "working_set: 20MB}}]}]\n",
        2, device(1));
  });
  CHECK_THAT(error, Catch::Matchers::Contains("belongs to a local copy"));
}

TEST_CASE("record and wait order two streams, across ranks too") {
  const auto r = run(R"(world: 2
streams:
  - name: a
    if: rank == 0
    ops: [{memcpy: {bytes: 1GB, dst: 1}}, {record: done}]
  - name: b
    ops: [{wait: {event: done, rank: 0}}, {memcpy: {bytes: 1GB}}]
)",
                     2, device(1));
  // a: 20'003'000'000 (peer copy). Rank 0's b waits for it, then (its engine now free) a local
  // copy of 2'002'500'000: 22'005'500'000. Rank 1's b waits for the same event and copies on
  // its own engine: the same 22'005'500'000.
  CHECK(end_of(r, 0, "a") == 20'003'000'000);
  CHECK(end_of(r, 0, "b") == 22'005'500'000);
  CHECK(end_of(r, 1, "b") == 22'005'500'000);
}

TEST_CASE("ring all-gather: n-1 dependent steps, chunks pipeline over the copy engines") {
  const char* text = R"(world: 4
params: {CHUNK: 100000000}
streams:
  - name: s
    ops: [{collective: {op: all_gather, algorithm: ideal_ring, bytes: 400000000, chunk: CHUNK}}]
)";
  // Unchunked: segment = 4e8 / 4 = 1e8 B; a step is 3 us + 1e8 / 50e9 s = 2'003'000'000 ps and
  // each step forwards what the previous one brought: 3 steps = 6'009'000'000.
  auto r = run(text, 4, device(1));
  REQUIRE(r.collectives.size() == 1);
  CHECK(r.collectives[0].end.picoseconds() == 6'009'000'000);
  CHECK(r.collectives[0].sends == 12);  // 4 ranks x 3 steps
  // Chunks of 5e7 B: a send takes T = 3 us + 1 ms = 1'003'000'000 ps. One engine runs a rank's
  // 6 sends back to back (each one's input arrived by the time the engine frees): 6T.
  r = run(text, 4, device(1), {{"CHUNK", "50000000"}});
  CHECK(r.collectives[0].end.picoseconds() == 6 * 1'003'000'000LL);
  // Two engines: sends are issued in NCCL's order (chunk 0 steps 0..2, then chunk 1) and never
  // out of order, so chunk 1 step 0 is issued right after chunk 0 step 2, at 2T, beside it on the
  // second engine: [0,T] c0s0, [T,2T] c0s1, [2T,3T] c0s2 + c1s0, [3T,4T] c1s1, [4T,5T] c1s2.
  r = run(text, 4, device(2), {{"CHUNK", "50000000"}});
  CHECK(r.collectives[0].end.picoseconds() == 5 * 1'003'000'000LL);
}

TEST_CASE("ring all-reduce takes 2(n-1) steps, all-to-all sends to every peer at once") {
  auto r =
      run("world: 4\nstreams: [{name: s, ops: [{collective: {op: all_reduce, "
          "bytes: 400000000}}]}]\n",
          4, device(1));
  // 2(4-1) = 6 steps of 2'003'000'000 ps (1e8 B segments, as in the all-gather): 12'018'000'000.
  CHECK(r.collectives.at(0).end.picoseconds() == 12'018'000'000);
  r =
      run("world: 4\nstreams: [{name: s, ops: [{collective: {op: all_to_all, "
          "bytes: 480000000}}]}]\n",
          4, device(3, sim::Bandwidth::GBps(30)));
  // 4.8e8 / 4 = 1.2e8 B per peer, 3 peers on 3 engines of 30 GB/s: 90 GB/s through each
  // 100 GB/s port, so the engines limit: 3 us + 1.2e8 / 30e9 s = 4'003'000'000 ps.
  CHECK(r.collectives.at(0).end.picoseconds() == 4'003'000'000);
  CHECK(r.collectives.at(0).sends == 12);
}

TEST_CASE("a wait nobody satisfies is reported, not a hang") {
  const auto r = run(R"(world: 2
streams:
  - name: a
    ops: [{wait: {event: go, rank: 1}}]
  - name: b
    if: rank > 5
    ops: [{record: go}]
)",
                     2, device(1));
  REQUIRE(r.blocked.size() == 2);
  CHECK(r.blocked[0].rank == 0);
  CHECK(r.blocked[0].stream == "a");
  CHECK(r.blocked[0].waiting_for == "event 'go' (index 0) on rank 1");
  CHECK(r.blocked[0].where.line == 4);
}

TEST_CASE("a collective a rank never reaches is reported with whom it waits for") {
  const auto r = run(R"(world: 3
streams:
  - name: s
    ops:
      - if: rank != 2
        collective: {op: all_gather, bytes: 3MiB}
)",
                     3, device(1));
  REQUIRE(r.blocked.size() == 2);
  // Rank 1 sends to rank 2, which never comes; rank 0 forwards what rank 2 would send it.
  CHECK(r.blocked[1].waiting_for ==
        "all_gather (the collective #0 of stream 's'): waiting for rank 2 to reach the all_gather");
}

TEST_CASE("values found while running are checked against the world") {
  CHECK(error_of([] {
          run("world: 2\nstreams: [{name: s, ops: [{memcpy: {bytes: 1MiB, dst: rank + 2}}]}]\n", 2,
              device(1));
        }) == "t.yaml:2:55: error: rank 2 is outside the world (ranks 0 to 1)");
  CHECK(error_of([] {
          run("world: 3\nstreams: [{name: s, ops: [{memcpy: {bytes: 1MiB}}]}]\n", 2, device(1));
        }) == "t.yaml:1:8: error: world 3 is larger than the topology's 2 GPUs");
  CHECK(error_of([] {
          run("world: 2\nstreams: [{name: s, ops: [{memcpy: {bytes: rank - 1}}]}]\n", 2, device(1));
        }).find("memcpy bytes must be positive, got -1") != std::string::npos);
}
