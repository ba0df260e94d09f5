// Fuzz target: a hardware file (YAML) loaded as `--hw FILE` loads it. Seeds: the presets.
#include "models/hardware_loader.hpp"
#include "tests/fuzz/fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mgsim;
  return fuzz::accept_bad_input(
      [&] { models::load_hardware_from_string(fuzz::text_of(data, size), "<fuzz>"); });
}
