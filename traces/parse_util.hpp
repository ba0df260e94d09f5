// Pieces of schedule parsing shared by host streams (schedule.cpp) and kernels
// (kernel_schedule.cpp): identifiers, a closed set of choices, and the header of a `for` loop.
#pragma once

#include <string>
#include <vector>

#include "sim/config.hpp"
#include "traces/expr.hpp"

namespace mgsim::traces {

// A C-like identifier: a letter or '_', then letters, digits or '_'.
bool is_identifier(const std::string& s);

// Fails at `n`: "unknown <what> '<got>'" with the nearest valid choice, or the list of them.
[[noreturn]] void fail_choice(const sim::Node& n, const std::string& what, const std::string& got,
                              const std::vector<std::string>& valid);

// The index of `name` in `names`, appending it if absent.
int intern(std::vector<std::string>& names, const std::string& name);

// A `for` loop's range: {var, from, to, step} or {var, over: ranks} (0 .. world), iterating
// [from, to) by step.
struct LoopRange {
  int slot = 0;  // the loop variable's slot in the Env
  std::string var;
  Expr from, to, step;
};

// Reads var/from/to/step/over from `r` (the caller reads `ops` and calls finish()). `reserved`
// lists names that cannot be loop variables; a name already in `scope` cannot be hidden either.
// The variable's slot is not added yet: the caller adds it before parsing the body.
LoopRange parse_loop_range(sim::MapReader& r, const Scope& scope,
                           const std::vector<std::string>& reserved, const sim::Node& node);

}  // namespace mgsim::traces
