// Fuzz target: the unit strings of every input (sizes, bandwidths, durations, frequencies).
// Their parsers report bad input through their return value, never by throwing. Seeds:
// tests/fuzz/seeds/units/.
#include <string>

#include "sim/units.hpp"
#include "tests/fuzz/fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mgsim::sim;
  const std::string text = mgsim::fuzz::text_of(data, size);
  std::string error;
  Bytes bytes;
  Bandwidth bandwidth;
  Duration duration;
  Frequency frequency;
  parse_bytes(text, bytes, error);
  parse_bandwidth(text, bandwidth, error);
  parse_duration(text, duration, error);
  parse_frequency(text, frequency, error);
  return 0;
}
