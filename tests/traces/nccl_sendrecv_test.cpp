// NCCL's sends and receives (collective send / recv, `group`; traces/nccl/kernels.yaml,
// nccl_sendrecv): what they put on the wire, how a send and its receive match and wait for each
// other, and the errors a schedule that pairs them wrongly gets.
#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/config.hpp"
#include "tests/support/config_error.hpp"
#include "traces/roofline.hpp"
#include "traces/simulation.hpp"

using namespace mgsim;
using namespace mgsim::traces;
using mgsim::testing::error_of;

namespace {

Result on_hgx(const std::string& text, const Overrides& d = {}, Recording record = {}) {
  const Schedule s = load_schedule(sim::Node::load_string(text, "p2p.yaml"));
  return simulate(s, param_values(s, d), Machine::load("hgx-h200-8", {}, "h200"), nullptr, {},
                  record);
}

std::int64_t amount(const Roofline& r, const std::string& group) {
  for (const UnitTerm& t : r.terms)
    if (t.group == group) return t.amount;
  return 0;
}

const StreamResult& stream_of(const Result& r, int rank) {
  for (const StreamResult& s : r.run.streams)
    if (s.rank == rank) return s;
  FAIL("no stream on rank " << rank);
  return r.run.streams.front();
}

// Rank 0 sends SIZE to rank 1, which receives it (200 us late with LATE = 1).
const char* kOneWay = R"(world: 2
params: {SIZE: 4MiB, LATE: 0}
streams:
  - name: s
    ops:
      - {if: rank == 0, collective: {op: send, peer: 1, bytes: SIZE}}
      - {if: (rank == 1) * LATE, delay: 200us}
      - {if: rank == 1, collective: {op: recv, peer: 0, bytes: SIZE}}
)";

// Every rank sends SIZE to the next and receives from the previous, grouped or not.
const char* kRing = R"(world: 4
params: {SIZE: 64MiB, GROUPED: 1}
streams:
  - name: s
    ops:
      - if: GROUPED
        group:
          - collective: {op: send, peer: (rank + 1) % world, bytes: SIZE}
          - collective: {op: recv, peer: (rank + world - 1) % world, bytes: SIZE}
      - {if: 1 - GROUPED, collective: {op: send, peer: (rank + 1) % world, bytes: SIZE}}
      - {if: 1 - GROUPED, collective: {op: recv, peer: (rank + world - 1) % world, bytes: SIZE}}
)";

}  // namespace

TEST_CASE("a send puts its bytes on the wire once, in its protocol's lines") {
  // 4 MiB: Simple (more than 32 channels x 16 KiB), the data itself, one way.
  Result r = on_hgx(kOneWay);
  REQUIRE(r.run.blocked.empty());
  CHECK(amount(r.roofline, "gpu0.nvlink.out") == 4 << 20);
  CHECK(amount(r.roofline, "gpu1.nvlink.out") == 0);
  REQUIRE(r.run.collectives.size() == 1);
  const CollectiveResult& c = r.run.collectives[0];
  CHECK(c.kind == CollectiveKind::send);
  CHECK(c.ranks == 2);
  CHECK(c.algorithm == "p2p");
  CHECK(c.protocol == "Simple");
  // plan_p2p: min(16 channels, 4 MiB / 64 KiB) = 16 channels of 256 KiB, one chunk each.
  CHECK(c.channels == 16);
  CHECK(c.sends == 16);
  // 8 KiB: LL on min(16, 8 KiB / 8 KiB) = 1 channel, 8-byte lines half flag: 16 KiB.
  r = on_hgx(kOneWay, {{"SIZE", "8KiB"}});
  REQUIRE(r.run.collectives.size() == 1);
  CHECK(r.run.collectives[0].protocol == "LL");
  CHECK(r.run.collectives[0].channels == 1);
  CHECK(amount(r.roofline, "gpu0.nvlink.out") == 16384);
}

