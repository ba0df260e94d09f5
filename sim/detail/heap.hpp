// A d-ary min-heap in a vector, optionally indexed: the one heap behind the engine's event queue
// (sim/engine.cpp) and the fluid solver's water-filling (sim/detail/fluid_solve.cpp).
//
// Contract:
//   - `Less` is a strict weak order; top() is an element no other is Less than. With a total
//     order (the engine's (time, priority, sequence), the solver's (share, index)), the order in
//     which elements are popped depends only on the elements, not on the arity or the history.
//   - Indexed use: `OnMove(x, i)` is called each time element x is placed at index i (push, pop,
//     update, remove, retain), so a caller can keep x -> i and later update(i) or remove(i) any
//     element; with the default NoIndex it compiles to nothing.
//   - The comparison may read state outside the heap (the solver's shares); after changing an
//     element's key the caller calls update(i) for it before any other operation.
//   - Sifts move a hole rather than swapping, so each level costs one move, not three.
//
// Not thread-safe; T should be small and trivially copyable (it is moved on every sift).
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

namespace mgsim::sim::detail {

struct NoIndex {
  template <class T>
  void operator()(const T&, std::size_t) const {}
};

template <class T, std::size_t Arity, class Less, class OnMove = NoIndex>
class Heap {
  static_assert(Arity >= 2);

 public:
  explicit Heap(Less less = {}, OnMove on_move = {})
      : less_(std::move(less)), on_move_(std::move(on_move)) {}

  bool empty() const { return items_.empty(); }
  std::size_t size() const { return items_.size(); }
  // REQUIRES: !empty().
  const T& top() const { return items_.front(); }
  // In heap order, not sorted.
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

  // Forgets every element without telling OnMove.
  void clear() { items_.clear(); }

  void push(const T& x) {
    items_.push_back(x);
    sift_up(items_.size() - 1, x);
  }

  // Adds x without ordering; call heapify() before any other operation. n appends and one
  // heapify cost O(n), against O(n log n) for n pushes.
  void append(const T& x) {
    items_.push_back(x);
    on_move_(x, items_.size() - 1);
  }
  void heapify() {
    if (items_.size() < 2) return;
    for (std::size_t i = (items_.size() - 2) / Arity + 1; i-- > 0;) sift_down(i, items_[i]);
  }

  // REQUIRES: !empty().
  void pop() {
    const T last = items_.back();
    items_.pop_back();
    if (!items_.empty()) sift_down(0, last);
  }

  // Removes the element at index i. REQUIRES: i < size().
  void remove(std::size_t i) {
    const T last = items_.back();
    items_.pop_back();
    if (i < items_.size()) update_with(i, last);
  }

  // Restores the order after the key of the element at index i changed, either way.
  void update(std::size_t i) { update_with(i, items_[i]); }

  // Keeps the elements for which keep(x) is true (it may do the caller's bookkeeping for the
  // others), then heapifies: O(n).
  template <class Keep>
  void retain(Keep keep) {
    std::size_t out = 0;
    for (const T& x : items_) {
      if (keep(x)) items_[out++] = x;
    }
    items_.resize(out);
    if constexpr (!std::is_same_v<OnMove, NoIndex>) {
      for (std::size_t i = 0; i < out; ++i) on_move_(items_[i], i);
    }
    heapify();
  }

 private:
  void place(std::size_t i, const T& x) {
    items_[i] = x;
    on_move_(x, i);
  }

  void update_with(std::size_t i, const T& x) {
    if (sift_up(i, x) == i) sift_down(i, x);
  }

  // Moves x up from the hole at i; returns where it landed.
  std::size_t sift_up(std::size_t i, const T& x) {
    const T e = x;  // x may be an element that the sift overwrites
    while (i > 0) {
      const std::size_t parent = (i - 1) / Arity;
      if (!less_(e, items_[parent])) break;
      place(i, items_[parent]);
      i = parent;
    }
    place(i, e);
    return i;
  }

  // Moves x down from the hole at i.
  void sift_down(std::size_t i, const T& x) {
    const T e = x;
    const std::size_t n = items_.size();
    for (;;) {
      const std::size_t first = i * Arity + 1;
      if (first >= n) break;
      std::size_t best = first;
      if constexpr (Arity == 2) {  // one compare, no loop (measured: the solver's heap is binary)
        if (first + 1 < n && less_(items_[first + 1], items_[first])) best = first + 1;
      } else {
        const std::size_t last = first + Arity < n ? first + Arity : n;
        for (std::size_t c = first + 1; c < last; ++c) {
          if (less_(items_[c], items_[best])) best = c;
        }
      }
      if (!less_(items_[best], e)) break;
      place(i, items_[best]);
      i = best;
    }
    place(i, e);
  }

  std::vector<T> items_;
  [[no_unique_address]] Less less_;
  [[no_unique_address]] OnMove on_move_;
};

}  // namespace mgsim::sim::detail
