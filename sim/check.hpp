// Invariant checks that stay on in release builds. A failed check is a bug in mgsim, never a
// user's mistake (bad input is reported through ConfigError, see sim/config.hpp): it throws
// InternalError so that a caller (the CLI, a sweep, an RL loop) can report it and carry on.
#pragma once

#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace mgsim::sim {

class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void fail_check(const char* expr, const char* file, int line, const std::string& msg);

}  // namespace mgsim::sim

#define MGSIM_CHECK(cond, ...)                                                         \
  do {                                                                                 \
    if (!(cond)) [[unlikely]]                                                          \
      ::mgsim::sim::fail_check(#cond, __FILE__, __LINE__, ::fmt::format(__VA_ARGS__)); \
  } while (false)