TEST_CASE("a send that fits the pair's buffer ends before its receive, a larger one waits") {
  // The receive comes 200 us late. 4 MiB is 16 channels of 256 KiB (plan_p2p), one chunk each,
  // within each channel's 8 slots: the send ends on its own. 256 MiB is 16 channels of 16 MiB
  // (not above 32 x 512 KiB, so no more channels), 32 chunks of 512 KiB each: the send cannot
  // end before the receive has begun draining the buffer.
  const Result small = on_hgx(kOneWay, {{"SIZE", "4MiB"}, {"LATE", "1"}});
  REQUIRE(small.run.blocked.empty());
  CHECK(stream_of(small, 0).end.since_start().microseconds() < 200);
  CHECK(stream_of(small, 1).end.since_start().microseconds() > 200);
  const Result large = on_hgx(kOneWay, {{"SIZE", "256MiB"}, {"LATE", "1"}});
  REQUIRE(large.run.blocked.empty());
  CHECK(stream_of(large, 0).end.since_start().microseconds() > 200);
}

TEST_CASE("a ring exchange needs its send and receive in one group") {
  // Grouped: every rank's send and receive run in one kernel; each GPU sends SIZE once.
  const Result grouped = on_hgx(kRing);
  REQUIRE(grouped.run.blocked.empty());
  REQUIRE(grouped.run.collectives.size() == 4);
  for (int g = 0; g < 4; ++g)
    CHECK(amount(grouped.roofline, "gpu" + std::to_string(g) + ".nvlink.out") == 64 << 20);
  // Ungrouped, each rank's send waits for a receive queued behind it on the next rank's stream:
  // 4 ranks take 8 channels per peer, 8 MiB each, 16 chunks against 8 slots. As in NCCL, a
  // deadlock, reported with its cause.
  const Result ungrouped = on_hgx(kRing, {{"GROUPED", "0"}});
  REQUIRE(ungrouped.run.blocked.size() == 4);
  CHECK(ungrouped.run.blocked[0].waiting_for ==
        "the send of 67108864 bytes to rank 1 (their transfer #0): rank 1's "
        "matching recv is called but not started, its stream busy before it (a send and a recv "
        "that wait on each other's stream belong in one `group`)");
  // 2 MiB is one 256 KiB chunk per channel: every send ends on its own, then the receives run.
  const Result fits = on_hgx(kRing, {{"GROUPED", "0"}, {"SIZE", "2MiB"}});
  CHECK(fits.run.blocked.empty());
}

TEST_CASE("sends that run ahead of their receives fill the pair's buffer, then wait") {
  // Nine 4 MiB sends (16 channels, one 256 KiB chunk each) with the receives 200 us late: eight
  // fill each channel's 8 slots and end on their own, the ninth waits for the receiver to free
  // one. The kernels' ends on rank 0, in order.
  const Result r = on_hgx(R"(world: 2
streams:
  - name: s
    ops:
      - {if: rank == 1, delay: 200us}
      - for:
          var: m
          from: 0
          to: 9
          ops:
            - {if: rank == 0, collective: {op: send, peer: 1, bytes: 4MiB}}
            - {if: rank == 1, collective: {op: recv, peer: 0, bytes: 4MiB}}
)");
  REQUIRE(r.run.blocked.empty());
  std::vector<double> ends;
  for (const KernelResult& k : r.run.kernels)
    if (k.rank == 0) ends.push_back(k.end.since_start().microseconds());
  REQUIRE(ends.size() == 9);
  std::sort(ends.begin(), ends.end());
  CHECK(ends[7] < 200);
  CHECK(ends[8] > 200);
}

