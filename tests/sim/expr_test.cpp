#include "sim/expr.hpp"

#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include "tests/support/config_error.hpp"

using mgsim::sim::ConfigError;
using mgsim::sim::Env;
using mgsim::sim::Expr;
using mgsim::sim::Scope;

namespace {
using mgsim::testing::error_of;

std::int64_t eval(const char* text, const Scope& scope = {}, const Env& env = {}) {
  return Expr::parse(text, scope, {"t.yaml", 3, 7}).eval(env);
}
}  // namespace

TEST_CASE("arithmetic follows the usual precedence and truncates toward zero") {
  // 2 + 3*4 = 14; (2+3)*4 = 20; 7/2 = 3 and -7/2 = -3 (C++ truncation); -7 % 3 = -1.
  CHECK(eval("2 + 3 * 4") == 14);
  CHECK(eval("(2 + 3) * 4") == 20);
  CHECK(eval("7 / 2") == 3);
  CHECK(eval("-7 / 2") == -3);
  CHECK(eval("-7 % 3") == -1);
  CHECK(eval("10 - 4 - 3") == 3);  // left-associative: (10-4)-3, not 10-(4-3)=9
  CHECK(eval("min(3, 9) + max(3, 9)") == 12);
  CHECK(eval("2 < 3") == 1);
  CHECK(eval("2 >= 3") == 0);
  CHECK(eval("1 + 1 == 2") == 1);  // comparison binds looser than +
}

TEST_CASE("logic: ! && || give 0 or 1, with C precedence, and short-circuit") {
  CHECK(eval("!0") == 1);
  CHECK(eval("!7") == 0);
  CHECK(eval("!(2 != 2)") == 1);
  CHECK(eval("3 && 4") == 1);  // the result is 0 or 1, not the last operand
  CHECK(eval("0 || 5") == 1);
  CHECK(eval("0 && 1 || 1") == 1);  // && binds tighter: (0 && 1) || 1
  CHECK(eval("1 || 0 && 0") == 1);  // 1 || (0 && 0)
  CHECK(eval("2 < 3 == 1") == 1);   // relational binds tighter than equality: (2 < 3) == 1
  CHECK(eval("1 < 2 < 3") == 1);    // left to right: (1 < 2) < 3
  CHECK(eval("min(0 || 3, 5)") == 1);
  // The right side is not evaluated once the left decides: no division by zero here.
  Scope scope;
  scope.add("x");
  CHECK(eval("x != 0 && 10 / x > 1", scope, Env{0}) == 0);
  CHECK(eval("x == 0 || 10 / x > 1", scope, Env{0}) == 1);
  CHECK_THROWS_AS(eval("x == 1 || 10 / x > 1", scope, Env{0}), ConfigError);
  CHECK_THROWS_AS(eval("1 &"), ConfigError);
  CHECK_THROWS_AS(eval("1 ||"), ConfigError);
}

TEST_CASE("two names compared, or a name against a number, give 0 or 1 by each operator") {
  // The shape of most loop conditions (`p != rank`); an arithmetic operator between two names is
  // checked (overflow is an error).
  Scope scope;
  scope.add("p");
  scope.add("rank");
  const Env two_three{2, 3};
  const Env three_three{3, 3};
  CHECK(eval("p != rank", scope, two_three) == 1);
  CHECK(eval("p != rank", scope, three_three) == 0);
  CHECK(eval("p == rank", scope, three_three) == 1);
  CHECK(eval("p < rank", scope, two_three) == 1);
  CHECK(eval("p <= rank", scope, three_three) == 1);
  CHECK(eval("p > rank", scope, two_three) == 0);
  CHECK(eval("p >= rank", scope, two_three) == 0);
  CHECK(eval("p == 2", scope, two_three) == 1);
  CHECK(eval("4 > rank", scope, two_three) == 1);
  CHECK(eval("p", scope, two_three) == 2);
  CHECK(eval("p - rank", scope, two_three) == -1);
  CHECK(eval("min(p, rank)", scope, two_three) == 2);
  const Env huge{INT64_MAX, 1};
  CHECK(error_of([&] { eval("p + rank", scope, huge); }).find("integer overflow") !=
        std::string::npos);
}

