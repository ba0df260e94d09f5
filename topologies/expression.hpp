// Integer expressions and name patterns for topology generators.
//
// A topology file repeats vertices and links over loop variables (`repeat: {i: 8}`); counts,
// lane numbers, node indices and `where:` filters are integer expressions over the file's
// `params` and the loop variables, and names are patterns whose `{expr}` parts are replaced by
// the expression's value (`"n{n}.gpu{i}"` -> "n1.gpu3"). The language is mgsim's one expression
// language (sim/expr.hpp: C precedence, + - * / % min max, comparisons, ! && ||, size literals);
// this file only keeps the names in scope with their current values.
//
// Errors (syntax, an undefined name, division by zero, overflow) throw sim::ConfigError at the
// YAML node that holds the text, naming the offending expression.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/config.hpp"
#include "sim/expr.hpp"

namespace mgsim::topologies {

// Names visible to an expression with their values, looked up innermost (last added) first.
class Scope {
 public:
  void push(std::string name, std::int64_t value) {
    names_.add(std::move(name));
    values_.push_back(value);
  }
  void pop() {
    names_.truncate(names_.size() - 1);
    values_.pop_back();
  }
  void set_last(std::int64_t value) { values_.back() = value; }
  const std::int64_t* find(std::string_view name) const;
  const sim::Scope& names() const { return names_; }
  const sim::Env& values() const { return values_; }

 private:
  sim::Scope names_;
  sim::Env values_;
};

// Evaluates `text` as an integer expression. `where` locates errors.
std::int64_t evaluate(std::string_view text, const Scope& scope, const sim::Node& where);

// Evaluates the scalar held by `node` (a plain integer or an expression string).
std::int64_t evaluate(const sim::Node& node, const Scope& scope);

// Replaces every `{expr}` in `pattern` by the value of expr. A `{` without its `}` is an error.
std::string expand_pattern(std::string_view pattern, const Scope& scope, const sim::Node& where);

}  // namespace mgsim::topologies
