// The event queue behind Engine: a 4-ary min-heap of small POD entries, with the callbacks kept
// apart in a slab of slots that are reused through a free list.
//
// Why this shape: the heap moves entries on every push and pop, so entries are 24-byte PODs
// (time, priority, slot, sequence) rather than std::function objects; a callback is moved once
// into its slot and once out of it. A 4-ary heap halves the depth of a binary one and its four
// children share a cache line or two. Slots are reused, so a steady workload allocates nothing.
//
// Cancellation is lazy: cancel() destroys the callback and marks the slot; the heap entry stays
// until it reaches the top and is then discarded. `live_` counts pending, uncancelled events so
// empty() is exact. When cancelled entries outnumber live ones the heap is compacted in O(n),
// so a workload that cancels and re-schedules (the fluid solver does) keeps the heap small.
//
// An EventId packs (generation << 32 | slot + 1); the slot's generation is bumped each time it
// is freed, so an id whose event ran or was cancelled no longer matches (a slot would have to
// be reused 2^32 times for a stale id to match again).
#include "sim/engine.hpp"

#include <utility>
#include <vector>

#include "sim/check.hpp"

namespace mgsim::sim {

namespace {

struct Entry {
  std::int64_t time;
  std::int32_t priority;
  std::uint32_t slot;
  std::uint64_t sequence;
};

inline bool before(const Entry& a, const Entry& b) {
  if (a.time != b.time) return a.time < b.time;
  if (a.priority != b.priority) return a.priority < b.priority;
  return a.sequence < b.sequence;
}

enum class SlotState : std::uint8_t { kFree, kPending, kCancelled };

struct Slot {
  Engine::Callback callback;
  std::uint32_t generation = 1;
  SlotState state = SlotState::kFree;
};

constexpr std::size_t kArity = 4;

}  // namespace

struct Engine::Queue {
  std::vector<Entry> heap;
  std::vector<Slot> slots;
  std::vector<std::uint32_t> free_slots;
  std::size_t live = 0;       // pending and not cancelled
  std::size_t cancelled = 0;  // cancelled entries still in the heap

  std::uint32_t acquire_slot(Callback&& cb) {
    std::uint32_t index;
    if (!free_slots.empty()) {
      index = free_slots.back();
      free_slots.pop_back();
    } else {
      MGSIM_CHECK(slots.size() < 0xFFFF'FFFFu, "more than 2^32 pending events");
      index = static_cast<std::uint32_t>(slots.size());
      slots.emplace_back();
    }
    Slot& s = slots[index];
    s.callback = std::move(cb);
    s.state = SlotState::kPending;
    return index;
  }

  void release_slot(std::uint32_t index) {
    Slot& s = slots[index];
    s.state = SlotState::kFree;
    ++s.generation;
    free_slots.push_back(index);
  }

  void sift_up(std::size_t i) {
    Entry e = heap[i];
    while (i > 0) {
      std::size_t parent = (i - 1) / kArity;
      if (!before(e, heap[parent])) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = e;
  }

  void sift_down(std::size_t i) {
    const std::size_t n = heap.size();
    Entry e = heap[i];
    for (;;) {
      std::size_t first = i * kArity + 1;
      if (first >= n) break;
      std::size_t last = first + kArity < n ? first + kArity : n;
      std::size_t best = first;
      for (std::size_t c = first + 1; c < last; ++c) {
        if (before(heap[c], heap[best])) best = c;
      }
      if (!before(heap[best], e)) break;
      heap[i] = heap[best];
      i = best;
    }
    heap[i] = e;
  }

  void push(const Entry& e) {
    heap.push_back(e);
    sift_up(heap.size() - 1);
  }

  void pop_top() {
    heap.front() = heap.back();
    heap.pop_back();
    if (!heap.empty()) sift_down(0);
  }

  // Drops cancelled entries from the top so that heap.front() (if any) is a live event.
  void skip_cancelled() {
    while (!heap.empty() && slots[heap.front().slot].state == SlotState::kCancelled) {
      release_slot(heap.front().slot);
      pop_top();
      --cancelled;
    }
  }

  // Removes every cancelled entry and rebuilds the heap bottom-up: O(n).
  void compact() {
    std::size_t out = 0;
    for (const Entry& e : heap) {
      if (slots[e.slot].state == SlotState::kCancelled) {
        release_slot(e.slot);
      } else {
        heap[out++] = e;
      }
    }
    heap.resize(out);
    cancelled = 0;
    if (heap.size() > 1) {
      for (std::size_t i = (heap.size() - 2) / kArity + 1; i-- > 0;) sift_down(i);
    }
  }
};

Engine::Engine() : queue_(new Queue) {}

Engine::~Engine() { delete queue_; }

EventId Engine::schedule_at(Time t, Callback cb, int priority) {
  MGSIM_CHECK(t >= now_, "event scheduled in the past: at {} ps, now {} ps", t.picoseconds(),
              now_.picoseconds());
  Queue& q = *queue_;
  std::uint32_t slot = q.acquire_slot(std::move(cb));
  q.push(Entry{t.picoseconds(), priority, slot, next_sequence_++});
  ++q.live;
  return EventId{(static_cast<std::uint64_t>(q.slots[slot].generation) << 32) | (slot + 1ull)};
}

EventId Engine::schedule_in(Duration d, Callback cb, int priority) {
  MGSIM_CHECK(d >= Duration::zero(), "negative delay {} ps", d.picoseconds());
  return schedule_at(now_ + d, std::move(cb), priority);
}

bool Engine::cancel(EventId id) {
  Queue& q = *queue_;
  std::uint64_t low = id.value & 0xFFFF'FFFFull;
  if (low == 0 || low > q.slots.size()) return false;
  Slot& s = q.slots[low - 1];
  if (s.state != SlotState::kPending || s.generation != (id.value >> 32)) return false;
  s.state = SlotState::kCancelled;
  s.callback = nullptr;  // release what the callback captured now, not when the entry surfaces
  --q.live;
  ++q.cancelled;
  if (q.cancelled > 1024 && q.cancelled > q.live) q.compact();
  return true;
}

bool Engine::empty() const { return queue_->live == 0; }

Time Engine::run() {
  run_until(Time::max());
  return now_;
}

void Engine::run_until(Time t) {
  Queue& q = *queue_;
  stop_requested_ = false;
  for (;;) {
    q.skip_cancelled();
    if (q.heap.empty()) break;
    const Entry top = q.heap.front();
    if (top.time > t.picoseconds()) break;
    now_ = Time::from_ps(top.time);
    // Move the callback out and free its slot before running it: the callback may schedule
    // (reallocating the slab) and may try to cancel itself, which must then fail.
    Callback cb = std::move(q.slots[top.slot].callback);
    q.release_slot(top.slot);
    q.pop_top();
    --q.live;
    ++events_processed_;
    cb();
    if (stop_requested_) {
      stop_requested_ = false;
      return;
    }
  }
  if (!empty() && t > now_) now_ = t;
}

}  // namespace mgsim::sim
