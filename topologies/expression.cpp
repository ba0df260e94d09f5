#include "topologies/expression.hpp"

#include <cctype>
#include <limits>

#include <fmt/format.h>

namespace mgsim::topologies {

const std::int64_t* Scope::find(std::string_view name) const {
  for (auto it = vars_.rbegin(); it != vars_.rend(); ++it) {
    if (it->first == name) return &it->second;
  }
  return nullptr;
}

std::vector<std::string> Scope::names() const {
  std::vector<std::string> out;
  for (const auto& [name, _] : vars_) out.push_back(name);
  return out;
}

namespace {

// Recursive descent over the text; every value is checked for overflow so that a huge count
// becomes a message, not undefined behaviour.
class Parser {
 public:
  Parser(std::string_view text, const Scope& scope, const sim::Node& where)
      : text_(text), scope_(scope), where_(where) {}

  std::int64_t parse() {
    const std::int64_t v = parse_or();
    skip_space();
    if (pos_ != text_.size()) fail(fmt::format("unexpected '{}'", text_.substr(pos_, 1)));
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    where_.fail(fmt::format("in expression '{}' at character {}: {}", text_, pos_ + 1, why));
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool accept(std::string_view op) {
    skip_space();
    if (text_.substr(pos_, op.size()) != op) return false;
    // "<" must not eat the first half of "<=", nor "!" of "!=".
    if (op.size() == 1 && (op == "<" || op == ">" || op == "!" || op == "=") &&
        pos_ + 1 < text_.size() && text_[pos_ + 1] == '=')
      return false;
    pos_ += op.size();
    return true;
  }

  std::int64_t checked(sim::Int128 v) const {
    if (v > std::numeric_limits<std::int64_t>::max() ||
        v < std::numeric_limits<std::int64_t>::min())
      fail("integer overflow");
    return static_cast<std::int64_t>(v);
  }

  std::int64_t parse_or() {
    std::int64_t v = parse_and();
    while (accept("||")) {
      const std::int64_t r = parse_and();
      v = (v != 0 || r != 0) ? 1 : 0;
    }
    return v;
  }

  std::int64_t parse_and() {
    std::int64_t v = parse_equality();
    while (accept("&&")) {
      const std::int64_t r = parse_equality();
      v = (v != 0 && r != 0) ? 1 : 0;
    }
    return v;
  }

  std::int64_t parse_equality() {
    std::int64_t v = parse_relational();
    for (;;) {
      if (accept("=="))
        v = v == parse_relational();
      else if (accept("!="))
        v = v != parse_relational();
      else
        return v;
    }
  }

  std::int64_t parse_relational() {
    std::int64_t v = parse_additive();
    for (;;) {
      if (accept("<="))
        v = v <= parse_additive();
      else if (accept(">="))
        v = v >= parse_additive();
      else if (accept("<"))
        v = v < parse_additive();
      else if (accept(">"))
        v = v > parse_additive();
      else
        return v;
    }
  }

  std::int64_t parse_additive() {
    std::int64_t v = parse_multiplicative();
    for (;;) {
      if (accept("+"))
        v = checked(sim::Int128{v} + parse_multiplicative());
      else if (accept("-"))
        v = checked(sim::Int128{v} - parse_multiplicative());
      else
        return v;
    }
  }

  std::int64_t parse_multiplicative() {
    std::int64_t v = parse_unary();
    for (;;) {
      const bool mul = accept("*");
      const bool div = !mul && accept("/");
      const bool mod = !mul && !div && accept("%");
      if (!mul && !div && !mod) return v;
      const std::size_t at = pos_;
      const std::int64_t r = parse_unary();
      if (mul) {
        v = checked(sim::Int128{v} * r);
        continue;
      }
      if (r == 0) {
        pos_ = at;
        fail("division by zero");
      }
      v = checked(div ? sim::Int128{v} / r : sim::Int128{v} % r);
    }
  }

  std::int64_t parse_unary() {
    if (accept("-")) return checked(-sim::Int128{parse_unary()});
    if (accept("!")) return parse_unary() == 0 ? 1 : 0;
    return parse_primary();
  }

  std::int64_t parse_primary() {
    skip_space();
    if (pos_ >= text_.size()) fail("expected a number, a name or '('");
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      const std::int64_t v = parse_or();
      if (!accept(")")) fail("expected ')'");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      sim::Int128 v = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        v = v * 10 + (text_[pos_++] - '0');
        checked(v);
      }
      return static_cast<std::int64_t>(v);
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      const std::string_view name = text_.substr(start, pos_ - start);
      if (name == "min" || name == "max") return parse_call(name);
      if (const std::int64_t* v = scope_.find(name)) return *v;
      pos_ = start;
      const std::vector<std::string> known = scope_.names();
      const std::string near = sim::nearest_name(name, known);
      fail(fmt::format("undefined name '{}'{} (defined here: {})", name,
                       near.empty() ? "" : fmt::format("; did you mean '{}'?", near),
                       known.empty() ? "nothing" : fmt::format("{}", fmt::join(known, ", "))));
    }
    fail(fmt::format("unexpected '{}'", c));
  }

  std::int64_t parse_call(std::string_view name) {
    if (!accept("(")) fail(fmt::format("expected '(' after {}", name));
    const std::int64_t a = parse_or();
    if (!accept(",")) fail(fmt::format("{} takes two arguments", name));
    const std::int64_t b = parse_or();
    if (!accept(")")) fail("expected ')'");
    return name == "min" ? std::min(a, b) : std::max(a, b);
  }

  std::string_view text_;
  const Scope& scope_;
  const sim::Node& where_;
  std::size_t pos_ = 0;
};

}  // namespace

std::int64_t evaluate(std::string_view text, const Scope& scope, const sim::Node& where) {
  return Parser(text, scope, where).parse();
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
