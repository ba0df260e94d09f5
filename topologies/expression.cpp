#include "topologies/expression.hpp"

#include <fmt/format.h>

namespace mgsim::topologies {

const std::int64_t* Scope::find(std::string_view name) const {
  const int slot = names_.find(name);
  return slot < 0 ? nullptr : &values_[static_cast<std::size_t>(slot)];
}

std::int64_t evaluate(std::string_view text, const Scope& scope, const sim::Node& where) {
  return sim::Expr::parse(text, scope.names(), where.location()).eval(scope.values());
}

std::int64_t evaluate(const sim::Node& node, const Scope& scope) {
  if (!node.is_scalar()) node.fail("expected an integer or an integer expression");
  return evaluate(node.yaml().Scalar(), scope, node);
}

std::string expand_pattern(std::string_view pattern, const Scope& scope, const sim::Node& where) {
  std::string out;
  out.reserve(pattern.size() + 8);
  std::size_t i = 0;
  while (i < pattern.size()) {
    const char c = pattern[i];
    if (c == '}') where.fail(fmt::format("in name pattern '{}': '}}' without '{{'", pattern));
    if (c != '{') {
      out += c;
      ++i;
      continue;
    }
    const std::size_t close = pattern.find('}', i);
    if (close == std::string_view::npos)
      where.fail(fmt::format("in name pattern '{}': '{{' without '}}'", pattern));
    out += std::to_string(evaluate(pattern.substr(i + 1, close - i - 1), scope, where));
    i = close + 1;
  }
  return out;
}

}  // namespace mgsim::topologies
