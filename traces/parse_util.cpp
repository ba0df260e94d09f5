#include "traces/parse_util.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace mgsim::traces {

std::int64_t eval_transfer_bytes(const Expr& bytes, const Env& env, std::string_view what) {
  const std::int64_t v = bytes.eval_positive(env, what);
  if (v > kMaxTransferBytes)
    bytes.fail(fmt::format("{} is {} bytes, more than one transfer may move (1 PiB)", what, v));
  return v;
}

void count_parsed_op(const sim::Node& node, std::int64_t& parsed) {
  if (++parsed > kMaxParsedOps)
    node.fail(
        fmt::format("more than {} ops in the schedule once YAML aliases are expanded; "
                    "repeat ops with a for loop",
                    kMaxParsedOps));
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

void fail_choice(const sim::Node& n, const std::string& what, const std::string& got,
                 const std::vector<std::string>& valid) {
  const std::string near = sim::nearest_name(got, valid);
  n.fail(fmt::format("unknown {} '{}'{}", what, got,
                     near.empty() ? fmt::format(" (one of: {})", fmt::join(valid, ", "))
                                  : fmt::format("; did you mean '{}'?", near)));
}

int intern(std::vector<std::string>& names, const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return static_cast<int>(it - names.begin());
  names.push_back(name);
  return static_cast<int>(names.size()) - 1;
}

LoopRange parse_loop_range(sim::MapReader& r, const Scope& scope,
                           const std::vector<std::string>& reserved, const sim::Node& node) {
  LoopRange f;
  const sim::Node var = r.required("var");
  f.var = var.as_string();
  if (!is_identifier(f.var) || std::find(reserved.begin(), reserved.end(), f.var) != reserved.end())
    var.fail(fmt::format("'{}' cannot name a loop variable", f.var));
  if (scope.find(f.var) >= 0)
    var.fail(fmt::format("loop variable '{}' hides a name already defined here", f.var));
  if (auto over = r.optional("over")) {
    const std::string what = over->as_string();
    if (what != "ranks") fail_choice(*over, "loop domain", what, {"ranks"});
    if (r.has("from") || r.has("to")) over->fail("'over' replaces 'from' and 'to'");
    f.from = Expr::constant(0, over->location());
    f.to = Expr::parse("world", scope, over->location());
  } else {
    f.from = Expr::parse(r.required("from"), scope);
    f.to = Expr::parse(r.required("to"), scope);
  }
  f.step = Expr::constant(1, node.location());
  if (auto s = r.optional("step")) f.step = Expr::parse(*s, scope);
  return f;
}

}  // namespace mgsim::traces