TEST_CASE("transfers of a pair on other channel counts do not wait for each other's slots") {
  // 640 KiB (Simple, 10 channels of one chunk), 64 MiB (16 channels, 8 chunks each), 1 GiB (32
  // channels): each channel count keeps its own chunk count, so the channels the 1 GiB transfer
  // adds start free (counted with the pair's 9 chunks before it, they would wait for 2 chunks
  // freed that nobody sends: a deadlock).
  const Result r = on_hgx(R"(world: 2
streams:
  - name: s
    ops:
      - {if: rank == 0, collective: {op: send, peer: 1, bytes: 640KiB}}
      - {if: rank == 0, collective: {op: send, peer: 1, bytes: 64MiB}}
      - {if: rank == 0, collective: {op: send, peer: 1, bytes: 1GiB}}
      - {if: rank == 1, collective: {op: recv, peer: 0, bytes: 640KiB}}
      - {if: rank == 1, collective: {op: recv, peer: 0, bytes: 64MiB}}
      - {if: rank == 1, collective: {op: recv, peer: 0, bytes: 1GiB}}
)");
  REQUIRE(r.run.blocked.empty());
  REQUIRE(r.run.collectives.size() == 3);
  CHECK(r.run.collectives[0].channels == 10);
  CHECK(r.run.collectives[1].channels == 16);
  CHECK(r.run.collectives[2].channels == 32);
}

TEST_CASE("a group with several peers runs each p2p round on its own CTAs") {
  // A halo exchange: every rank sends SIZE to both neighbours and receives from both, in one
  // group (rounds 1 and world - 1, each a send and a receive). Each GPU sends 2 x SIZE.
  const char* halo = R"(world: 4
params: {SIZE: 8MiB}
streams:
  - name: s
    ops:
      - group:
          - collective: {op: send, peer: (rank + 1) % world, bytes: SIZE}
          - collective: {op: send, peer: (rank + world - 1) % world, bytes: SIZE}
          - collective: {op: recv, peer: (rank + world - 1) % world, bytes: SIZE}
          - collective: {op: recv, peer: (rank + 1) % world, bytes: SIZE}
)";
  const Result r = on_hgx(halo);
  REQUIRE(r.run.blocked.empty());
  REQUIRE(r.run.collectives.size() == 8);
  for (int g = 0; g < 4; ++g)
    CHECK(amount(r.roofline, "gpu" + std::to_string(g) + ".nvlink.out") == 16 << 20);
  // Two kernels per rank, one per round, started together.
  CHECK(r.run.kernels.size() == 8);
  for (const KernelResult& k : r.run.kernels) CHECK(k.kernel == "nccl_sendrecv");
  // Grouped sends to every rank (sizes by peer, as an all-to-allv) move what each pair asks.
  const Result v = on_hgx(R"(world: 4
streams:
  - name: s
    ops:
      - group:
          - for:
              var: j
              from: 1
              to: world
              ops:
                - collective: {op: send, peer: (rank + j) % world, bytes: j * 1MiB}
                - collective: {op: recv, peer: (rank + world - j) % world, bytes: j * 1MiB}
)");
  REQUIRE(v.run.blocked.empty());
  CHECK(v.run.collectives.size() == 12);
  // Each GPU sends 1 + 2 + 3 MiB.
  CHECK(amount(v.roofline, "gpu0.nvlink.out") == 6 << 20);
}

TEST_CASE("grouped sends and receives with every rank take what NCCL's all_to_all takes") {
  // all_to_all is NCCL's grouped exchange with every rank, itself included (nccl_p2p): the same
  // rounds, channels, chunks and host calls written out as a group cost the same.
  const char* text = R"(world: 8
params: {S: 8MiB, COLL: 0}
streams:
  - name: s
    ops:
      - if: 1 - COLL
        group:
          - for:
              var: j
              from: 0
              to: world
              ops:
                - collective: {op: send, peer: (rank + j) % world, bytes: S}
                - collective: {op: recv, peer: (rank + world - j) % world, bytes: S}
      - {if: COLL, collective: {op: all_to_all, bytes: S * world}}
)";
  for (const char* size : {"64KiB", "8MiB"}) {
    const Result group = on_hgx(text, {{"S", size}});
    const Result all_to_all = on_hgx(text, {{"S", size}, {"COLL", "1"}});
    REQUIRE((group.run.blocked.empty() && all_to_all.run.blocked.empty()));
    CHECK(static_cast<double>(group.run.end.picoseconds()) ==
          Approx(static_cast<double>(all_to_all.run.end.picoseconds())).epsilon(0.01));
  }
}

