// The one table of who waits on what, for the host's events (traces/executor.cpp) and the kernel
// runner's flags and barriers (traces/kernel/sync_table.hpp): a counter per key, 0 until first
// written, and the waiters for it to reach a threshold (an event is recorded at 1, a flag waits
// for a value, a barrier counts arrivals). Waiters are released in the order they started
// waiting (deterministic). Keys are hashed (never iterated): a schedule whose every rank
// signals every other holds a key per pair (331,776 on 576 GPUs).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <tuple>
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
  std::size_t size() const { return count_; }

  std::int64_t value(const Key& key) const {
    const Slot* s = find(key);
    return s == nullptr ? 0 : s->value;
  }

  // Sets the counter to `value` (adds it with `add`), then calls wake(waiter) for every waiter
  // whose threshold it reached, in the order they started waiting, and forgets them.
  template <class Wake>
  void set(const Key& key, std::int64_t value, bool add, Wake&& wake) {
    Slot& s = slot(key);
    s.value = add ? s.value + value : value;
    if (s.waiters.empty()) return;
    // Taken out before any wake runs: a wake may add keys, which moves the slots.
    const std::int64_t now = s.value;
    std::vector<Waiter> woken;
    std::erase_if(s.waiters, [&](std::pair<Waiter, std::int64_t>& w) {
      if (w.second > now) return false;
      woken.push_back(std::move(w.first));
      return true;
    });
    for (Waiter& w : woken) wake(w);
  }

  // True when the counter is already >= threshold; otherwise `waiter` waits for it.
  bool wait(const Key& key, std::int64_t threshold, Waiter waiter) {
    Slot& s = slot(key);
    if (s.value >= threshold) return true;
    s.waiters.emplace_back(std::move(waiter), threshold);
    return false;
  }

 private:
  struct Slot {
    Key key{};
    bool used = false;
    std::int64_t value = 0;
    std::vector<std::pair<Waiter, std::int64_t>> waiters;  // waiter, threshold
  };

  // Open addressing with linear probing, a power of two long and at most 3/4 full: a key's
  // counter is one probe away, where a node-based map chased a bucket and a node (a kernel's
  // flag waits on 576 GPUs look keys up 49 million times).
  std::size_t home(const Key& key) const {
    std::uint64_t h = SyncKeyHash<Key>{}(key);
    h ^= h >> 33;  // murmur3's finaliser: neighbouring keys land far apart
    h *= 0xFF51'AFD7'ED55'8CCDull;
    h ^= h >> 33;
    return static_cast<std::size_t>(h) & (slots_.size() - 1);
  }
  const Slot* find(const Key& key) const {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = home(key);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s;
    }
  }
  Slot& slot(const Key& key) {
    if (4 * (count_ + 1) > 3 * slots_.size()) grow();
    std::size_t i = home(key);
    for (; slots_[i].used; i = (i + 1) & (slots_.size() - 1))
      if (slots_[i].key == key) return slots_[i];
    ++count_;
    slots_[i].used = true;
    slots_[i].key = key;
    return slots_[i];
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.clear();
    slots_.resize(std::max<std::size_t>(64, 2 * old.size()));
    for (Slot& o : old) {
      if (!o.used) continue;
      std::size_t i = home(o.key);
      while (slots_[i].used) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = std::move(o);
    }
  }

  std::vector<Slot> slots_;
  std::size_t count_ = 0;
};

}  // namespace mgsim::traces
