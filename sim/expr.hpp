// The one small, safe integer expression language of mgsim's inputs: schedule values ("SIZE /
// world", "(rank + 1) % world", "min(CHUNK, 4MiB)") and topology generators ("n * 8 + i",
// "i != j && i / 4 == j / 4").
//
// Grammar (C precedence, left-associative):
//   expr       := and_expr ("||" and_expr)*                            logic gives 0 or 1 and
//   and_expr   := equality ("&&" equality)*                            short-circuits, as in C
//   equality   := relation (("==" | "!=") relation)*                  comparisons give 0 or 1
//   relation   := sum (("<" | "<=" | ">" | ">=") sum)*
//   sum        := product (("+" | "-") product)*
//   product    := unary (("*" | "/" | "%") unary)*                  "/", "%" truncate toward 0
//   unary      := "-" unary | "!" unary | primary
//   primary    := INTEGER [SIZE_UNIT] | NAME | ("min" | "max") "(" expr "," expr ")" | "(" expr ")"
// A size literal ("4MiB", "64KB", "1.5GiB") is its exact byte count (sim::parse_bytes), so every
// value is a plain int64; there are no other functions, no strings, no floating point.
//
// Names resolve at parse time against a Scope (a schedule's params, the bound names `rank` and
// `world`, loop variables; a topology's params and repeat variables) to slots of an Env; an unknown
// name is an error then, not when the schedule runs. Evaluation errors (division by zero, int64
// overflow) name the YAML value's file:line:column.
//
// Contract: parse() and eval() throw sim::ConfigError on bad input and never crash; an Expr is
// immutable once built and cheap to evaluate (a flat postfix program, no allocation).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config.hpp"

namespace mgsim::sim {

// The names visible at one point of a schedule, each bound to a slot of an Env.
class Scope {
 public:
  // Adds `name` at the next free slot and returns the slot; shadowing an existing name is the
  // caller's decision to forbid (the schedule parser does).
  int add(std::string name);
  // The slot of `name`, or -1.
  int find(std::string_view name) const;
  std::span<const std::string> names() const { return names_; }
  int size() const { return static_cast<int>(names_.size()); }
  // Drops the most recently added names down to `size` (leaving a loop body).
  void truncate(int size) { names_.resize(static_cast<std::size_t>(size)); }
  // Whether an expression parsed in this scope (or the copy it was made from, before the copy)
  // read `slot`: a schedule whose expressions never read `rank` runs one program on every rank.
  bool read(int slot) const {
    return static_cast<std::size_t>(slot) < read_.size() && read_[static_cast<std::size_t>(slot)];
  }
  void mark_read(int slot) const {
    if (read_.size() <= static_cast<std::size_t>(slot))
      read_.resize(static_cast<std::size_t>(slot) + 1, false);
    read_[static_cast<std::size_t>(slot)] = true;
  }

 private:
  std::vector<std::string> names_;
  mutable std::vector<bool> read_;  // by slot
};

// Values of the slots of a Scope (index = slot).
using Env = std::vector<std::int64_t>;

class Expr {
 public:
  Expr() = default;
  // Parses `text`; `where` is the YAML value it came from (for messages).
  static Expr parse(std::string_view text, const Scope& scope, SourceLocation where);
  // Parses a YAML scalar (a number, a size or an expression string).
  static Expr parse(const Node& node, const Scope& scope);
  static Expr constant(std::int64_t value, SourceLocation where);

  std::int64_t eval(const Env& env) const;
  // eval() that also requires the value to be > 0 (`what` names it in the message).
  std::int64_t eval_positive(const Env& env, std::string_view what) const;
  // The constant value if the expression uses no names.
  bool is_constant() const;
  const std::string& text() const { return text_; }
  const SourceLocation& where() const { return where_; }
  [[noreturn]] void fail(const std::string& message) const;

  enum class Code : std::uint8_t {
    push,
    load,
    neg,
    logical_not,
    and_jump,  // top == 0: it becomes the result (0), jump to arg; else pop it and go on
    or_jump,   // top != 0: the result is 1, jump to arg; else pop it and go on
    to_bool,   // top = (top != 0)
    add,
    sub,
    mul,
    div,
    mod,
    min,
    max,
    lt,
    le,
    gt,
    ge,
    eq,
    ne
  };
  struct Instr {
    Code code;
    std::int64_t arg;  // the literal (push), slot (load) or target instruction (jumps)
  };

 private:
  std::vector<Instr> program_;
  std::string text_;
  SourceLocation where_;
  friend class ExprParser;
};

}  // namespace mgsim::sim
