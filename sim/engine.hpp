// The discrete-event engine: a clock and a queue of callbacks.
//
// Events are ordered by (time, priority, sequence number). The sequence number is assigned at
// scheduling, so events at the same time and priority run in the order they were scheduled and
// every run of the same input is identical, bit for bit. Lower priority values run first.
//
// Thread-safety: none; one Engine per simulation, many Engines per process are fine (no globals).
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>

#include "sim/units.hpp"

namespace mgsim::sim {

class TraceSink;

// The simulation would pass the clock (2^63 ps, about 106 days of simulated time): not a bug, but
// input that asks for more time than the clock holds (a petabyte over a slow link). The layer
// that knows the input turns it into an error that names it.
class ClockOverflow : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct EventId {
  std::uint64_t value = 0;  // 0 is never a valid event
  auto operator<=>(const EventId&) const = default;
};

class Engine {
 public:
  using Callback = std::function<void()>;

  Engine();
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  Time now() const { return now_; }

  // REQUIRES: t >= now().
  EventId schedule_at(Time t, Callback cb, int priority = 0);
  // REQUIRES: d >= 0.
  EventId schedule_in(Duration d, Callback cb, int priority = 0);
  // Cancels a pending event; returns false if it already ran, was cancelled, or never existed.
  bool cancel(EventId id);

  // Runs events until the queue is empty. Returns the time of the last event.
  Time run();
  // Runs events with time <= t, then sets now() to t if the queue still holds later events.
  void run_until(Time t);
  // Stops run() after the event in progress (for deadlock reports, limits).
  void stop() { stop_requested_ = true; }
  // Calls `check` after every `every` events (a run's limits: it throws to end the run).
  // REQUIRES: every > 0.
  void set_guard(std::uint64_t every, Callback check);

  // A background event does not keep a run going by itself (a power governor's periodic step):
  // a run whose pending events are all background ones has nothing left to happen, so their
  // owners stop rescheduling them (a deadlock between GPUs that each have a governor ends, and
  // says so). REQUIRES: t >= now().
  EventId schedule_background_at(Time t, Callback cb);
  bool only_background() const;
  // When the last event that was not a background one ran (what a deadlocked run reports).
  Time last_foreground() const { return last_foreground_; }

  bool empty() const;
  std::uint64_t events_processed() const { return events_processed_; }

  // The trace sink, or nullptr when tracing is off (the default: tracing then costs nothing).
  TraceSink* trace() const { return trace_; }
  void set_trace(TraceSink* sink) { trace_ = sink; }

 private:
  struct Queue;                                                            // defined in engine.cpp
  EventId schedule(Time t, Callback&& cb, int priority, bool background);  // by reference: one
                                                                           // move, into the slot
  Queue* queue_;
  Time now_ = Time::zero();
  std::uint64_t next_sequence_ = 1;
  std::uint64_t events_processed_ = 0;
  bool stop_requested_ = false;
  Time last_foreground_ = Time::zero();
  std::uint64_t guard_every_ = 0;  // 0: no guard
  std::uint64_t guard_next_ = 0;
  Callback guard_;
  TraceSink* trace_ = nullptr;
};

}  // namespace mgsim::sim
