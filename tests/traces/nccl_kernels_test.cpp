// NCCL's collectives run as NCCL's kernels (traces/nccl/kernels.yaml): what the protocols put on
// the wire, that channels are CTAs, that back-to-back collectives keep their flags apart, and
// that a rank which never comes is reported.
#include <set>
#include <string>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "recorder.hpp"
#include "sim/config.hpp"
#include "traces/roofline.hpp"
#include "traces/simulation.hpp"

using namespace mgsim;
using namespace mgsim::traces;
using mgsim::test::Recorder;

namespace {

Result on_hgx(const std::string& text, const Overrides& d = {}, sim::TraceSink* trace = nullptr) {
  const Schedule s = load_schedule(sim::Node::load_string(text, "nccl.yaml"));
  return simulate(s, param_values(s, d), Machine::load("hgx-h200-8", {}, "h200"), trace);
}

std::int64_t amount(const Roofline& r, const std::string& group) {
  for (const UnitTerm& t : r.terms)
    if (t.group == group) return t.amount;
  FAIL("no unit group " << group);
  return 0;
}

const char* kAllGather = R"(world: 2
params: {PROTO: 0}
streams:
  - name: s
    ops:
      - {if: PROTO == 0, collective: {op: all_gather, bytes: 2MiB, protocol: simple, channels: 1}}
      - {if: PROTO == 1, collective: {op: all_gather, bytes: 2MiB, protocol: ll, channels: 1}}
      - {if: PROTO == 2, collective: {op: all_gather, bytes: 2MiB, protocol: ll128, channels: 1}}
)";

}  // namespace

TEST_CASE("each protocol puts its own lines on the wire") {
  // One channel, 2 ranks: each rank sends its 1 MiB segment to the other once.
  //   Simple: the data itself, 1048576 B.
  //   LL: 8-byte lines half flag, in 32 KiB slices: 32 x 65536 = 2097152 B.
  //   LL128: 120 data bytes per 128-byte line, slices of 576000 B: ceil(576000 x 16 / 15) =
  //   614400 and ceil(472576 x 16 / 15) = 504082, stored as 32-byte sectors (504096): 1118496 B.
  const std::pair<const char*, std::int64_t> cases[] = {
      {"0", 1048576}, {"1", 2097152}, {"2", 614400 + 504096}};
  for (const auto& [proto, bytes] : cases) {
    const Result r = on_hgx(kAllGather, {{"PROTO", proto}});
    REQUIRE(r.run.blocked.empty());
    REQUIRE(r.run.collectives.size() == 1);
    CHECK(r.run.collectives[0].channels == 1);
    CHECK(amount(r.roofline, "gpu0.nvlink.out") == bytes);
    CHECK(amount(r.roofline, "gpu1.nvlink.out") == bytes);
  }
}

TEST_CASE("broadcast and reduce pass each slice once along the ring, from or to the root") {
  // 4 ranks, 1 MiB, one channel, Simple: broadcast from rank 1 sends the buffer 1 -> 2 -> 3 -> 0,
  // so ranks 1, 2, 3 each send 1 MiB and rank 0 (the last) none; reduce to rank 1 runs
  // 2 -> 3 -> 0 -> 1: ranks 2, 3, 0 send, the root none.
  const char* text = R"(world: 4
params: {OP: 0}
streams:
  - name: s
    ops:
      - {if: OP == 0, collective: {op: broadcast, bytes: 1MiB, root: 1, protocol: simple, channels: 1}}
      - {if: OP == 1, collective: {op: reduce, bytes: 1MiB, root: 1, protocol: simple, channels: 1}}
)";
  const Result b = on_hgx(text, {{"OP", "0"}});
  const Result r = on_hgx(text, {{"OP", "1"}});
  REQUIRE((b.run.blocked.empty() && r.run.blocked.empty()));
  const std::int64_t mib = 1 << 20;
  CHECK(amount(b.roofline, "gpu0.nvlink.out") == 0);
  CHECK(amount(b.roofline, "gpu1.nvlink.out") == mib);
  CHECK(amount(b.roofline, "gpu2.nvlink.out") == mib);
  CHECK(amount(b.roofline, "gpu3.nvlink.out") == mib);
  CHECK(amount(r.roofline, "gpu1.nvlink.out") == 0);
  CHECK(amount(r.roofline, "gpu0.nvlink.out") == mib);
  CHECK(amount(r.roofline, "gpu2.nvlink.out") == mib);
  CHECK(b.run.collectives.at(0).root == 1);
  CHECK(r.run.collectives.at(0).root == 1);
}

