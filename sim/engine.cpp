// The event queue behind Engine: a 4-ary min-heap of small POD entries, each one event or a
// bucket of events of the same (time, priority); callbacks are kept apart in a slab of slots
// that are reused through a free list.
//
// Why buckets: the CTAs of a simulated GPU run in lockstep, so events pile up on the same
// picosecond (the 8-GPU all-gather GEMM runs 233,350 events at 437 distinct (time, priority)
// pairs), and a heap of events sifted each of them through ~11 levels. The first event of a
// (time, priority) is a heap entry of its own, as before (a workload whose times are all
// distinct pays only a cache probe); the following ones go to a bucket, a list of slots in
// scheduling order: appending and taking the next cost O(1), and the bucket is one heap entry.
//
// Order, exactly (time, priority, sequence), as a heap of events gives: an event is appended to
// the newest bucket of its (time, priority) when a small direct-mapped cache still holds that
// bucket, else it becomes a new entry (the cache's first event of the pair) or a new bucket (a
// later one). So a bucket's events are in sequence order, and every event of an older entry of
// the same (time, priority) precedes every event of a newer one: an older bucket is never
// appended to once a newer entry exists, because the cache is updated when the newer one is
// made. The heap orders entries by (time, priority, sequence of the first event), so the front
// of the top entry is the least pending event. A bucket leaves the heap and the cache (its
// generation is bumped) when its last event is taken.
//
// Why the entries are PODs: the heap moves entries on every push and pop, so entries are 24-byte
// PODs (time, priority, slot or bucket, sequence) rather than std::function objects; a callback
// is moved once into its slot and once out of it. A 4-ary heap (sim/detail/heap.hpp) halves the
// depth of a binary one and its four children share a cache line or two. Slots and buckets are
// reused, so a steady workload allocates nothing.
//
// Cancellation is lazy: cancel() destroys the callback and marks the slot; the slot stays in the
// queue until it reaches the front and is then discarded. `live` counts pending, uncancelled
// events so empty() is exact. When cancelled entries outnumber live ones the buckets are
// filtered and the heap rebuilt in O(n), so a workload that cancels and re-schedules (the fluid
// solver does) keeps the queue small.
//
// An EventId packs (generation << 32 | slot + 1); the slot's generation is bumped each time it
// is freed, so an id whose event ran or was cancelled no longer matches (a slot would have to
// be reused 2^32 times for a stale id to match again).
#include "sim/engine.hpp"

#include <array>
#include <utility>
#include <vector>

#include "sim/check.hpp"
#include "sim/detail/heap.hpp"

namespace mgsim::sim {

namespace {

// One event (ref = its slot) or a bucket (ref = kBucket | bucket index) and the sequence number
// of its first event.
struct Entry {
  std::int64_t time;
  std::int32_t priority;
  std::uint32_t ref;
  std::uint64_t sequence;
};

constexpr std::uint32_t kBucket = 0x8000'0000u;

struct Before {
  bool operator()(const Entry& a, const Entry& b) const {
    if (a.time != b.time) return a.time < b.time;
    if (a.priority != b.priority) return a.priority < b.priority;
    return a.sequence < b.sequence;
  }
};

struct Bucket {
  std::vector<std::uint32_t> slots;  // callback slots in sequence order; [next, size) pending
  std::size_t next = 0;
  std::uint32_t generation = 0;  // bumped when the bucket is freed (stale cache entries)
};

// The newest entry of a (time, priority): a single event (bucket == kNoBucket), or a bucket if
// still live (its generation matches).
constexpr std::uint32_t kNoBucket = UINT32_MAX;
constexpr std::uint32_t kNoEntry = UINT32_MAX - 1;

struct CacheEntry {
  std::int64_t time = 0;
  std::int32_t priority = 0;
  std::uint32_t bucket = kNoEntry;
  std::uint32_t generation = 0;
};

enum class SlotState : std::uint8_t { kFree, kPending, kCancelled };

struct Slot {
  Engine::Callback callback;
  std::uint32_t generation = 1;
  SlotState state = SlotState::kFree;
  bool background = false;  // Engine::schedule_background_at
};

constexpr std::size_t kCacheSize = 64;  // a power of two

}  // namespace

struct Engine::Queue {
  detail::Heap<Entry, 4, Before> heap;
  std::vector<Bucket> buckets;
  std::vector<std::uint32_t> free_buckets;
  std::array<CacheEntry, kCacheSize> cache;
  std::vector<Slot> slots;
  std::vector<std::uint32_t> free_slots;
  std::size_t live = 0;        // pending and not cancelled
  std::size_t background = 0;  // of them, background events
  std::size_t cancelled = 0;   // cancelled slots still queued

