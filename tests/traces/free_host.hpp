// Host calls that cost nothing, for tests that time the GPU side alone (host_test.cpp times the
// host).
#pragma once

#include "models/host.hpp"

namespace mgsim::test {

inline models::HostSpec free_host() {
  const sim::Duration z = sim::Duration::zero();
  return {z, z, z, z, z, z, z};
}

}  // namespace mgsim::test
