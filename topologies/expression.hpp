// Integer expressions and name patterns for topology generators.
//
// A topology file repeats vertices and links over loop variables (`repeat: {i: 8}`); counts,
// lane numbers, node indices and `where:` filters are integer expressions over the file's
// `params` and the loop variables, and names are patterns whose `{expr}` parts are replaced by
// the expression's value (`"n{n}.gpu{i}"` -> "n1.gpu3").
//
// Grammar (C precedence): integers, names, ( ), unary - and !, * / %, + -, < <= > >=, == !=,
// &&, ||, and the functions min(a, b) and max(a, b). Comparisons and logic give 0 or 1.
// Division truncates toward zero like C++. Nothing else: no floats, no strings, no side effects.
//
// Errors (syntax, an undefined name, division by zero, overflow) throw sim::ConfigError at the
// YAML node that holds the text, naming the offending expression.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/config.hpp"

namespace mgsim::topologies {

// Names visible to an expression, looked up innermost (last added) first.
class Scope {
 public:
  void push(std::string name, std::int64_t value) { vars_.emplace_back(std::move(name), value); }
  void pop() { vars_.pop_back(); }
  void set_last(std::int64_t value) { vars_.back().second = value; }
  const std::int64_t* find(std::string_view name) const;
  std::vector<std::string> names() const;

 private:
  std::vector<std::pair<std::string, std::int64_t>> vars_;
};

// Evaluates `text` as an integer expression. `where` locates errors.
std::int64_t evaluate(std::string_view text, const Scope& scope, const sim::Node& where);

// Evaluates the scalar held by `node` (a plain integer or an expression string).
std::int64_t evaluate(const sim::Node& node, const Scope& scope);

// Replaces every `{expr}` in `pattern` by the value of expr. A `{` without its `}` is an error.
std::string expand_pattern(std::string_view pattern, const Scope& scope, const sim::Node& where);

}  // namespace mgsim::topologies
