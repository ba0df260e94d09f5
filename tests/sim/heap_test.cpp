// sim/detail/heap.hpp: the order it pops, and the positions it reports to an indexed caller.
#include <cstdint>
#include <functional>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/detail/heap.hpp"

namespace mgsim::sim::detail {
namespace {

// Items are ids into `keys`; ties by id, as the fluid solver breaks them.
struct ByKey {
  const std::vector<std::int64_t>* keys;
  bool operator()(std::uint32_t a, std::uint32_t b) const {
    const std::int64_t ka = (*keys)[a];
    const std::int64_t kb = (*keys)[b];
    return ka != kb ? ka < kb : a < b;
  }
};
struct Track {
  std::vector<std::size_t>* pos;
  void operator()(std::uint32_t id, std::size_t i) const { (*pos)[id] = i; }
};

TEST_CASE("a plain heap pops in order, whatever the arity", "[sim][heap]") {
  Heap<int, 2, std::less<>> binary;
  Heap<int, 4, std::less<>> quaternary;
  for (int x : {5, 3, 9, 1, 7, 3, 8}) {
    binary.push(x);
    quaternary.push(x);
  }
  std::vector<int> a, b;
  while (!binary.empty()) {
    a.push_back(binary.top());
    binary.pop();
    b.push_back(quaternary.top());
    quaternary.pop();
  }
  CHECK(a == std::vector<int>{1, 3, 3, 5, 7, 8, 9});
  CHECK(b == a);
}

TEST_CASE("an indexed heap follows updates and removals like an ordered set", "[sim][heap]") {
  // 2,000 random operations on 64 ids, checked against std::set after each: the top is the
  // set's least element and every reported position holds its id.
  constexpr std::uint32_t kIds = 64;
  std::vector<std::int64_t> keys(kIds, 0);
  std::vector<std::size_t> pos(kIds, 0);
  std::vector<bool> in(kIds, false);
  Heap<std::uint32_t, 2, ByKey, Track> heap(ByKey{&keys}, Track{&pos});
  std::set<std::pair<std::int64_t, std::uint32_t>> ref;
  std::mt19937 rng(7);
  for (int step = 0; step < 2000; ++step) {
    const std::uint32_t id = rng() % kIds;
    const std::int64_t key = static_cast<std::int64_t>(rng() % 50);
    if (!in[id]) {
      keys[id] = key;
      heap.push(id);
      in[id] = true;
      ref.insert({key, id});
    } else if (rng() % 3 == 0) {
      ref.erase({keys[id], id});
      heap.remove(pos[id]);
      in[id] = false;
    } else {
      ref.erase({keys[id], id});
      keys[id] = key;  // up or down
      heap.update(pos[id]);
      ref.insert({key, id});
    }
    REQUIRE(heap.size() == ref.size());
    if (!ref.empty()) REQUIRE(heap.top() == ref.begin()->second);
    std::size_t i = 0;
    for (std::uint32_t x : heap) REQUIRE(pos[x] == i++);
  }
  // retain + pop empties it in order.
  heap.retain([&](std::uint32_t x) { return x % 2 == 0; });
  std::int64_t last = -1;
  while (!heap.empty()) {
    const std::uint32_t x = heap.top();
    CHECK(x % 2 == 0);
    CHECK(keys[x] >= last);
    last = keys[x];
    heap.pop();
  }
}

}  // namespace
}  // namespace mgsim::sim::detail