TEST_CASE("size literals are exact byte counts") {
  // 4MiB = 4 * 2^20 = 4194304; 64KB = 64 * 1000 = 64000; 1.5GiB = 1.5 * 2^30 = 1610612736.
  CHECK(eval("4MiB") == 4194304);
  CHECK(eval("64KB") == 64000);
  CHECK(eval("1.5GiB") == 1610612736);
  CHECK(eval("1GiB / 8") == 134217728);
}

TEST_CASE("names resolve to slots of the environment") {
  Scope scope;
  scope.add("SIZE");
  scope.add("rank");
  scope.add("world");
  const Env env = {1024, 5, 8};
  // (rank + 1) % world = 6 % 8 = 6; SIZE / world = 1024 / 8 = 128.
  CHECK(eval("(rank + 1) % world", scope, env) == 6);
  CHECK(eval("SIZE / world", scope, env) == 128);
  CHECK(eval("(rank + 3) % world", scope, env) == 0);  // 8 % 8
}

TEST_CASE("errors name the YAML value's position and never crash") {
  Scope scope;
  scope.add("SIZE");
  CHECK(error_of([&] { eval("SIZ * 2", scope, {1}); }) ==
        "t.yaml:3:7: error: in expression 'SIZ * 2' at character 1: undefined name 'SIZ'; did you "
        "mean 'SIZE'?");
  CHECK(error_of([&] { eval("SIZE / (SIZE - 1)", scope, {1}); }) ==
        "t.yaml:3:7: error: division by zero in 'SIZE / (SIZE - 1)'");
  CHECK(error_of([&] { eval("1 % 0"); }).find("division by zero") != std::string::npos);
  CHECK(error_of([&] { eval("2 +"); }).find("expected a number, a name or '('") !=
        std::string::npos);
  CHECK(error_of([&] { eval("(2"); }).find("expected ')'") != std::string::npos);
  CHECK(error_of([&] { eval("2 3"); }).find("unexpected '3'") != std::string::npos);
  CHECK(error_of([&] { eval("4MiBs"); }).find("bad size '4MiBs'") != std::string::npos);
  CHECK(error_of([&] { eval("1.5"); }).find("is not an integer") != std::string::npos);
  CHECK(error_of([&] { eval("pow(2, 3)"); }).find("undefined name 'pow'") != std::string::npos);
  CHECK(error_of([&] { eval("min(2)"); }).find("min takes two arguments") != std::string::npos);
  CHECK(error_of([&] { eval("9223372036854775807 + 1"); }).find("integer overflow") !=
        std::string::npos);
  CHECK(error_of([&] { eval(""); }).find("empty expression") != std::string::npos);
  // Nesting is bounded (a recursive parser; 20,000 parentheses used to overflow the stack): 199
  // parentheses around a number are 200 levels, one more is an error quoting only the text
  // around it.
  const std::string deep = std::string(199, '(') + "7" + std::string(199, ')');
  CHECK(eval(deep.c_str()) == 7);
  const std::string deeper = "(" + deep + ")";
  // The error quotes the 40 characters before the failing position (200: the '7') and 20 from it.
  CHECK(error_of([&] { eval(deeper.c_str()); }) ==
        "t.yaml:3:7: error: in expression '..." + std::string(40, '(') + "7" +
            std::string(19, ')') +
            "...' at character 201: expression nested deeper than 200 levels");
  // Sizes past what any int64 holds are refused before they can overflow the arithmetic.
  CHECK(error_of([&] { eval("340282366920938463463374607432GB"); }).find("has too many digits") !=
        std::string::npos);
  CHECK(error_of([&] { eval("2 & 3"); }).find("unexpected '&'") != std::string::npos);
}

TEST_CASE("eval_positive rejects zero and negative sizes") {
  const Expr e = Expr::parse("0", {}, {"t.yaml", 1, 1});
  CHECK(error_of([&] { e.eval_positive({}, "bytes"); }) ==
        "t.yaml:1:1: error: bytes must be positive, got 0 (from '0')");
}
