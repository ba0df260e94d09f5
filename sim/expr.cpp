#include "sim/expr.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/units.hpp"

namespace mgsim::sim {

int Scope::add(std::string name) {
  names_.push_back(std::move(name));
  return size() - 1;
}

int Scope::find(std::string_view name) const {
  // Innermost (latest) binding first, so a loop variable would win over a param of the same name.
  for (int i = size() - 1; i >= 0; --i) {
    if (names_[static_cast<std::size_t>(i)] == name) return i;
  }
  return -1;
}

// Recursive descent straight into postfix code: each rule emits its operands, then its operator.
class ExprParser {
 public:
  ExprParser(std::string_view text, const Scope& scope, Expr& out)
      : text_(text), scope_(scope), out_(out) {}

  void parse() {
    skip_space();
    if (pos_ == text_.size()) fail("empty expression");
    logic_or();
    skip_space();
    if (pos_ != text_.size()) fail(fmt::format("unexpected '{}'", text_.substr(pos_, 1)));
  }

 private:
  // Quotes the expression, or for a long one the 40 characters before the error and 20 after.
  [[noreturn]] void fail(const std::string& why) const {
    constexpr std::size_t kBefore = 40, kAfter = 20;
    std::string shown(text_);
    if (text_.size() > kBefore + kAfter + 20) {
      const std::size_t from = pos_ > kBefore ? pos_ - kBefore : 0;
      shown = std::string(from > 0 ? "..." : "") +
              std::string(text_.substr(from, pos_ - from + kAfter)) +
              (pos_ + kAfter < text_.size() ? "..." : "");
    }
    out_.fail(fmt::format("in expression '{}' at character {}: {}", shown, pos_ + 1, why));
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool eat(std::string_view token) {
    skip_space();
    if (text_.substr(pos_, token.size()) == token) {
      pos_ += token.size();
      return true;
    }
    return false;
  }

  void emit(Expr::Code c, std::int64_t arg = 0) { out_.program_.push_back({c, arg}); }

  // a || b: [a] or_jump END [b] to_bool END:   (a && b likewise with and_jump)
  void logic_or() {
    logic_and();
    while (eat("||")) short_circuit(Expr::Code::or_jump, [this] { logic_and(); });
  }

  void logic_and() {
    comparison();
    while (eat("&&")) short_circuit(Expr::Code::and_jump, [this] { comparison(); });
  }

  template <class Rhs>
  void short_circuit(Expr::Code jump, Rhs rhs) {
    const std::size_t at = out_.program_.size();
    emit(jump);
    rhs();
    emit(Expr::Code::to_bool);
    out_.program_[at].arg = static_cast<std::int64_t>(out_.program_.size());
  }

  struct Op {
    std::string_view token;
    Expr::Code code;
  };

  // One left-associative precedence level: next (op next)*. Two-character tokens come first in
  // `ops`, so "<=" is not read as "<" then "=".
  template <std::size_t N, class Next>
  void level(const Op (&ops)[N], Next next) {
    next();
    for (;;) {
      const Op* found = nullptr;
      for (const Op& op : ops) {
        if (eat(op.token)) {
          found = &op;
          break;
        }
      }
      if (found == nullptr) return;
      next();
      emit(found->code);
    }
  }

  void comparison() {
    static constexpr Op ops[] = {{"==", Expr::Code::eq}, {"!=", Expr::Code::ne}};
    level(ops, [this] { relational(); });
  }

  void relational() {
    static constexpr Op ops[] = {{"<=", Expr::Code::le},
                                 {">=", Expr::Code::ge},
                                 {"<", Expr::Code::lt},
                                 {">", Expr::Code::gt}};
    level(ops, [this] { sum(); });
  }

  void sum() {
    static constexpr Op ops[] = {{"+", Expr::Code::add}, {"-", Expr::Code::sub}};
    level(ops, [this] { product(); });
  }

  void product() {
    static constexpr Op ops[] = {
        {"*", Expr::Code::mul}, {"/", Expr::Code::div}, {"%", Expr::Code::mod}};
    level(ops, [this] { unary(); });
  }

  // Every nesting (parentheses, unary operators, min/max arguments) passes here: the depth is
  // bounded so that no input can overflow the stack of this recursive parser.
  static constexpr int kMaxDepth = 200;

  void unary() {
    if (++depth_ > kMaxDepth)
      fail(fmt::format("expression nested deeper than {} levels", kMaxDepth));
    unary_body();
    --depth_;
  }

  void unary_body() {
    if (eat("-")) {
      unary();
      emit(Expr::Code::neg);
      return;
    }
    if (eat("!")) {
      unary();
      emit(Expr::Code::logical_not);
      return;
    }
    primary();
  }

  void primary() {
    skip_space();
    if (pos_ == text_.size()) fail("expected a number, a name or '('");
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      logic_or();
      if (!eat(")")) fail("expected ')'");
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name();
    fail(fmt::format("unexpected '{}'", c));
  }

  void number() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.'))
      ++pos_;
    const std::size_t digits_end = pos_;
    while (pos_ < text_.size() && std::isalpha(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    const std::string_view literal = text_.substr(start, pos_ - start);
    if (digits_end == pos_) {
      std::int64_t v = 0;
      const auto [ptr, ec] = std::from_chars(literal.data(), literal.data() + literal.size(), v);
      if (ec != std::errc() || ptr != literal.data() + literal.size())
        fail(fmt::format("'{}' is not an integer (sizes need a unit such as B, KiB, MB)", literal));
      emit(Expr::Code::push, v);
      return;
    }
    Bytes bytes;
    std::string error;
    if (!parse_bytes(literal, bytes, error)) fail(fmt::format("bad size '{}': {}", literal, error));
    emit(Expr::Code::push, bytes.count());
  }

  void name() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    const std::string_view id = text_.substr(start, pos_ - start);
    if (id == "min" || id == "max") {
      if (!eat("(")) fail(fmt::format("expected '(' after {}", id));
      logic_or();
      if (!eat(",")) fail(fmt::format("{} takes two arguments", id));
      logic_or();
      if (!eat(")")) fail("expected ')'");
      emit(id == "min" ? Expr::Code::min : Expr::Code::max);
      return;
    }
    const int slot = scope_.find(id);
    if (slot >= 0) scope_.mark_read(slot);
    if (slot < 0) {
      std::vector<std::string> candidates(scope_.names().begin(), scope_.names().end());
      pos_ = start;
      // The nearest name if one is close, else what is defined (a few of them).
      std::string hint = did_you_mean(id, candidates);
      if (hint.empty() && candidates.empty()) {
        hint = " (defined here: nothing)";
      } else if (hint.empty()) {
        constexpr std::size_t kShown = 12;
        const std::size_t shown = std::min(candidates.size(), kShown);
        hint = fmt::format(" (defined here: {}{})",
                           fmt::join(candidates.begin(),
                                     candidates.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
                           candidates.size() > shown ? ", ..." : "");
      }
      fail(fmt::format("undefined name '{}'{}", id, hint));
    }
    emit(Expr::Code::load, slot);
  }

  std::string_view text_;
  const Scope& scope_;
  Expr& out_;
  std::size_t pos_ = 0;
  int depth_ = 0;  // unary() levels entered and not left
};

Expr Expr::parse(std::string_view text, const Scope& scope, SourceLocation where) {
  Expr e;
  e.text_ = std::string(text);
  e.where_ = std::move(where);
  ExprParser(e.text_, scope, e).parse();
  return e;
}

Expr Expr::parse(const Node& node, const Scope& scope) {
  if (!node.is_scalar()) node.fail("expected a number, a size or an expression");
  return parse(node.yaml().Scalar(), scope, node.location());
}

Expr Expr::constant(std::int64_t value, SourceLocation where) {
  Expr e;
  e.text_ = std::to_string(value);
  e.where_ = std::move(where);
  e.program_.push_back({Code::push, value});
  return e;
}

void Expr::fail(const std::string& message) const { throw ConfigError(where_, message); }

bool Expr::is_constant() const {
  return std::none_of(program_.begin(), program_.end(),
                      [](const Instr& i) { return i.code == Code::load; });
}

std::int64_t Expr::eval(const Env& env) const {
  // A constant or one variable (most values and indices): no stack.
  if (program_.size() == 1 && program_[0].code == Code::push) return program_[0].arg;
  if (program_.size() == 1 && program_[0].code == Code::load)
    return env[static_cast<std::size_t>(program_[0].arg)];
  // Postfix programs of schedule values are short; a fixed stack avoids allocation per evaluation.
  // One switch per instruction: a kernel evaluates its ops' values and conditions every time they
  // run, thousands of times per collective.
  constexpr std::size_t kMaxDepth = 64;
  std::int64_t stack[kMaxDepth];
  std::size_t sp = 0;
  const auto overflow = [this] { fail(fmt::format("integer overflow in '{}'", text_)); };
  for (std::size_t pc = 0; pc < program_.size(); ++pc) {
    const Instr& in = program_[pc];
    switch (in.code) {
      case Code::push:
      case Code::load:
        if (sp == kMaxDepth) fail(fmt::format("expression '{}' is nested too deeply", text_));
        stack[sp++] = in.code == Code::push ? in.arg : env[static_cast<std::size_t>(in.arg)];
        continue;
      case Code::neg:
        if (stack[sp - 1] == std::numeric_limits<std::int64_t>::min()) fail("integer overflow");
        stack[sp - 1] = -stack[sp - 1];
        continue;
      case Code::logical_not:
      case Code::to_bool:
        stack[sp - 1] = (stack[sp - 1] != 0) == (in.code == Code::to_bool);
        continue;
      case Code::and_jump:
      case Code::or_jump:
        if ((stack[sp - 1] != 0) == (in.code == Code::or_jump)) {
          stack[sp - 1] = in.code == Code::or_jump;
          pc = static_cast<std::size_t>(in.arg) - 1;  // the loop's ++pc lands on the target
        } else {
          --sp;
        }
        continue;
      default:
        break;
    }
    // A binary operator: pops b, replaces a by a op b.
    const std::int64_t b = stack[--sp];
    std::int64_t& a = stack[sp - 1];
    switch (in.code) {
      case Code::add:
        if (__builtin_add_overflow(a, b, &a)) overflow();
        break;
      case Code::sub:
        if (__builtin_sub_overflow(a, b, &a)) overflow();
        break;
      case Code::mul:
        if (__builtin_mul_overflow(a, b, &a)) overflow();
        break;
      case Code::div:
      case Code::mod:
        if (b == 0) fail(fmt::format("division by zero in '{}'", text_));
        if (a == std::numeric_limits<std::int64_t>::min() && b == -1) overflow();
        a = in.code == Code::div ? a / b : a % b;
        break;
      case Code::min:
        a = std::min(a, b);
        break;
      case Code::max:
        a = std::max(a, b);
        break;
      case Code::lt:
        a = a < b;
        break;
      case Code::le:
        a = a <= b;
        break;
      case Code::gt:
        a = a > b;
        break;
      case Code::ge:
        a = a >= b;
        break;
      case Code::eq:
        a = a == b;
        break;
      case Code::ne:
        a = a != b;
        break;
      default:
        break;  // the unary codes, handled above
    }
  }
  return stack[0];
}

std::int64_t Expr::eval_positive(const Env& env, std::string_view what) const {
  const std::int64_t v = eval(env);
  if (v <= 0) fail(fmt::format("{} must be positive, got {} (from '{}')", what, v, text_));
  return v;
}

}  // namespace mgsim::sim
