#include "sim/engine.hpp"

#include <climits>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/check.hpp"

using namespace mgsim::sim;

TEST_CASE("events run in (time, priority, sequence) order") {
  Engine e;
  std::string log;
  // Scheduled out of order on purpose. Expected order:
  //   t=10 p=0 'a' (seq 2), t=10 p=0 'b' (seq 3): same time and priority, scheduling order;
  //   t=10 p=-1 'c' runs before both (lower priority value first);
  //   t=10 p=5 'd' after them; t=20 'e' last; t=5 'f' first of all.
  e.schedule_at(Time::from_ps(20), [&] { log += 'e'; });
  e.schedule_at(Time::from_ps(10), [&] { log += 'a'; });
  e.schedule_at(Time::from_ps(10), [&] { log += 'b'; });
  e.schedule_at(
      Time::from_ps(10), [&] { log += 'd'; }, 5);
  e.schedule_at(
      Time::from_ps(10), [&] { log += 'c'; }, -1);
  e.schedule_at(Time::from_ps(5), [&] { log += 'f'; });
  Time end = e.run();
  CHECK(log == "fcabde");
  CHECK(end == Time::from_ps(20));
  CHECK(e.events_processed() == 6);
  CHECK(e.empty());
}

TEST_CASE("events scheduled from a callback at the same time run after the current one") {
  Engine e;
  std::vector<int> order;
  e.schedule_at(Time::from_ps(7), [&] {
    order.push_back(1);
    // Same time and priority as event 2, but scheduled later (a larger sequence number than
    // event 2, which was scheduled before run()), so the order is 1, 2, 3.
    e.schedule_in(Duration::zero(), [&] { order.push_back(3); });
  });
  e.schedule_at(Time::from_ps(7), [&] { order.push_back(2); });
  e.run();
  CHECK(order == std::vector<int>{1, 2, 3});
  CHECK(e.now() == Time::from_ps(7));
}

TEST_CASE("cancel removes a pending event and empty() sees it") {
  Engine e;
  int ran = 0;
  EventId a = e.schedule_in(Duration::ns(1), [&] { ran += 1; });
  EventId b = e.schedule_in(Duration::ns(2), [&] { ran += 10; });
  CHECK_FALSE(e.empty());
  CHECK(e.cancel(a));
  CHECK_FALSE(e.cancel(a));  // already cancelled
  CHECK_FALSE(e.empty());    // b still pending
  CHECK(e.cancel(b));
  CHECK(e.empty());  // only cancelled entries remain in the heap
  CHECK_FALSE(e.cancel(EventId{}));
  CHECK_FALSE(e.cancel(EventId{12345}));
  e.run();
  CHECK(ran == 0);
  CHECK(e.events_processed() == 0);
}

TEST_CASE("an event that already ran cannot be cancelled, nor its reused slot hit") {
  Engine e;
  EventId first = e.schedule_in(Duration::ps(1), [] {});
  e.run();
  CHECK_FALSE(e.cancel(first));
  // The slot of `first` is reused; the old id must not cancel the new event.
  int ran = 0;
  EventId second = e.schedule_in(Duration::ps(1), [&] { ++ran; });
  CHECK(second != first);
  CHECK_FALSE(e.cancel(first));
  e.run();
  CHECK(ran == 1);
}

TEST_CASE("run_until stops at the boundary and advances the clock when events remain") {
  Engine e;
  std::vector<std::int64_t> seen;
  for (int t : {10, 20, 30}) {
    e.schedule_at(Time::from_ps(t), [&] { seen.push_back(e.now().picoseconds()); });
  }
  // Events with time <= 20 run (10 and 20); 30 remains, so now() becomes 25.
  e.run_until(Time::from_ps(25));
  CHECK(seen == std::vector<std::int64_t>{10, 20});
  CHECK(e.now() == Time::from_ps(25));
  // Inclusive boundary: the event at exactly 30 runs.
  e.run_until(Time::from_ps(30));
  CHECK(seen.size() == 3);
  CHECK(e.empty());
  // Queue empty: the contract leaves now() at the last event.
  e.run_until(Time::from_ps(100));
  CHECK(e.now() == Time::from_ps(30));
}

TEST_CASE("stop ends run after the current event, run resumes later") {
  Engine e;
  int count = 0;
  for (int i = 1; i <= 5; ++i) {
    e.schedule_at(Time::from_ps(i), [&] {
      if (++count == 2) e.stop();
    });
  }
  e.run();
  CHECK(count == 2);
  CHECK(e.now() == Time::from_ps(2));
  e.run();
  CHECK(count == 5);
}

TEST_CASE("many cancels trigger compaction without losing live events") {
  Engine e;
  // 5000 events, every one except multiples of 7 cancelled: the compaction threshold (1024
  // cancelled entries and more cancelled than live) is crossed several times.
  std::vector<EventId> ids;
  std::int64_t sum = 0;
  for (int i = 0; i < 5000; ++i) {
    ids.push_back(e.schedule_at(Time::from_ps(5000 - i), [&sum, i] { sum += i; }));
  }
  std::int64_t expected = 0;
  for (int i = 0; i < 5000; ++i) {
    if (i % 7 == 0) {
      expected += i;
    } else {
      REQUIRE(e.cancel(ids[static_cast<std::size_t>(i)]));
    }
  }
  // Live events: i = 0, 7, ..., 4998 -> 715 of them.
  e.run();
  CHECK(e.events_processed() == 715);
  CHECK(sum == expected);
}