  // An index from `free_list` if it has one, else a new default element at the end of `items`.
  template <class T>
  static std::uint32_t reuse_or_append(std::vector<std::uint32_t>& free_list, std::vector<T>& items,
                                       const char* what) {
    if (!free_list.empty()) {
      const std::uint32_t i = free_list.back();
      free_list.pop_back();
      return i;
    }
    MGSIM_CHECK(items.size() < kBucket, "more than 2^31 {}", what);
    items.emplace_back();
    return static_cast<std::uint32_t>(items.size() - 1);
  }

  std::uint32_t acquire_slot(Callback&& cb, bool is_background) {
    const std::uint32_t index = reuse_or_append(free_slots, slots, "pending events");
    Slot& s = slots[index];
    s.callback = std::move(cb);
    s.state = SlotState::kPending;
    s.background = is_background;
    background += is_background ? 1 : 0;
    return index;
  }

  void release_slot(std::uint32_t index) {
    Slot& s = slots[index];
    s.state = SlotState::kFree;
    ++s.generation;
    free_slots.push_back(index);
  }

  void free_bucket(std::uint32_t b) {
    ++buckets[b].generation;
    free_buckets.push_back(b);
  }

  static std::size_t cache_index(std::int64_t time, std::int32_t priority) {
    const auto h = (static_cast<std::uint64_t>(time) ^ static_cast<std::uint32_t>(priority)) *
                   0x9E37'79B9'7F4A'7C15ull;
    return static_cast<std::size_t>(h >> 58) & (kCacheSize - 1);
  }

  void push(std::int64_t time, std::int32_t priority, std::uint32_t slot, std::uint64_t sequence) {
    CacheEntry& c = cache[cache_index(time, priority)];
    const bool known = c.bucket != kNoEntry && c.time == time && c.priority == priority;
    if (known && c.bucket != kNoBucket && buckets[c.bucket].generation == c.generation) {
      buckets[c.bucket].slots.push_back(slot);
      return;
    }
    if (!known) {  // the first of its (time, priority) that the cache knows of: an entry alone
      heap.push(Entry{time, priority, slot, sequence});
      c = CacheEntry{time, priority, kNoBucket, 0};
      return;
    }
    const std::uint32_t b = reuse_or_append(free_buckets, buckets, "event buckets");
    Bucket& bucket = buckets[b];
    bucket.slots.clear();
    bucket.next = 0;
    bucket.slots.push_back(slot);
    heap.push(Entry{time, priority, kBucket | b, sequence});
    c = CacheEntry{time, priority, b, bucket.generation};
  }

  // The slot of the least pending event. REQUIRES: !heap.empty().
  std::uint32_t front_slot() const {
    const std::uint32_t ref = heap.top().ref;
    if ((ref & kBucket) == 0) return ref;
    const Bucket& bucket = buckets[ref & ~kBucket];
    return bucket.slots[bucket.next];
  }

  // Takes the least pending event out of the queue; frees its bucket when that was the last.
  // REQUIRES: !heap.empty().
  std::uint32_t take_front() {
    const std::uint32_t ref = heap.top().ref;
    if ((ref & kBucket) == 0) {
      heap.pop();
      return ref;
    }
    const std::uint32_t b = ref & ~kBucket;
    Bucket& bucket = buckets[b];
    const std::uint32_t slot = bucket.slots[bucket.next++];
    if (bucket.next == bucket.slots.size()) {
      free_bucket(b);
      heap.pop();
    }
    return slot;
  }