TEST_CASE("NCCL's channels are CTAs, one per SM") {
  Recorder trace;
  const Result r = on_hgx(R"(world: 2
streams:
  - name: s
    ops: [{collective: {op: all_reduce, bytes: 64MiB, dtype: float}}]
)",
                          {}, &trace);
  REQUIRE(r.run.collectives.size() == 1);
  const CollectiveResult& c = r.run.collectives[0];
  CHECK(c.algorithm == "ring");
  CHECK(c.protocol == "Simple");
  CHECK(c.channels == 24);
  // Each rank's kernel ran nccl_ring: on gpu0, its send role ran on 24 SMs.
  REQUIRE(r.run.kernels.size() == 2);
  CHECK(r.run.kernels[0].kernel == "nccl_ring");
  std::set<std::string_view> sms;  // the tracks ("gpu0/smNNN") of gpu0's send roles
  for (const std::string& line : trace.lines) {
    const std::string_view l = line;
    const std::size_t at = l.find(" nccl_ring.send ");
    if (l.starts_with("gpu0/sm") && at != std::string_view::npos) sms.insert(l.substr(0, at));
  }
  CHECK(sms.size() == 24);
}

TEST_CASE("back-to-back collectives of different sizes keep their flags apart") {
  const Result r = on_hgx(R"(world: 4
streams:
  - name: s
    ops:
      - for: {var: i, from: 0, to: 4, ops: [collective: {op: all_reduce, bytes: (i + 1) * 3MiB, dtype: float}]}
      - collective: {op: all_gather, bytes: 64KiB}
      - collective: {op: all_to_all, bytes: 8MiB}
)");
  REQUIRE(r.run.blocked.empty());
  REQUIRE(r.run.collectives.size() == 6);
  for (std::size_t i = 1; i < r.run.collectives.size(); ++i)
    CHECK(r.run.collectives[i].end > r.run.collectives[i - 1].end);
}

TEST_CASE("a rank that never reaches NCCL's collective is reported") {
  const Result r = on_hgx(R"(world: 2
streams:
  - name: s
    ops:
      - if: rank == 0
        collective: {op: all_gather, bytes: 1MiB}
)");
  REQUIRE(r.run.blocked.size() == 1);
  CHECK(r.run.blocked[0].rank == 0);
  CHECK(r.run.blocked[0].waiting_for ==
        "all_gather (the collective #0 of stream 's'): waiting for rank 1 to reach the all_gather");
}

TEST_CASE("NVLS: each GPU's NVLink carries what the switch reads, reduces and multicasts") {
  // 8 GPUs, 8 MiB, forced NVLS on NCCL's 16 channels and 8 heads, in 32 KiB chunks (8 MiB is
  // below 64 and 8 x 128 chunks of 64 and 32 KiB, not below 2 x 128 x 32 KiB).
  //   all_reduce: each head ld_reduces its chunk from every GPU (its own included), so a GPU's
  //     uplink carries the whole buffer once, S, plus the sums it multicasts, S / 8; its downlink
  //     its own sums, S / 8, and every head's multicast, S: 9/8 S each way.
  //   all_gather: a GPU multicasts its own segment, S / 8, and receives every GPU's, S.
  //   reduce_scatter: a GPU's uplink gives every head its part of the buffer, S; the downlink
  //     brings its own segment's sum, S / 8.
  constexpr std::int64_t S = 8 << 20;
  const std::tuple<const char*, std::int64_t, std::int64_t> cases[] = {
      {"all_reduce", 9 * S / 8, 9 * S / 8}, {"all_gather", S / 8, S}, {"reduce_scatter", S, S / 8}};
  for (const auto& [op, out, in] : cases) {
    const Result r = on_hgx(fmt::format(R"(world: 8
streams:
  - name: s
    ops: [{{collective: {{op: {}, bytes: 8MiB, dtype: bf16, algorithm: nvls}}}}]
)",
                                        op));
    REQUIRE(r.run.blocked.empty());
    REQUIRE(r.run.collectives.size() == 1);
    CHECK(r.run.collectives[0].algorithm == "nvls");
    CHECK(r.run.collectives[0].channels == 16);
    CHECK(amount(r.roofline, "gpu0.nvlink.out") == out);
    CHECK(amount(r.roofline, "gpu0.nvlink.in") == in);
  }
}

TEST_CASE("NVLS and ring collectives back to back keep their flags apart") {
  const Result r = on_hgx(R"(world: 8
streams:
  - name: s
    ops:
      - collective: {op: all_reduce, bytes: 64MiB, dtype: bf16}
      - collective: {op: all_reduce, bytes: 64MiB, dtype: bf16, algorithm: ring}
      - collective: {op: all_reduce, bytes: 16MiB, dtype: bf16}
      - collective: {op: all_reduce, bytes: 64MiB, dtype: bf16}
)");
  REQUIRE(r.run.blocked.empty());
  REQUIRE(r.run.collectives.size() == 4);
  CHECK(r.run.collectives[0].algorithm == "nvls");
  CHECK(r.run.collectives[1].algorithm == "ring");
  CHECK(r.run.collectives[3].algorithm == "nvls");
  // The same call takes the same time wherever it comes.
  const auto span = [&](int i) {
    const CollectiveResult& c = r.run.collectives[static_cast<std::size_t>(i)];
    return (c.end - c.begin).picoseconds();
  };
  CHECK(span(3) == Approx(span(0)).epsilon(0.01));
}
