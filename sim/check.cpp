#include "sim/check.hpp"

namespace mgsim::sim {

void fail_check(const char* expr, const char* file, int line, const std::string& msg) {
  throw InternalError(
      fmt::format("internal error at {}:{}: check '{}' failed: {}", file, line, expr, msg));
}

}  // namespace mgsim::sim