TEST_CASE("scheduling in the past is an internal error") {
  Engine e;
  e.schedule_at(Time::from_ps(10), [] {});
  e.run();
  CHECK_THROWS_AS(e.schedule_at(Time::from_ps(5), [] {}), InternalError);
  CHECK_THROWS_AS(e.schedule_in(Duration::ps(-1), [] {}), InternalError);
}

TEST_CASE("heap order holds for a pseudo-random workload") {
  Engine e;
  // Linear congruential times; every callback checks it never sees time go backwards.
  std::uint64_t x = 12345;
  std::int64_t last = -1;
  bool monotone = true;
  for (int i = 0; i < 20000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    auto t = static_cast<std::int64_t>(x >> 44);
    e.schedule_at(Time::from_ps(t), [&] {
      monotone = monotone && e.now().picoseconds() >= last;
      last = e.now().picoseconds();
    });
  }
  e.run();
  CHECK(monotone);
  CHECK(e.events_processed() == 20000);
}

// The queue groups events of one (time, priority) into buckets; the order must still be exactly
// (time, priority, sequence). Reference: the set of pending (time, priority, sequence) keys kept
// by the test; every event that runs must be the least pending key. Times span 4 ps and
// priorities five values, so most events tie on time; callbacks schedule more (some at now(),
// some at a lower priority than their own) and cancel others; two thirds of the first ones are
// cancelled before the run, which compacts the queue.
TEST_CASE("events sharing a time run in exact (time, priority, sequence) order, with cancels") {
  using Key = std::tuple<std::int64_t, int, std::uint64_t>;
  Engine e;
  std::set<Key> pending;
  std::vector<std::pair<Key, EventId>> ids;
  std::uint64_t sequence = 0;  // mirrors the engine's: one per schedule_at
  std::uint64_t x = 7;
  auto next = [&x](std::uint64_t n) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return (x >> 33) % n;
  };
  const int priorities[] = {-1, 0, 0, 5, INT_MAX};
  int bad = 0;
  std::int64_t ran = 0;
  std::function<void(int)> add = [&](int budget) {
    const Time t = e.now() + Duration::ps(static_cast<std::int64_t>(next(4)));
    const int p = priorities[next(5)];
    const Key key{t.picoseconds(), p, ++sequence};
    pending.insert(key);
    const EventId id = e.schedule_at(
        t,
        [&, key, budget] {
          if (pending.empty() || *pending.begin() != key) ++bad;
          pending.erase(key);
          ++ran;
          if (budget > 0) {
            for (std::uint64_t k = next(3); k-- > 0;) add(budget - 1);
          }
          // Cancel a few pending events, picked at random among those scheduled so far.
          for (std::uint64_t k = next(3); k-- > 0 && !ids.empty();) {
            const auto& [victim, victim_id] = ids[next(ids.size())];
            if (e.cancel(victim_id)) pending.erase(victim);
          }
        },
        p);
    ids.emplace_back(key, id);
  };
  for (int i = 0; i < 6000; ++i) add(12);
  // Two thirds cancelled before the run: more than 1024 and more than the live ones, so the
  // queue compacts while most buckets still hold live events.
  for (std::size_t i = 0; i < 6000; ++i) {
    if (i % 3 == 0) continue;
    REQUIRE(e.cancel(ids[i].second));
    pending.erase(ids[i].first);
  }
  e.run();
  CHECK(bad == 0);
  CHECK(pending.empty());
  CHECK(e.empty());
  CHECK(ran == static_cast<std::int64_t>(e.events_processed()));
  CHECK(ran > 2000);
}

TEST_CASE("the guard runs after every N events and may end the run by throwing") {
  Engine e;
  for (int i = 1; i <= 10; ++i) e.schedule_at(Time::from_ps(i), [] {});
  std::vector<std::uint64_t> seen;
  e.set_guard(3, [&] {
    seen.push_back(e.events_processed());
    if (e.events_processed() >= 6) throw std::runtime_error("limit");
  });
  CHECK_THROWS_WITH(e.run(), "limit");
  CHECK(seen == std::vector<std::uint64_t>{3, 6});
  CHECK(e.now() == Time::from_ps(6));  // the run ended at the event after which it threw
}

TEST_CASE("background events stop when nothing else is pending, and the run says when it was") {
  // Two tickers every 10 ps (as two GPUs' power governors), each stopping once only background
  // events are left; foreground work at 25 and 37 ps. After 37 the tickers run at 40 (the first
  // sees the other's tick still pending and stops, the second then sees none and stops).
  Engine e;
  std::vector<std::int64_t> ticks;
  std::function<void()> tickers[2];
  for (auto& tick : tickers)
    tick = [&] {
      ticks.push_back(e.now().picoseconds());
      if (!e.only_background()) e.schedule_background_at(e.now() + Duration::ps(10), tick);
    };
  e.schedule_background_at(Time::from_ps(10), tickers[0]);
  e.schedule_background_at(Time::from_ps(10), tickers[1]);
  e.schedule_at(Time::from_ps(25), [] {});
  e.schedule_at(Time::from_ps(37), [] {});
  CHECK(!e.only_background());
  CHECK(e.run() == Time::from_ps(40));
  CHECK(e.last_foreground() == Time::from_ps(37));
  CHECK(ticks == std::vector<std::int64_t>{10, 10, 20, 20, 30, 30, 40, 40});
  // A cancelled background event leaves the count.
  Engine f;
  const EventId id = f.schedule_background_at(Time::from_ps(5), [] {});
  f.schedule_at(Time::from_ps(1), [] {});
  CHECK(!f.only_background());
  CHECK(f.cancel(id));
  f.run();
  CHECK(f.only_background());
  CHECK(f.empty());
}
