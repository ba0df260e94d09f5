// traces/sync_table.hpp: the one table of counters and their waiters (events, flags, barriers).
#include "traces/sync_table.hpp"

#include <cstdint>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

namespace mgsim::traces {
namespace {

using Key = std::tuple<int, int, std::int64_t>;

TEST_CASE("a counter starts at 0, and its waiters go in the order they came once it reaches them") {
  SyncTable<Key, int> t;
  CHECK(t.value({0, 0, 7}) == 0);
  CHECK(t.size() == 0);
  CHECK_FALSE(t.wait({0, 0, 7}, 2, 10));
  CHECK_FALSE(t.wait({0, 0, 7}, 1, 11));
  CHECK_FALSE(t.wait({0, 0, 7}, 3, 12));
  CHECK(t.size() == 1);
  std::vector<int> woken;
  auto wake = [&](int w) { woken.push_back(w); };
  t.set({0, 0, 7}, 2, false, wake);  // reaches 10's 2 and 11's 1, not 12's 3
  CHECK(woken == std::vector<int>{10, 11});
  t.set({0, 0, 7}, 1, true, wake);  // added: 3
  CHECK(woken == std::vector<int>{10, 11, 12});
  CHECK(t.value({0, 0, 7}) == 3);
  CHECK(t.wait({0, 0, 7}, 3, 13));  // already there: no wait
}

TEST_CASE("many keys: each keeps its counter and waiters as the table grows, wakes may add keys") {
  // 331,776 keys is a flag per pair of 576 GPUs; 20,000 here, every tenth with a waiter from
  // before the table grew past it. The wake adds a key of its own while the table is being set.
  SyncTable<Key, int> t;
  for (int i = 0; i < 20'000; ++i) {
    if (i % 10 == 0) {
      CHECK_FALSE(t.wait({i % 576, 1, i}, 1, i));
    } else {
      t.set({i % 576, 1, i}, i, false, [](int) {});
    }
  }
  CHECK(t.size() == 20'000);
  for (int i = 1; i < 20'000; i += 997) CHECK(t.value({i % 576, 1, i}) == (i % 10 == 0 ? 0 : i));
  std::vector<int> woken;
  for (int i = 0; i < 20'000; i += 10) {
    t.set({i % 576, 1, i}, 1, false, [&](int w) {
      woken.push_back(w);
      t.set({-1, 2, w}, w, false, [](int) {});
    });
  }
  CHECK(woken.size() == 2'000);
  CHECK(woken.front() == 0);
  CHECK(woken.back() == 19'990);
  CHECK(t.size() == 22'000);
  CHECK(t.value({-1, 2, 19'990}) == 19'990);
  CHECK(t.value({-1, 2, 19'991}) == 0);
}

}  // namespace
}  // namespace mgsim::traces