  // Drops cancelled events from the front so that the least pending event (if any) is live.
  void skip_cancelled() {
    while (!heap.empty()) {
      if (slots[front_slot()].state != SlotState::kCancelled) return;
      release_slot(take_front());
      --cancelled;
    }
  }

  // Removes every cancelled event, frees the buckets left empty and rebuilds the heap: O(n).
  // Rare (once per > 1024 cancels), so kept out of line: inlined, it cost cancel() ~10 % more
  // instructions per call in register saves.
  [[gnu::noinline]] void compact() {
    heap.retain([this](const Entry& e) {
      if ((e.ref & kBucket) == 0) {
        if (slots[e.ref].state != SlotState::kCancelled) return true;
        release_slot(e.ref);
        return false;
      }
      Bucket& bucket = buckets[e.ref & ~kBucket];
      std::size_t kept = 0;
      for (std::size_t i = bucket.next; i < bucket.slots.size(); ++i) {
        const std::uint32_t s = bucket.slots[i];
        if (slots[s].state == SlotState::kCancelled) {
          release_slot(s);
        } else {
          bucket.slots[kept++] = s;
        }
      }
      bucket.slots.resize(kept);
      bucket.next = 0;
      if (kept > 0) return true;
      free_bucket(e.ref & ~kBucket);
      return false;
    });
    cancelled = 0;
  }
};

Engine::Engine() : queue_(new Queue) {}

Engine::~Engine() { delete queue_; }

// Inlined into its two callers: schedule_at is the engine's hottest call.
[[gnu::always_inline]] inline EventId Engine::schedule(Time t, Callback&& cb, int priority,
                                                       bool background) {
  MGSIM_CHECK(t >= now_, "event scheduled in the past: at {} ps, now {} ps", t.picoseconds(),
              now_.picoseconds());
  Queue& q = *queue_;
  std::uint32_t slot = q.acquire_slot(std::move(cb), background);
  q.push(t.picoseconds(), priority, slot, next_sequence_++);
  ++q.live;
  return EventId{(static_cast<std::uint64_t>(q.slots[slot].generation) << 32) | (slot + 1ull)};
}

EventId Engine::schedule_at(Time t, Callback cb, int priority) {
  return schedule(t, std::move(cb), priority, false);
}

EventId Engine::schedule_background_at(Time t, Callback cb) {
  return schedule(t, std::move(cb), 0, true);
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
  if (s.background) --q.background;
  ++q.cancelled;
  if (q.cancelled > 1024 && q.cancelled > q.live) q.compact();
  return true;
}

bool Engine::empty() const { return queue_->live == 0; }
bool Engine::only_background() const { return queue_->live == queue_->background; }

void Engine::set_guard(std::uint64_t every, Callback check) {
  MGSIM_CHECK(every > 0, "a guard every {} events", every);
  guard_every_ = every;
  guard_next_ = events_processed_ + every;
  guard_ = std::move(check);
}

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
    const std::int64_t time = q.heap.top().time;
    if (time > t.picoseconds()) break;
    now_ = Time::from_ps(time);
    // Move the callback out and free its slot before running it: the callback may schedule
    // (reallocating the slab) and may try to cancel itself, which must then fail.
    const std::uint32_t slot = q.take_front();
    Callback cb = std::move(q.slots[slot].callback);
    if (q.slots[slot].background)
      --q.background;
    else
      last_foreground_ = now_;
    q.release_slot(slot);
    --q.live;
    ++events_processed_;
    cb();
    if (events_processed_ == guard_next_ && guard_every_ > 0) {
      guard_next_ += guard_every_;
      guard_();
    }
    if (stop_requested_) {
      stop_requested_ = false;
      return;
    }
  }
  if (!empty() && t > now_) now_ = t;
}

}  // namespace mgsim::sim
