// What every fuzz target checks (docs/LANGUAGE.md, "Limits"): an input, however hostile, ends as
// the documented error type for bad input, sim::ConfigError (a LimitError among them), or as a
// result. Anything else escapes to libFuzzer, which reports it as a crash: an InternalError, a
// std::bad_alloc, a sanitizer report, a timeout (-timeout) or running out of memory
// (-rss_limit_mb).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/config.hpp"

namespace mgsim::fuzz {

// The input as text.
inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Runs `f`; bad input (ConfigError) is an accepted end, everything else propagates.
template <class F>
int accept_bad_input(F&& f) {
  try {
    f();
  } catch (const sim::ConfigError&) {
  }
  return 0;
}

}  // namespace mgsim::fuzz
