// Fuzz target: a measurement table (validate/data/**/*.csv) as `mgsim validate` reads it.
// Seeds: validate/data/.
#include "tests/fuzz/fuzz_target.hpp"
#include "validate/measurements.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mgsim;
  return fuzz::accept_bad_input(
      [&] { validate::MeasurementTable::parse(fuzz::text_of(data, size), "<fuzz>"); });
}