TEST_CASE("transfers between a pair count their chunks on from the ones before") {
  // Four transfers of different sizes from rank 0 to rank 1, the receiver behind: each waits for
  // the one before to free the buffer, none sees another's flags early.
  const Result r = on_hgx(R"(world: 2
streams:
  - name: s
    ops:
      - for:
          var: m
          from: 0
          to: 4
          ops:
            - {if: rank == 0, collective: {op: send, peer: 1, bytes: (m + 1) * 24MiB}}
            - {if: rank == 1, collective: {op: recv, peer: 0, bytes: (m + 1) * 24MiB}}
)");
  REQUIRE(r.run.blocked.empty());
  REQUIRE(r.run.collectives.size() == 4);
  CHECK(amount(r.roofline, "gpu0.nvlink.out") == std::int64_t{240} << 20);
  for (std::size_t i = 1; i < 4; ++i) {
    CHECK(r.run.collectives[i].end > r.run.collectives[i - 1].end);
    // A larger transfer takes longer.
    CHECK((r.run.collectives[i].end - r.run.collectives[i].begin) >
          (r.run.collectives[i - 1].end - r.run.collectives[i - 1].begin));
  }
}

TEST_CASE("a send and its receive match across streams, on one communicator") {
  // Rank 0 sends on stream `a`, rank 1 receives on stream `b`: the world is one communicator.
  const Result r = on_hgx(R"(world: 2
streams:
  - name: a
    if: rank == 0
    ops: [{collective: {op: send, peer: 1, bytes: 4MiB}}]
  - name: b
    if: rank == 1
    ops: [{collective: {op: recv, peer: 0, bytes: 4MiB}}]
)");
  REQUIRE(r.run.blocked.empty());
  REQUIRE(r.run.collectives.size() == 1);
  CHECK(amount(r.roofline, "gpu0.nvlink.out") == 4 << 20);
}

TEST_CASE("a send to itself is a local copy in a group with its receive") {
  const Result r = on_hgx(R"(world: 2
streams:
  - name: s
    ops:
      - group:
          - collective: {op: send, peer: rank, bytes: 16MiB}
          - collective: {op: recv, peer: rank, bytes: 16MiB}
)");
  REQUIRE(r.run.blocked.empty());
  REQUIRE(r.run.collectives.size() == 2);
  CHECK(r.run.collectives[0].ranks == 1);
  CHECK(amount(r.roofline, "gpu0.nvlink.out") == 0);
  // Read and written in the GPU's own memory: 16 MiB each way, the writes also on the write side.
  CHECK(amount(r.roofline, "gpu0.hbm") == 32 << 20);
  CHECK(amount(r.roofline, "gpu0.hbm.write") == 16 << 20);
}

