// The one interpreter loop of the schedule language, for host streams and kernel roles alike:
// walks an op list lazily (a `for` op's range and an op's `if` are evaluated when reached, nothing
// is expanded up front) and charges every op it passes to the run's one op budget.
//
// An op type Op has `where` (sim::SourceLocation) and `condition` (std::optional<Expr>), and
// loop_of(op) returns its `for` body holder (a LoopRange with `std::vector<Op> body`), or nullptr
// for any other op. Loop variables live in the caller's Env, in the slot the parser gave them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sim/config.hpp"
#include "traces/parse_util.hpp"

namespace mgsim::traces {

// How many ops one run may execute, host ops and kernel-role ops together. The default is far
// above any real schedule and low enough that a runaway loop of zero-time ops ends with a clear
// error (naming the op) instead of looking like a hang.
class OpBudget {
 public:
  static constexpr std::int64_t kDefaultLimit = 200'000'000;
  explicit OpBudget(std::int64_t limit = kDefaultLimit) : limit_(limit) {}

  // Counts `n` ops (a launch counts its CTAs); a sim::LimitError at `where` once the limit is
  // passed. REQUIRES: n >= 0.
  void spend(const sim::SourceLocation& where, std::int64_t n = 1) {
    if (n > limit_ - spent_)
      throw sim::LimitError(where, fmt::format("the schedule executes more than {} ops; is a "
                                               "loop bound wrong? (loop iterations, ops and "
                                               "CTAs count; --max-ops raises the limit)",
                                               limit_));
    spent_ += n;
  }
  std::int64_t spent() const { return spent_; }

 private:
  std::int64_t limit_;
  std::int64_t spent_ = 0;
};

template <class Op>
class Walker {
 public:
  Walker() = default;
  explicit Walker(const std::vector<Op>& ops) {
    frames_.push_back({&ops, 0, nullptr, nullptr, 0, 1});
  }

  // The next op to run, or nullptr when the list is done. On the way it iterates and leaves
  // finished loop bodies, skips ops whose condition is 0, and enters `for` ops (an empty range
  // is skipped). Every op passed whose condition holds, `for` ops included, is counted in ops()
  // and charged to `budget`; so is every further iteration of a loop (to budget only), so that
  // a loop whose body runs nothing is bounded too.
  const Op* next(Env& env, OpBudget& budget) {
    while (!frames_.empty()) {
      Frame& f = frames_.back();
      if (f.pc == f.ops->size()) {
        if (f.loop) {
          std::int64_t& v = env[static_cast<std::size_t>(f.loop->slot)];
          v += f.step;
          if (v < f.to) {
            budget.spend(*f.where);  // an iteration costs one op even when its body runs none
            f.pc = 0;
            continue;
          }
        }
        frames_.pop_back();
        continue;
      }
      const Op& op = (*f.ops)[f.pc++];
      if (op.condition && op.condition->eval(env) == 0) continue;
      budget.spend(op.where);
      ++ops_;
      const auto* loop = loop_of(op);
      if (!loop) return &op;
      const std::int64_t from = loop->from.eval(env);
      const std::int64_t to = loop->to.eval(env);
      const std::int64_t step = loop->step.eval_positive(env, "a loop step");
      if (from < to) {
        env[static_cast<std::size_t>(loop->slot)] = from;
        frames_.push_back({&loop->body, 0, loop, &op.where, to, step});
      }
    }
    return nullptr;
  }

  bool done() const { return frames_.empty(); }
  // Ops passed so far (see next()).
  std::int64_t ops() const { return ops_; }

 private:
  using Loop = std::remove_pointer_t<decltype(loop_of(std::declval<const Op&>()))>;
  struct Frame {
    const std::vector<Op>* ops = nullptr;
    std::size_t pc = 0;
    const Loop* loop = nullptr;                  // null for the outermost list
    const sim::SourceLocation* where = nullptr;  // the `for` op's
    std::int64_t to = 0, step = 1;
  };
  std::vector<Frame> frames_;
  std::int64_t ops_ = 0;
};

}  // namespace mgsim::traces
