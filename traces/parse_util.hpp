// Pieces of schedule parsing shared by host streams (schedule.cpp) and kernels
// (kernel_schedule.cpp): identifiers, a closed set of choices, and the header of a `for` loop.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sim/config.hpp"
#include "sim/expr.hpp"

namespace mgsim::traces {

// The expression language (sim/expr.hpp) under the names the schedule code uses.
using sim::Env;
using sim::Expr;
using sim::Scope;

// A C-like identifier: a letter or '_', then letters, digits or '_'.
bool is_identifier(const std::string& s);

// The bytes of one transfer (a memcpy, a collective, a kernel's load or store): positive and
// at most kMaxTransferBytes (1 PiB: at 10 GB/s, 31 hours of the simulator's 106-day clock), so
// no transfer runs the clock over. A ConfigError at the expression otherwise.
inline constexpr std::int64_t kMaxTransferBytes = std::int64_t{1} << 50;
std::int64_t eval_transfer_bytes(const Expr& bytes, const Env& env, std::string_view what);

// Ops one parser reads, counted in `parsed`, at most kMaxParsedOps: YAML aliases are parsed once
// per use, so a small file could otherwise expand into billions of ops. A ConfigError at `node`
// past the limit (loops, not copies, repeat ops).
inline constexpr std::int64_t kMaxParsedOps = 100'000;
void count_parsed_op(const sim::Node& node, std::int64_t& parsed);

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

// A whole `for` op of either parser (For is a LoopRange with a `body`): the range, then the body,
// parsed by `parse_body(ops)` with the loop variable bound to the next slot of `scope`, which is
// dropped again after; `max_slots` grows to cover the slot.
template <class For, class ParseBody>
For parse_for(const sim::Node& node, Scope& scope, const std::vector<std::string>& reserved,
              int& max_slots, ParseBody parse_body) {
  sim::MapReader r(node, "for");
  For f{parse_loop_range(r, scope, reserved, node), {}};
  const sim::Node ops = r.required("ops");
  r.finish();
  const int outer = scope.size();
  f.slot = scope.add(f.var);
  max_slots = std::max(max_slots, scope.size());
  f.body = parse_body(ops);
  scope.truncate(outer);
  return f;
}

// "load, store, ..." from the keys of `kinds`, in order.
template <typename Kind, std::size_t N>
std::string op_kind_list(const std::pair<const char*, Kind> (&kinds)[N]) {
  std::string out;
  for (const auto& [key, kind] : kinds) out += (out.empty() ? "" : ", ") + std::string(key);
  return out;
}

// An op is a mapping holding exactly one of the keys of `kinds` (plus modifiers such as `if`).
// Returns that key's kind and value, failing if it holds two; returns nullopt if it holds none,
// so that the caller can first report an unknown key (with its suggestion) by finish(), then
// call fail_no_op_kind(). `an_op` names the op in messages ("an op", "a kernel op").
template <typename Kind, std::size_t N>
std::optional<std::pair<Kind, sim::Node>> read_op_kind(
    sim::MapReader& r, const std::pair<const char*, Kind> (&kinds)[N], const std::string& an_op) {
  std::optional<std::pair<Kind, sim::Node>> found;
  for (const auto& [key, kind] : kinds) {
    if (auto n = r.optional(key)) {
      if (found) n->fail(fmt::format("{} holds exactly one of {}", an_op, op_kind_list(kinds)));
      found.emplace(kind, *n);
    }
  }
  return found;
}

template <typename Kind, std::size_t N>
[[noreturn]] void fail_no_op_kind(const sim::Node& node,
                                  const std::pair<const char*, Kind> (&kinds)[N],
                                  const std::string& an_op) {
  node.fail(fmt::format("{} needs one of {}", an_op, op_kind_list(kinds)));
}

}  // namespace mgsim::traces
