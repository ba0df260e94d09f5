// Fuzz target: a schedule (YAML) parsed and run on hgx-h200-8 within tight limits, with the data
// check on, as `mgsim check` and an RL rollout run one. Seeds: examples/.
#include "traces/schedule.hpp"
#include "tests/fuzz/fuzz_target.hpp"
#include "traces/simulation.hpp"

namespace {

const mgsim::traces::Machine& machine() {
  static const auto m = mgsim::traces::Machine::load("hgx-h200-8", {}, "");
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mgsim;
  return fuzz::accept_bad_input([&] {
    const traces::Schedule s =
        traces::load_schedule(sim::Node::load_string(fuzz::text_of(data, size), "<fuzz>"));
    traces::Limits limits;
    limits.max_ops = 100'000;
    limits.max_events = 50'000;
    limits.max_wall_seconds = 1;
    limits.max_memory_bytes = std::int64_t{2} << 30;
    traces::run_one(s, {}, machine(), nullptr, limits, {.check = true});
  });
}
