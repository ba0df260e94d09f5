// Text and JSON renderings of a Roofline (roofline.hpp), shared by `mgsim bound` and `mgsim run`.
//
// Contract: output is a pure function of the Roofline (fixed decimal places, terms in the
// Roofline's order), so the same run prints the same bytes. Amounts are printed in their measure:
// bytes ("B", capacities in GB/s = 1e9 B/s) or flops ("flop", capacities in TFLOP/s = 1e12).
#pragma once

#include <cstddef>
#include <string>

#include "traces/roofline.hpp"

namespace mgsim::traces {

// The roofline table: one row per unit group that carried anything, sorted as in `r`
// (time at full rate, descending), then "bound:" and "bottleneck:" lines.
std::string roofline_table(const Roofline& r);

// "bound: ... fraction ... bottleneck ..." and the `top` most utilised unit groups (those
// that carried anything), for `mgsim run`'s text output.
std::string roofline_summary(const Roofline& r, std::size_t top);

// {"bound_ps": ..., "elapsed_ps": ..., "fraction": ..., "bottleneck": "..." or null,
//  "units": [{"group", "kind", "gpu", "resources", "measure", "amount", "capacity_per_s",
//  "time_ps", "utilisation"}, ...]} with every unit group, idle ones included.
std::string roofline_json(const Roofline& r);

}  // namespace mgsim::traces
