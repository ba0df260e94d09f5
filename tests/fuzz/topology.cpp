// Fuzz target: a topology file (YAML) loaded as `--topology FILE` loads it. Seeds: the presets.
#include "topologies/topology.hpp"
#include "tests/fuzz/fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mgsim;
  return fuzz::accept_bad_input(
      [&] { topologies::load_topology_text(fuzz::text_of(data, size), "<fuzz>"); });
}
