// The one table of who waits on what, for the host's events (traces/executor.cpp) and the kernel
// runner's flags and barriers (traces/kernel/sync_table.hpp): a counter per key, 0 until first
// written, and the waiters for it to reach a threshold (an event is recorded at 1, a flag waits
// for a value, a barrier counts arrivals). Waiters are released in the order they started
// waiting (deterministic). Keys are hashed (never iterated): a schedule whose every rank
// signals every other holds a key per pair (331,776 on 576 GPUs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mgsim::traces {

// The hash of a key: an integer's, or a tuple's fields' combined.
template <class Key>
struct SyncKeyHash {
  std::size_t operator()(const Key& key) const { return std::hash<Key>{}(key); }
};
template <class... T>
struct SyncKeyHash<std::tuple<T...>> {
  std::size_t operator()(const std::tuple<T...>& key) const {
    std::size_t h = 0;
    std::apply([&h](const T&... v) { ((h = h * 0x100000001B3ull ^ std::hash<T>{}(v)), ...); }, key);
    return h;
  }
};

template <class Key, class Waiter>
class SyncTable {
 public:
  // Keys seen so far (a loop-dependent index adds one per value).
  std::size_t size() const { return table_.size(); }

  std::int64_t value(const Key& key) const {
    const auto it = table_.find(key);
    return it == table_.end() ? 0 : it->second.value;
  }

  // Sets the counter to `value` (adds it with `add`), then calls wake(waiter) for every waiter
  // whose threshold it reached, and forgets them.
  template <class Wake>
  void set(const Key& key, std::int64_t value, bool add, Wake&& wake) {
    State& s = table_[key];
    s.value = add ? s.value + value : value;
    const std::int64_t now = s.value;
    std::erase_if(s.waiters, [&](const std::pair<Waiter, std::int64_t>& w) {
      if (w.second > now) return false;
      wake(w.first);
      return true;
    });
  }

  // True when the counter is already >= threshold; otherwise `waiter` waits for it.
  bool wait(const Key& key, std::int64_t threshold, Waiter waiter) {
    State& s = table_[key];
    if (s.value >= threshold) return true;
    s.waiters.emplace_back(std::move(waiter), threshold);
    return false;
  }

 private:
  struct State {
    std::int64_t value = 0;
    std::vector<std::pair<Waiter, std::int64_t>> waiters;  // waiter, threshold
  };
  std::unordered_map<Key, State, SyncKeyHash<Key>> table_;
};

}  // namespace mgsim::traces
