// Test helper: the message of the sim::ConfigError that `fn` throws, or "no error".
#pragma once

#include <string>

#include "sim/config.hpp"

namespace mgsim::testing {

std::string error_of(auto&& fn) {
  try {
    fn();
  } catch (const sim::ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace mgsim::testing
