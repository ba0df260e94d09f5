#include "sim/fluid.hpp"

#include <algorithm>
#include <limits>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "sim/check.hpp"
#include "sim/engine.hpp"
#include "sim/trace.hpp"

using namespace mgsim::sim;

namespace {

constexpr std::int64_t kNone = -1;

// Starts a flow and records the picosecond its callback ran in `done_at`.
FlowId start(FluidNetwork& net, Engine& e, std::vector<ResourceId> path, std::int64_t bytes,
             std::int64_t& done_at, std::optional<Bandwidth> cap = std::nullopt) {
  done_at = kNone;
  return net.start_flow(path, Bytes(bytes), cap,
                        [&done_at, &e] { done_at = e.now().picoseconds(); });
}

}  // namespace

TEST_CASE("one link shared by two flows: each gets half") {
  Engine e;
  FluidNetwork net(e);
  ResourceId link = net.add_resource("link", Bandwidth::GBps(100));
  std::int64_t a_done, b_done;
  FlowId a = start(net, e, {link}, 1'000'000'000, a_done);
  FlowId b = start(net, e, {link}, 1'000'000'000, b_done);
  // Max-min on one resource with two uncapped flows: C / 2 = 50e9 B/s each.
  CHECK(net.rate(a) == 50e9);
  CHECK(net.rate(b) == 50e9);
  e.run();
  // 1e9 B at 50e9 B/s = 0.02 s = 2e10 ps, for both.
  CHECK(a_done == 20'000'000'000);
  CHECK(b_done == 20'000'000'000);
  CHECK(net.active_flows() == 0);
  CHECK(net.flows_started() == 2);
  CHECK(net.flows_finished() == 2);
}

TEST_CASE("a capped flow leaves the rest of the link to the other") {
  Engine e;
  FluidNetwork net(e);
  ResourceId link = net.add_resource("link", Bandwidth::GBps(100));
  std::int64_t a_done, b_done;
  FlowId a = start(net, e, {link}, 1'000'000'000, a_done, Bandwidth::GBps(20));
  FlowId b = start(net, e, {link}, 6'000'000'000, b_done);
  // A's own cap (20 GB/s) is below the fair share (50 GB/s), so A is fixed at 20 and B takes
  // the remaining 100 - 20 = 80 GB/s.
  CHECK(net.rate(a) == 20e9);
  CHECK(net.rate(b) == 80e9);
  e.run();
  // A: 1e9 B / 20e9 B/s = 0.05 s = 5e10 ps.
  CHECK(a_done == 50'000'000'000);
  // B: by 5e10 ps it moved 80e9 * 0.05 = 4e9 B; the other 2e9 B then go at the full 100 GB/s:
  // 2e9 / 1e11 = 0.02 s = 2e10 ps, so B ends at 7e10 ps.
  CHECK(b_done == 70'000'000'000);
}

TEST_CASE("parking lot: one long flow over three links, a short flow on each") {
  SECTION("equal links: every flow gets C / 2") {
    Engine e;
    FluidNetwork net(e);
    std::vector<ResourceId> l;
    for (const char* n : {"l1", "l2", "l3"}) l.push_back(net.add_resource(n, Bandwidth::GBps(100)));
    std::int64_t d0, d1, d2, d3;
    FlowId longf = start(net, e, l, 1'000'000'000, d0);
    FlowId s1 = start(net, e, {l[0]}, 1'000'000'000, d1);
    FlowId s2 = start(net, e, {l[1]}, 1'000'000'000, d2);
    FlowId s3 = start(net, e, {l[2]}, 1'000'000'000, d3);
    // Each link carries 2 flows: share 50 on all three. Fixing l1 sets long and s1 to 50,
    // leaving 50 on l2 and l3 for s2 and s3.
    CHECK(net.rate(longf) == 50e9);
    CHECK(net.rate(s1) == 50e9);
    CHECK(net.rate(s2) == 50e9);
    CHECK(net.rate(s3) == 50e9);
  }
  SECTION("a slower third link bottlenecks the long flow, the others take the slack") {
    Engine e;
    FluidNetwork net(e);
    ResourceId l1 = net.add_resource("l1", Bandwidth::GBps(100));
    ResourceId l2 = net.add_resource("l2", Bandwidth::GBps(100));
    ResourceId l3 = net.add_resource("l3", Bandwidth::GBps(60));
    std::int64_t d0, d1, d2, d3;
    FlowId longf = start(net, e, {l1, l2, l3}, 300'000'000, d0);
    FlowId s1 = start(net, e, {l1}, 700'000'000, d1);
    FlowId s2 = start(net, e, {l2}, 1'400'000'000, d2);
    FlowId s3 = start(net, e, {l3}, 300'000'000, d3);
    // Shares: l1 100/2 = 50, l2 50, l3 60/2 = 30. l3 is the bottleneck: long = s3 = 30.
    // Then l1 and l2 have 100 - 30 = 70 left for one flow each: s1 = s2 = 70.
    CHECK(net.rate(longf) == 30e9);
    CHECK(net.rate(s3) == 30e9);
    CHECK(net.rate(s1) == 70e9);
    CHECK(net.rate(s2) == 70e9);
    e.run();
    // long and s3: 3e8 B / 30e9 = 0.01 s = 1e10 ps. s1: 7e8 / 70e9 = 0.01 s = 1e10 ps.
    CHECK(d0 == 10'000'000'000);
    CHECK(d3 == 10'000'000'000);
    CHECK(d1 == 10'000'000'000);
    // s2 moved 70e9 * 0.01 = 7e8 by then; the other 7e8 B alone on l2 at 100 GB/s take
    // 7e8 / 1e11 = 0.007 s = 7e9 ps: it ends at 1.7e10 ps.
    CHECK(d2 == 17'000'000'000);
  }
}

TEST_CASE("a flow that starts while another is half done") {
  Engine e;
  FluidNetwork net(e);
  ResourceId link = net.add_resource("link", Bandwidth::GBps(100));
  std::int64_t a_done, b_done;
  start(net, e, {link}, 1'000'000, a_done);
  // Alone, A would take 1e6 / 1e11 s = 1e7 ps; B starts at 5e6 ps when A has 5e5 B left.
  e.schedule_at(Time::from_ps(5'000'000), [&] { start(net, e, {link}, 1'000'000, b_done); });
  e.run();
  // From 5e6 ps both get 50e9 B/s: A's 5e5 B take 5e5 / 5e10 s = 1e7 ps -> A ends at 1.5e7.
  CHECK(a_done == 15'000'000);
  // B moved 5e5 B by then; its last 5e5 B at 1e11 B/s take 5e6 ps -> B ends at 2e7.
  CHECK(b_done == 20'000'000);
}

TEST_CASE("a capacity changed mid-flow re-shares from that instant, and utilisation follows it") {
  Engine e;
  FluidNetwork net(e);
  ResourceId link = net.add_resource("link", Bandwidth::GBps(100));
  std::int64_t a_done;
  start(net, e, {link}, 1'000'000, a_done);
  // At 5e6 ps A has 5e5 B left; from then the link gives 50e9 B/s: 1e7 ps more -> 1.5e7.
  e.schedule_at(Time::from_ps(5'000'000), [&] { net.set_capacity(link, Bandwidth::GBps(50)); });
  e.run();
  CHECK(a_done == 15'000'000);
  CHECK(net.capacity(link) == Bandwidth::GBps(50));
  // Busy the whole time against whichever capacity held: 1.5e7 ps.
  CHECK(net.stats(link).busy_ps == Approx(15'000'000.0));
  CHECK(net.stats(link).bytes_carried == Bytes(1'000'000));
  // An idle resource just takes the new value; a bad one is refused.
  net.set_capacity(link, Bandwidth::GBps(100));
  CHECK(net.capacity(link) == Bandwidth::GBps(100));
  CHECK_THROWS_AS(net.set_capacity(link, Bandwidth::bytes_per_second(0)), InternalError);
}

TEST_CASE("rates that are not whole numbers still complete at the rounded-up picosecond") {
  Engine e;
  FluidNetwork net(e);
  ResourceId link = net.add_resource("link", Bandwidth::GBps(100));
  std::int64_t d[3];
  for (auto& di : d) start(net, e, {link}, 1'000'000, di);
  e.run();
  // 100e9 / 3 B/s each: 1e6 B * 3 / 1e11 s = 3e-5 s = 3e7 ps exactly; the snap keeps the
  // division noise from turning it into 30'000'001.
  for (auto di : d) CHECK(di == 30'000'000);
}

TEST_CASE("a zero-byte flow completes now, through an event") {
  Engine e;
  FluidNetwork net(e);
  ResourceId link = net.add_resource("link", Bandwidth::GBps(100));
  e.schedule_at(Time::from_ps(3), [] {});
  e.run();
  std::int64_t done;
  start(net, e, {link}, 0, done);
  CHECK(done == kNone);  // not synchronously
  CHECK(net.active_flows() == 1);
  e.run();
  CHECK(done == 3);
  CHECK(net.active_flows() == 0);
}

TEST_CASE("a flow with an empty path runs at its own cap") {
  Engine e;
  FluidNetwork net(e);
  std::int64_t done;
  FlowId f = start(net, e, {}, 1'000, done, Bandwidth::GBps(1));
  CHECK(net.rate(f) == 1e9);
  e.run();
  // 1000 B / 1e9 B/s = 1 us = 1e6 ps.
  CHECK(done == 1'000'000);
  CHECK_THROWS_AS(net.start_flow({}, Bytes(1), std::nullopt, [] {}), InternalError);
}

TEST_CASE("cancel_flow releases bandwidth and skips the callback") {
  Engine e;
  FluidNetwork net(e);
  ResourceId link = net.add_resource("link", Bandwidth::GBps(100));
  std::int64_t a_done, b_done;
  start(net, e, {link}, 1'000'000'000, a_done);
  FlowId b = start(net, e, {link}, 1'000'000'000, b_done);
  bool cancelled = false;
  e.schedule_at(Time::from_ps(10'000'000'000), [&] { cancelled = net.cancel_flow(b); });
  e.run();
  CHECK(cancelled);
  CHECK(b_done == kNone);
  CHECK_FALSE(net.cancel_flow(b));
  // Until 1e10 ps (0.01 s) each moved 50e9 * 0.01 = 5e8 B. A's other 5e8 B at 1e11 B/s take
  // 5e-3 s = 5e9 ps: A ends at 1.5e10 ps.
  CHECK(a_done == 15'000'000'000);
  // Bytes carried: all of A (1e9) plus B's 5e8 before the cancel.
  CHECK(net.stats(link).bytes_carried == Bytes(1'500'000'000));
}

TEST_CASE("resource statistics: bytes carried and busy time") {
  Engine e;
  FluidNetwork net(e);
  ResourceId a = net.add_resource("a", Bandwidth::GBps(100));
  ResourceId b = net.add_resource("b", Bandwidth::GBps(200));
  std::int64_t done;
  // One flow over a (100) and b (200): the rate is 100 GB/s, so a is fully busy and b half.
  start(net, e, {a, b}, 1'000'000'000, done);
  e.schedule_at(Time::from_ps(20'000'000'000), [] {});
  // Half way through the flow (5e9 ps of its 1e10 ps): 5e8 B carried.
  e.run_until(Time::from_ps(5'000'000'000));
  CHECK(net.stats(a).bytes_carried == Bytes(500'000'000));
  e.run();
  // The flow takes 1e9 / 1e11 s = 1e10 ps. Then idle until 2e10 ps.
  CHECK(done == 10'000'000'000);
  ResourceStats sa = net.stats(a);
  ResourceStats sb = net.stats(b);
  CHECK(sa.bytes_carried == Bytes(1'000'000'000));
  CHECK(sb.bytes_carried == Bytes(1'000'000'000));
  // busy_ps = integral of rate / capacity: a: 1.0 * 1e10 ps; b: 0.5 * 1e10 ps.
  CHECK(sa.busy_ps == Approx(1e10).epsilon(1e-12));
  CHECK(sb.busy_ps == Approx(5e9).epsilon(1e-12));
  // Mean utilisation of a over the 2e10 ps run: 0.5.
  CHECK(sa.busy_ps / static_cast<double>(e.now().picoseconds()) == Approx(0.5));
}

TEST_CASE("flows on disjoint links do not disturb each other") {
  Engine e;
  FluidNetwork net(e);
  ResourceId l1 = net.add_resource("l1", Bandwidth::GBps(100));
  ResourceId l2 = net.add_resource("l2", Bandwidth::GBps(100));
  std::int64_t a_done, b_done, c_done;
  FlowId a = start(net, e, {l1}, 1'000'000'000, a_done);
  e.schedule_at(Time::from_ps(1'000'000), [&] {
    start(net, e, {l2}, 1'000'000'000, b_done);
    start(net, e, {l2}, 1'000'000'000, c_done);
    // A is alone on l1: still the full link.
    CHECK(net.rate(a) == 100e9);
  });
  e.run();
  CHECK(a_done == 10'000'000'000);  // 1e9 / 1e11 s
  // b and c share l2 from 1e6 ps: 1e9 / 5e10 s = 2e10 ps later.
  CHECK(b_done == 20'001'000'000);
  CHECK(c_done == 20'001'000'000);
}

TEST_CASE("a flow alone on its resources gets min(cap, capacities), solved beside shared ones") {
  Engine e;
  FluidNetwork net(e);
  ResourceId shared = net.add_resource("shared", Bandwidth::GBps(100));
  ResourceId p1 = net.add_resource("p1", Bandwidth::GBps(50));
  ResourceId p2 = net.add_resource("p2", Bandwidth::GBps(30));
  ResourceId p3 = net.add_resource("p3", Bandwidth::GBps(70));
  ResourceId p4 = net.add_resource("p4", Bandwidth::GBps(10));
  std::int64_t d[5];
  // All start in one instant, so one solve sees every component at once.
  FlowId a = start(net, e, {shared}, 1'000'000'000, d[0], Bandwidth::GBps(20));
  FlowId b = start(net, e, {shared}, 1'000'000'000, d[1]);
  FlowId c = start(net, e, {p1, p2}, 1'000'000'000, d[2]);
  FlowId f = start(net, e, {p3}, 1'000'000'000, d[3], Bandwidth::GBps(40));
  FlowId g = start(net, e, {p4}, 1'000'000'000, d[4], Bandwidth::GBps(40));
  // shared: a is held at its 20 GB/s cap, b takes the other 80.
  CHECK(net.rate(a) == 20e9);
  CHECK(net.rate(b) == 80e9);
  // Alone on its resources, each of the others runs at the least of its cap and capacities:
  // c at min(50, 30) = 30 GB/s, f at min(40, 70) = 40, g at min(40, 10) = 10.
  CHECK(net.rate(c) == 30e9);
  CHECK(net.rate(f) == 40e9);
  CHECK(net.rate(g) == 10e9);
  e.run();
  CHECK(d[3] == 25'000'000'000);   // 1e9 B / 40e9 B/s
  CHECK(d[4] == 100'000'000'000);  // 1e9 B / 10e9 B/s
}

// Reference max-min: the textbook progressive filling, O(F^2 R), no incremental state.
namespace {
struct RefFlow {
  std::vector<int> path;
  double cap;
};
std::vector<double> reference_maxmin(const std::vector<double>& capacity,
                                     const std::vector<RefFlow>& flows) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> rate(flows.size(), -1.0);
  std::vector<double> left = capacity;
  for (;;) {
    double best = inf;
    for (std::size_t r = 0; r < capacity.size(); ++r) {
      int n = 0;
      for (std::size_t f = 0; f < flows.size(); ++f) {
        if (rate[f] < 0)
          n += static_cast<int>(
              std::count(flows[f].path.begin(), flows[f].path.end(), static_cast<int>(r)));
      }
      if (n > 0) best = std::min(best, std::max(left[r], 0.0) / n);
    }
    for (std::size_t f = 0; f < flows.size(); ++f) {
      if (rate[f] < 0) best = std::min(best, flows[f].cap);
    }
    if (best == inf) break;
    // Fix every unfixed flow whose cap is best or that crosses a resource whose share is best.
    std::vector<std::size_t> fix;
    for (std::size_t f = 0; f < flows.size(); ++f) {
      if (rate[f] >= 0) continue;
      bool tight = flows[f].cap <= best * (1 + 1e-12);
      for (int r : flows[f].path) {
        int n = 0;
        for (std::size_t g = 0; g < flows.size(); ++g) {
          if (rate[g] < 0)
            n += static_cast<int>(std::count(flows[g].path.begin(), flows[g].path.end(), r));
        }
        if (std::max(left[static_cast<std::size_t>(r)], 0.0) / n <= best * (1 + 1e-12))
          tight = true;
      }
      if (tight) fix.push_back(f);
    }
    for (std::size_t f : fix) {
      rate[f] = best;
      for (int r : flows[f].path) left[static_cast<std::size_t>(r)] -= best;
    }
  }
  return rate;
}
}  // namespace

TEST_CASE("incremental solver matches a from-scratch max-min on random networks") {
  std::uint64_t x = 42;
  auto next = [&x](std::uint64_t n) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return (x >> 33) % n;
  };
  for (int trial = 0; trial < 20; ++trial) {
    Engine e;
    FluidNetwork net(e);
    std::vector<double> capacity;
    std::vector<ResourceId> res;
    for (int r = 0; r < 8; ++r) {
      auto gbps = static_cast<std::int64_t>(10 + next(90));
      capacity.push_back(static_cast<double>(gbps) * 1e9);
      res.push_back(net.add_resource(fmt::format("r{}", r), Bandwidth::GBps(gbps)));
    }
    std::vector<RefFlow> ref;
    std::vector<FlowId> ids;
    for (int f = 0; f < 25; ++f) {
      RefFlow rf;
      std::vector<ResourceId> path;
      std::size_t hops = 1 + next(3);
      for (std::size_t h = 0; h < hops; ++h) {
        int r = static_cast<int>(next(8));
        if (std::find(rf.path.begin(), rf.path.end(), r) != rf.path.end()) continue;
        rf.path.push_back(r);
        path.push_back(res[static_cast<std::size_t>(r)]);
      }
      std::optional<Bandwidth> cap;
      rf.cap = std::numeric_limits<double>::infinity();
      if (next(3) == 0) {
        auto c = static_cast<std::int64_t>(1 + next(40));
        cap = Bandwidth::GBps(c);
        rf.cap = static_cast<double>(c) * 1e9;
      }
      ref.push_back(rf);
      ids.push_back(net.start_flow(path, Bytes(1'000'000'000'000), cap, [] {}));
    }
    std::vector<double> want = reference_maxmin(capacity, ref);
    for (std::size_t f = 0; f < ids.size(); ++f) {
      CHECK(net.rate(ids[f]) == Approx(want[f]).epsilon(1e-9));
    }
    // Cancel every third flow, re-solve incrementally, compare again.
    std::vector<RefFlow> kept;
    std::vector<FlowId> kept_ids;
    for (std::size_t f = 0; f < ids.size(); ++f) {
      if (f % 3 == 0) {
        REQUIRE(net.cancel_flow(ids[f]));
      } else {
        kept.push_back(ref[f]);
        kept_ids.push_back(ids[f]);
      }
    }
    want = reference_maxmin(capacity, kept);
    for (std::size_t f = 0; f < kept_ids.size(); ++f) {
      CHECK(net.rate(kept_ids[f]) == Approx(want[f]).epsilon(1e-9));
    }
  }
}

TEST_CASE("bad arguments are internal errors, not crashes") {
  Engine e;
  FluidNetwork net(e);
  CHECK_THROWS_AS(net.add_resource("zero", Bandwidth::GBps(0)), InternalError);
  ResourceId link = net.add_resource("link", Bandwidth::GBps(1));
  std::vector<ResourceId> bad{ResourceId{7}};
  CHECK_THROWS_AS(net.start_flow(bad, Bytes(1), std::nullopt, [] {}), InternalError);
  std::vector<ResourceId> ok{link};
  CHECK_THROWS_AS(net.start_flow(ok, Bytes(-1), std::nullopt, [] {}), InternalError);
  CHECK_THROWS_AS(net.stats(ResourceId{9}), InternalError);
  CHECK(net.rate(FlowId{}) == 0.0);
  CHECK_FALSE(net.cancel_flow(FlowId{99}));
}

TEST_CASE("a trace sink gets one bandwidth counter per resource at each rate change") {
  Engine e;
  ChromeTraceWriter trace;
  e.set_trace(&trace);
  FluidNetwork net(e);
  ResourceId link = net.add_resource("gpu0.nvlink.out", Bandwidth::GBps(100));
  std::int64_t a_done, b_done;
  start(net, e, {link}, 1'000'000, a_done);
  e.schedule_at(Time::from_ps(5'000'000), [&] { start(net, e, {link}, 1'000'000, b_done); });
  e.run();
  std::ostringstream out;
  trace.write(out);
  std::string json = out.str();
  // Process "gpu0", thread "nvlink.out"; the link total is 100 GB/s from 0 (A alone), still
  // 100 at 5 us (A and B, 50 each: no change, so no new counter), until B ends at 20 us
  // (see the half-done test) where it drops to 0. So exactly two counter events.
  CHECK(json.find(R"("args":{"name":"gpu0"})") != std::string::npos);
  CHECK(json.find(R"("args":{"name":"nvlink.out"})") != std::string::npos);
  CHECK(
      json.find(
          R"("name":"nvlink.out GB/s","ph":"C","pid":1,"tid":1,"ts":0.000000,"args":{"value":100}})") !=
      std::string::npos);
  CHECK(json.find(R"("ts":20.000000,"args":{"value":0}})") != std::string::npos);
  std::size_t counters = 0;
  for (std::size_t p = json.find("\"ph\":\"C\""); p != std::string::npos;
       p = json.find("\"ph\":\"C\"", p + 1)) {
    ++counters;
  }
  CHECK(counters == 2);
}

TEST_CASE("a resource listed twice in a path carries the flow twice") {
  // A read-modify-write crosses one memory twice. Alone on a 100 GB/s resource, a flow that
  // lists it twice runs at 50 GB/s: 1e6 B in 20 us. Beside a flow that lists it once, max-min
  // gives both the same rate x with 2x + x = 100 GB/s: 1e6 B at 33.3 GB/s = 30 us each.
  Engine e;
  FluidNetwork net(e);
  ResourceId r = net.add_resource("gpu0.hbm", Bandwidth::GBps(100));
  std::int64_t alone;
  start(net, e, {r, r}, 1'000'000, alone);
  e.run();
  CHECK(alone == 20'000'000);
  std::int64_t twice, once;
  start(net, e, {r, r}, 1'000'000, twice);
  start(net, e, {r}, 1'000'000, once);
  e.run();
  CHECK(twice == 50'000'000);
  CHECK(once == 50'000'000);
  CHECK(net.stats(r).bytes_carried == Bytes(5'000'000));  // 2 + 2 + 1 MB
}

TEST_CASE("set_trace_track puts a resource's counter on the track it names") {
  // A fabric link "gpu0->nvsw0" has no dot; the fabric files it under its GPU instead.
  Engine e;
  ChromeTraceWriter trace;
  e.set_trace(&trace);
  FluidNetwork net(e);
  ResourceId link = net.add_resource("gpu0->nvsw0", Bandwidth::GBps(100));
  net.set_trace_track(link, "gpu0", "link -> nvsw0");
  std::int64_t done;
  start(net, e, {link}, 1'000'000, done);
  e.run();
  std::ostringstream out;
  trace.write(out);
  const std::string json = out.str();
  CHECK(json.find(R"("args":{"name":"gpu0"})") != std::string::npos);
  CHECK(json.find(R"("name":"link -> nvsw0 GB/s","ph":"C")") != std::string::npos);
  CHECK(json.find("gpu0->nvsw0") == std::string::npos);
  CHECK_THROWS_AS(net.set_trace_track(ResourceId{7}, "a", "b"), InternalError);
}

TEST_CASE("a network destroyed before the engine runs leaves no events calling into it") {
  Engine e;
  bool ran = false;
  {
    FluidNetwork net(e);
    ResourceId link = net.add_resource("link", Bandwidth::GBps(1));
    std::vector<ResourceId> path{link};
    net.start_flow(path, Bytes(1000), std::nullopt, [&ran] { ran = true; });
    FlowId f = net.start_flow(path, Bytes(1000), std::nullopt, [&ran] { ran = true; });
    CHECK(net.rate(f) == 0.5e9);  // flushes the pending solve: both completions now scheduled
    net.start_flow(path, Bytes(1000), std::nullopt, [&ran] { ran = true; });  // a new solve
  }
  // Every completion and the pending solve were cancelled with the network.
  CHECK(e.empty());
  e.run();
  CHECK_FALSE(ran);
}

TEST_CASE("window flows on a queueing resource settle where their rate and its delay agree") {
  // A 1 TB/s resource whose delay is 100 ns x rho / (1 - rho); four flows each keeping 125 KB in
  // flight for 400 ns before queueing. Without the queue they would ask 4 x 125e3 / 400e-9 =
  // 1.25 TB/s; with it their total X = 5e5 / (400e-9 + q) and q = 100e-9 rho / (1 - rho),
  // rho = X / 1e12. The root of rho (400e-9 + 100e-9 rho / (1 - rho)) = 5e5 / 1e12, found here
  // by bisection, is the utilisation the solver must reach.
  Engine e;
  FluidNetwork net(e);
  ResourceId hbm = net.add_resource("hbm", Bandwidth::GBps(1000));
  net.set_queueing(hbm, Duration::ns(100));
  const Window w{Bytes(125'000), Duration::ns(400)};
  std::vector<FlowId> ids;
  for (int i = 0; i < 4; ++i)
    ids.push_back(net.start_flow(
        std::vector{hbm}, Bytes(1'000'000'000), std::nullopt, [] {}, w));
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < 200; ++i) {
    const double rho = (lo + hi) / 2;
    (rho * (400e-9 + 100e-9 * rho / (1 - rho)) < 5e5 / 1e12 ? lo : hi) = rho;
  }
  const double x = lo * 1e12 / 4;
  for (FlowId id : ids) CHECK(net.rate(id) == Approx(x).epsilon(1e-4));
  CHECK(static_cast<double>(net.queueing_delay(hbm).picoseconds()) ==
        Approx(1e5 * lo / (1 - lo)).epsilon(1e-3));
  // A flow without a window beside them (a copy's writes, say) takes 200 GB/s of the resource:
  // its load lengthens the delay the window flows see, so they get less than they had.
  std::int64_t done;
  start(net, e, {hbm}, 1'000'000'000, done, Bandwidth::GBps(200));
  CHECK(net.rate(ids[0]) < 0.99 * x);
  // Without queueing the four take the whole resource, 250 GB/s each (their windows allow 312.5).
  Engine e2;
  FluidNetwork plain(e2);
  ResourceId r = plain.add_resource("hbm", Bandwidth::GBps(1000));
  FlowId f = plain.start_flow(
      std::vector{r}, Bytes(1'000'000'000), std::nullopt, [] {}, w);
  for (int i = 0; i < 3; ++i)
    plain.start_flow(
        std::vector{r}, Bytes(1'000'000'000), std::nullopt, [] {}, w);
  CHECK(plain.rate(f) == 250e9);
}

namespace {

// One scenario run twice: flows A0..A2 equal (one path, bytes, cap, window) started together
// beside B and C, which share their link and start and end at other times. With `apart`, each
// A also crosses a private 10 TB/s resource of its own, which never binds (the others are at
// most 100 GB/s), so the three are no longer equal and are solved one by one. Returns each
// flow's end and the links' bytes carried, in a fixed order.
std::vector<std::int64_t> bundle_scenario(bool apart, std::vector<int>* order = nullptr) {
  Engine e;
  FluidNetwork net(e);
  const ResourceId link = net.add_resource("link", Bandwidth::GBps(100));
  const ResourceId hbm = net.add_resource("hbm", Bandwidth::GBps(80));
  net.set_queueing(hbm, Duration::ns(50));
  std::vector<std::int64_t> done(5, kNone);
  const Window w{Bytes(16'384), Duration::ns(400)};
  for (int i = 0; i < 3; ++i) {
    std::vector<ResourceId> path{link, hbm};
    if (apart) path.push_back(net.add_resource(fmt::format("own{}", i), Bandwidth::GBps(10'000)));
    net.start_flow(
        path, Bytes(3'000'000), std::nullopt,
        [&, i] {
          done[static_cast<std::size_t>(i)] = e.now().picoseconds();
          if (order) order->push_back(i);
        },
        w);
  }
  start(net, e, {link}, 1'000'000, done[3]);
  e.schedule_at(Time::from_ps(7'000'000), [&] { start(net, e, {hbm}, 500'000, done[4]); });
  e.run();
  done.push_back(net.stats(link).bytes_carried.count());
  done.push_back(net.stats(hbm).bytes_carried.count());
  return done;
}

}  // namespace

TEST_CASE("equal flows started together end, and load their resources, as they would apart") {
  // Bundling (sim/detail/fluid_impl.hpp) is exact: the three equal flows get what three flows
  // solved apart get, to the picosecond, through a queueing resource, a flow that ends before
  // them and one that starts while they run.
  std::vector<int> order;
  const std::vector<std::int64_t> together = bundle_scenario(false, &order);
  const std::vector<std::int64_t> apart = bundle_scenario(true);
  CHECK(together == apart);
  for (std::size_t i = 0; i < 5; ++i) CHECK(together[i] > 0);
  // Each link carried every byte of the flows that crossed it: 3 x 3 MB + 1 MB, 3 x 3 MB + 0.5.
  CHECK(together[5] == 10'000'000);
  CHECK(together[6] == 9'500'000);
  // The members' callbacks run in the order they started.
  CHECK(order == std::vector<int>{0, 1, 2});
}

TEST_CASE("a flow cancelled out of a bundle: the rest re-share, its bytes so far stay counted") {
  // Three equal flows of 1e9 B on a 100 GB/s link: 33.3 GB/s each. At 1.5e10 ps (0.015 s) each
  // has moved 5e8 B; cancelling the leader (the first) and then an alias (the third) leaves the
  // second alone at 100 GB/s for its last 5e8 B: 5e9 ps more, so it ends at 2e10 ps.
  Engine e;
  FluidNetwork net(e);
  ResourceId link = net.add_resource("link", Bandwidth::GBps(100));
  std::int64_t d0, d1, d2;
  FlowId a = start(net, e, {link}, 1'000'000'000, d0);
  FlowId b = start(net, e, {link}, 1'000'000'000, d1);
  FlowId c = start(net, e, {link}, 1'000'000'000, d2);
  CHECK(net.rate(b) == Approx(1e11 / 3).epsilon(1e-12));
  CHECK(net.active_flows() == 3);
  e.schedule_at(Time::from_ps(15'000'000'000), [&] {
    CHECK(net.cancel_flow(a));
    CHECK(net.cancel_flow(c));
    CHECK_FALSE(net.cancel_flow(a));  // its id ended, though its slot still carries b
    CHECK(net.rate(a) == 0.0);
    CHECK(net.rate(b) == 1e11);
    CHECK(net.active_flows() == 1);
  });
  e.run();
  CHECK(d0 == kNone);
  CHECK(d2 == kNone);
  CHECK(d1 == 20'000'000'000);
  CHECK(net.flows_finished() == 1);
  // All of b (1e9) and the 5e8 each of a and c moved before they were cancelled.
  CHECK(net.stats(link).bytes_carried == Bytes(2'000'000'000));
}

TEST_CASE("a member cancelled at the instant it joined leaves the others its share") {
  // Members join in O(1) and the resources count them at the next solve (count_members): a
  // cancel before that solve must still take the member out. Three equal flows of 1e9 B on a
  // 100 GB/s link, the third cancelled at once: the other two share it, 50 GB/s each, 2e10 ps.
  Engine e;
  FluidNetwork net(e);
  ResourceId link = net.add_resource("link", Bandwidth::GBps(100));
  std::int64_t d0, d1, d2;
  start(net, e, {link}, 1'000'000'000, d0);
  start(net, e, {link}, 1'000'000'000, d1);
  FlowId c = start(net, e, {link}, 1'000'000'000, d2);
  CHECK(net.cancel_flow(c));
  e.run();
  CHECK(d0 == 20'000'000'000);
  CHECK(d1 == 20'000'000'000);
  CHECK(d2 == kNone);
  CHECK(net.stats(link).bytes_carried == Bytes(2'000'000'000));
}

TEST_CASE("a flow equal to one that has started moving is not bundled with it") {
  // B starts 5e9 ps after A, equal in all but its start: each is solved as a flow of its own.
  // A moves 5e8 B alone at 100 GB/s, then both share: A's last 5e8 B at 50 GB/s end at 1.5e10
  // ps; B has moved 5e8 B by then and moves the rest alone: 5e9 ps more.
  Engine e;
  FluidNetwork net(e);
  ResourceId link = net.add_resource("link", Bandwidth::GBps(100));
  std::int64_t a_done, b_done;
  start(net, e, {link}, 1'000'000'000, a_done);
  e.schedule_at(Time::from_ps(5'000'000'000),
                [&] { start(net, e, {link}, 1'000'000'000, b_done); });
  e.run();
  CHECK(a_done == 15'000'000'000);
  CHECK(b_done == 20'000'000'000);
}

TEST_CASE(
    "a queue's marked and unmarked flows mixed lengthen its delay by how often they alternate") {
  // As the window test above: a 1 TB/s resource with delay 100 ns x rho / (1 - rho) + x, four
  // flows keeping 125 KB in flight for 400 ns; beside them a flow capped at 200 GB/s that also
  // crosses a marker, the mix's coefficient 400 ns: x = 400 ns x 2 rho_m rho_u / rho with rho_m =
  // 0.2 and rho_u = rho - 0.2. The rate X of the four satisfies X = 4 x 125e3 / (400e-9 + 100e-9
  // rho / (1 - rho) + x) with rho = (X + 200e9) / 1e12; its root, found here by bisection on rho,
  // is what the solver must reach.
  const auto extra = [](double rho) { return 400e-9 * 2 * 0.2 * (rho - 0.2) / rho; };
  Engine e;
  FluidNetwork net(e);
  ResourceId hbm = net.add_resource("hbm", Bandwidth::GBps(1000));
  ResourceId writes = net.add_resource("hbm.write", Bandwidth::GBps(10'000));
  net.set_queueing(hbm, Duration::ns(100), QueueMix{writes, Duration::ns(400)});
  const Window w{Bytes(125'000), Duration::ns(400)};
  std::vector<FlowId> ids;
  for (int i = 0; i < 4; ++i)
    ids.push_back(net.start_flow(
        std::vector{hbm}, Bytes(1'000'000'000), std::nullopt, [] {}, w));
  std::int64_t done;
  start(net, e, {hbm, writes}, 1'000'000'000, done, Bandwidth::GBps(200));
  double lo = 0.2, hi = 0.95;
  for (int i = 0; i < 200; ++i) {
    const double rho = (lo + hi) / 2;
    const double x = 4 * 125e3 / (400e-9 + 100e-9 * rho / (1 - rho) + extra(rho));
    ((x + 200e9) / 1e12 > rho ? lo : hi) = rho;
  }
  const double want = (lo * 1e12 - 200e9) / 4;
  for (FlowId id : ids) CHECK(net.rate(id) == Approx(want).epsilon(1e-3));
  CHECK(static_cast<double>(net.queueing_delay(hbm).picoseconds()) ==
        Approx(1e5 * lo / (1 - lo) + extra(lo) * 1e12).epsilon(1e-3));
  // With only marked flows (no mix), the mix's coefficient adds nothing: the plain queue's delay.
  Engine e2;
  FluidNetwork only(e2);
  ResourceId h2 = only.add_resource("hbm", Bandwidth::GBps(1000));
  ResourceId w2 = only.add_resource("hbm.write", Bandwidth::GBps(10'000));
  only.set_queueing(h2, Duration::ns(100), QueueMix{w2, Duration::ns(400)});
  std::vector<FlowId> marked;
  for (int i = 0; i < 4; ++i)
    marked.push_back(only.start_flow(
        std::vector{h2, w2}, Bytes(1'000'000'000), std::nullopt, [] {}, w));
  lo = 0.0, hi = 0.95;
  for (int i = 0; i < 200; ++i) {
    const double rho = (lo + hi) / 2;
    const double x = 4 * 125e3 / (400e-9 + 100e-9 * rho / (1 - rho));
    (x / 1e12 > rho ? lo : hi) = rho;
  }
  for (FlowId id : marked) CHECK(only.rate(id) == Approx(lo * 1e12 / 4).epsilon(1e-3));
}

TEST_CASE("a copy's flow, crossing a queue twice and its marker once, waits once and mixes") {
  // One window flow keeping 125 KB in flight for 400 ns crosses a 1 TB/s queue twice (read and
  // written) and the queue's marker once (written): its rate X counts twice in rho = 2 X / 1e12,
  // it waits the delay once, 100 ns x rho / (1 - rho), and half its bytes here are marked, so the
  // mix adds 400 ns x 2 (rho / 2) (rho / 2) / rho = 400 ns x rho / 2.
  Engine e;
  FluidNetwork net(e);
  ResourceId hbm = net.add_resource("hbm", Bandwidth::GBps(1000));
  ResourceId writes = net.add_resource("hbm.write", Bandwidth::GBps(10'000));
  net.set_queueing(hbm, Duration::ns(100), QueueMix{writes, Duration::ns(400)});
  const FlowId id = net.start_flow(
      std::vector{hbm, hbm, writes}, Bytes(1'000'000'000), std::nullopt, [] {},
      Window{Bytes(125'000), Duration::ns(400)});
  double lo = 0.0, hi = 0.95;
  for (int i = 0; i < 200; ++i) {
    const double rho = (lo + hi) / 2;
    const double x = 125e3 / (400e-9 + 100e-9 * rho / (1 - rho) + 400e-9 * rho / 2);
    (2 * x / 1e12 > rho ? lo : hi) = rho;
  }
  CHECK(net.rate(id) == Approx(lo * 1e12 / 2).epsilon(1e-3));
  CHECK(lo > 0.2);  // far enough into the queue that waiting twice would show
}

TEST_CASE("a closed loop's rate is exact mean value analysis, below both sharp bounds") {
  // By hand (think 3, demand 1): one customer 1 / 4; two: Q_1 = 1 / 4, R_2 = 5 / 4, X_2 = 2 /
  // (17 / 4) = 8 / 17; three: Q_2 = 8 / 17 x 5 / 4 = 10 / 17, R_3 = 27 / 17, X_3 = 3 / (78 / 17)
  // = 17 / 26. The sharp bounds: 3 / 4 (the think time) and 1 (the queue).
  CHECK(closed_loop_rate(1, 3.0, 1.0) == Approx(0.25).epsilon(1e-12));
  CHECK(closed_loop_rate(2, 3.0, 1.0) == Approx(8.0 / 17).epsilon(1e-12));
  CHECK(closed_loop_rate(3, 3.0, 1.0) == Approx(17.0 / 26).epsilon(1e-12));
  // Far past the queue's rate, it approaches it from below; with no think time, one customer
  // keeps the queue busy.
  CHECK(closed_loop_rate(6, 3.0, 1.0) < 0.99);
  CHECK(closed_loop_rate(6, 3.0, 1.0) > 0.9);
  CHECK(closed_loop_rate(64, 3.0, 1.0) <= 1.0);
  CHECK(closed_loop_rate(64, 3.0, 1.0) == Approx(1.0).epsilon(1e-9));
  CHECK(closed_loop_rate(1, 0.0, 2.0) == Approx(0.5).epsilon(1e-12));
  CHECK_THROWS_AS(closed_loop_rate(0, 1.0, 1.0), InternalError);
}

TEST_CASE("a window with customers moves at its closed loop's rate through its station") {
  // A flow keeping 8 KB in flight as 4 customers of 2 KB, each waiting 300 ns (its hold), then
  // crossing a 20 GB/s station twice (2 x 100 ns of demand), beside a queue that does not bind:
  // 2 KB x closed_loop_rate(4, 300 ns, 200 ns) (a fifth of the queue's time idle at four
  // customers: 7.1 GB/s of the 10 the station allows and the 27.3 their think time would).
  Engine e;
  FluidNetwork net(e);
  ResourceId station = net.add_resource("pipe", Bandwidth::GBps(20));
  ResourceId hbm = net.add_resource("hbm", Bandwidth::GBps(1000));
  const FlowId id = net.start_flow(
      std::vector{hbm, station, station}, Bytes(1'000'000), std::nullopt, [] {},
      Window{Bytes(8000), Duration::ns(300), 1, 4, station});
  e.run_until(Time::from_ps(1));
  const double want = 2000 * closed_loop_rate(4, 300e-9, 200e-9);
  CHECK(net.rate(id) == Approx(want).epsilon(1e-9));
  CHECK(want < 10e9);
  CHECK(want > 6e9);
  // The station must be on the path.
  CHECK_THROWS_AS(net.start_flow(
                      std::vector{hbm}, Bytes(1), std::nullopt, [] {},
                      Window{Bytes(8000), Duration::ns(300), 1, 4, station}),
                  InternalError);
}

TEST_CASE("a window flow waits in the queues of its waited hops only") {
  // A flow keeping 125 KB in flight for 400 ns crosses two 1 TB/s queues (100 ns x rho / (1 -
  // rho) each) but waits only for the first (a copy's loads at its source; its stores to the
  // second are posted), where it is alone: X = 125e3 / (400e-9 + 100e-9 rho / (1 - rho)), rho =
  // X / 1e12, whatever the second queue holds (a 500 GB/s flow there).
  Engine e;
  FluidNetwork net(e);
  ResourceId source = net.add_resource("source", Bandwidth::GBps(1000));
  ResourceId sink = net.add_resource("sink", Bandwidth::GBps(1000));
  net.set_queueing(source, Duration::ns(100));
  net.set_queueing(sink, Duration::ns(100));
  std::int64_t done;
  start(net, e, {sink}, 1'000'000'000, done, Bandwidth::GBps(500));
  Window w{Bytes(125'000), Duration::ns(400)};
  w.waited = 1;
  const FlowId id = net.start_flow(
      std::vector{source, sink}, Bytes(1'000'000'000), std::nullopt, [] {}, w);
  double lo = 0.0, hi = 0.95;
  for (int i = 0; i < 200; ++i) {
    const double rho = (lo + hi) / 2;
    (125e3 / (400e-9 + 100e-9 * rho / (1 - rho)) / 1e12 > rho ? lo : hi) = rho;
  }
  CHECK(net.rate(id) == Approx(lo * 1e12).epsilon(1e-3));
  CHECK(net.queueing_delay(sink) > Duration::ns(100));  // waited in, it would have slowed it
}