TEST_CASE("sends and receives that do not pair up are errors at the op") {
  const auto run_error = [](const char* text) { return error_of([&] { on_hgx(text); }); };
  CHECK(run_error(R"(world: 2
streams:
  - name: s
    ops:
      - {if: rank == 0, collective: {op: send, peer: 1, bytes: 1MiB}}
)") == "p2p.yaml:5:9: error: rank 0's send of 1048576 bytes to rank 1 (their transfer #0) has "
       "no matching recv on rank 1");
  CHECK(run_error(R"(world: 2
streams:
  - name: s
    ops:
      - {if: rank == 0, collective: {op: send, peer: 1, bytes: 1MiB}}
      - {if: rank == 1, collective: {op: recv, peer: 0, bytes: 2MiB}}
)") == "p2p.yaml:6:9: error: rank 1 receives 2097152 bytes from rank 0, where rank 0 sends "
       "1048576 bytes (their transfer #0)");
  CHECK(run_error(R"(world: 2
streams:
  - name: s
    ops: [{collective: {op: send, peer: rank, bytes: 1MiB}}]
)") == "p2p.yaml:4:11: error: rank 0 sends to itself without the matching recv in the same "
       "group (NCCL refuses it)");
  CHECK(run_error(R"(world: 4
streams:
  - name: s
    ops:
      - group:
          - collective: {op: send, peer: (rank + 1) % world, bytes: 1MiB}
          - collective: {op: send, peer: (rank + 1) % world, bytes: 1MiB}
)") == "p2p.yaml:7:13: error: a second send to rank 1 in one group: NCCL runs them one after "
       "the other on the same channels, which is not modelled yet (use two groups)");
  CHECK(run_error(R"(world: 2
streams:
  - name: s
    ops: [{collective: {op: send, peer: 2, bytes: 1MiB}}]
)") == "p2p.yaml:4:41: error: rank 2 is outside the world (ranks 0 to 1)");
}

TEST_CASE("send, recv and group are checked when read") {
  const auto load = [](const std::string& ops) {
    load_schedule(sim::Node::load_string("streams: [{name: s, ops: [" + ops + "]}]\n", "p.yaml"));
  };
  CHECK(error_of([&] { load("{collective: {op: send, bytes: 1}}"); }) ==
        "p.yaml:1:40: error: a send needs `peer`: the rank it sends to");
  CHECK(error_of([&] { load("{collective: {op: all_reduce, bytes: 1, peer: 1}}"); }) ==
        "p.yaml:1:73: error: only send and recv have a peer");
  CHECK(error_of([&] { load("{collective: {op: recv, bytes: 1, peer: 0, protocol: ll}}"); }) ==
        "p.yaml:1:40: error: NCCL's sends and receives choose their own protocol and channels");
  CHECK(error_of([&] { load("{collective: {op: send, bytes: 1, peer: 1, algorithm: ring}}"); }) ==
        "p.yaml:1:81: error: a send runs NCCL's point-to-point kernel: drop `algorithm`");
  CHECK(error_of([] {
          load_schedule(sim::Node::load_string(
              "buffers: {a: {bytes: 1}, b: {bytes: 1}}\nstreams: [{name: s, ops: [{collective: "
              "{op: send, bytes: 1, peer: 1, buffer: a, output: b}}]}]\n",
              "p.yaml"));
        }) == "p.yaml:2:89: error: a send has one buffer: `buffer` (read)");
  CHECK(error_of([&] { load("{group: [{collective: {op: all_reduce, bytes: 1}}]}"); }) ==
        "p.yaml:1:36: error: a group holds collective send and recv ops and for loops of them "
        "(other collectives are not grouped yet)");
  CHECK(error_of([&] { load("{group: []}"); }) ==
        "p.yaml:1:35: error: a group needs at least "
        "one op");
}

TEST_CASE("the data check follows a send's data to its receiver") {
  // Rank 0's input relayed 0 -> 1 -> 2 -> 3: in order, clean; each relay's send grouped with its
  // receive reads the buffer before the receive has written it.
  const char* text = R"(world: 4
params: {GROUPED: 0}
buffers:
  x: {bytes: 1MiB, input: rank == 0, output: rank == world - 1}
streams:
  - name: s
    ops:
      - {if: (rank > 0) * (1 - GROUPED), collective: {op: recv, peer: rank - 1, bytes: 1MiB, buffer: x}}
      - {if: (rank < world - 1) * (1 - GROUPED), collective: {op: send, peer: rank + 1, bytes: 1MiB, buffer: x}}
      - if: GROUPED
        group:
          - {if: rank > 0, collective: {op: recv, peer: rank - 1, bytes: 1MiB, buffer: x}}
          - {if: rank < world - 1, collective: {op: send, peer: rank + 1, bytes: 1MiB, buffer: x}}
)";
  const Result in_order = on_hgx(text, {}, {.check = true});
  REQUIRE(in_order.run.check);
  CHECK(in_order.run.check->violations.empty());
  const Result early = on_hgx(text, {{"GROUPED", "1"}}, {.check = true});
  REQUIRE(early.run.check);
  REQUIRE(!early.run.check->violations.empty());
  CHECK(early.run.check->violations[0].kind == "unwritten_read");
}
