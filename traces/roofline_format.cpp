#include "traces/roofline_format.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/json.hpp"

namespace mgsim::traces {
namespace {

bool is_flops(const UnitTerm& t) { return measure_of(t.kind) == models::Measure::flops; }

std::string amount_text(const UnitTerm& t) {
  return fmt::format("{} {}", t.amount, is_flops(t) ? "flop" : "B");
}

std::string capacity_text(const UnitTerm& t) {
  return is_flops(t) ? fmt::format("{:.3f} TFLOP/s", static_cast<double>(t.capacity) * 1e-12)
                     : fmt::format("{:.3f} GB/s", static_cast<double>(t.capacity) * 1e-9);
}

std::string bound_line(const Roofline& r) {
  const UnitTerm* b = r.bottleneck();
  if (!b) return "bound: 0 ps (nothing carried by a registered unit)\n";
  return fmt::format("bound: {:.6f} us ({} ps), bottleneck {} ({})\n", r.bound.microseconds(),
                     r.bound.picoseconds(), b->group, to_string(b->kind));
}

}  // namespace

std::string roofline_table(const Roofline& r) {
  std::string out = fmt::format("{:<24} {:<14} {:>22} {:>20} {:>16} {:>16}\n", "unit group", "kind",
                                "amount", "capacity", "time (us)", "time (ps)");
  for (const UnitTerm& t : r.terms) {
    if (t.amount == 0) continue;
    out +=
        fmt::format("{:<24} {:<14} {:>22} {:>20} {:>16.6f} {:>16}\n", t.group, to_string(t.kind),
                    amount_text(t), capacity_text(t), t.time.microseconds(), t.time.picoseconds());
  }
  return out + bound_line(r);
}

std::string roofline_summary(const Roofline& r, std::size_t top) {
  std::string out = bound_line(r);
  if (!r.bottleneck()) return out;
  out += fmt::format("fraction of the bound achieved: {:.6f} (bound / predicted time)\n",
                     r.fraction());
  const auto busy = static_cast<std::size_t>(std::count_if(
      r.terms.begin(), r.terms.end(), [](const UnitTerm& t) { return t.amount > 0; }));
  // Terms are sorted by time at full rate, and utilisation is that time over the run's: the
  // same order.
  out += fmt::format("mean utilisation over the run (top {} of {} busy unit groups):\n",
                     std::min(top, busy), busy);
  for (std::size_t i = 0; i < std::min(top, busy); ++i) {
    const UnitTerm& t = r.terms[i];
    out += fmt::format("  {:<24} {:<14} {:>9.2f} %\n", t.group, to_string(t.kind),
                       t.utilisation * 100.0);
  }
  return out;
}

std::string roofline_json(const Roofline& r) {
  const UnitTerm* b = r.bottleneck();
  std::string out;
  sim::JsonWriter w(out);
  w.object()
      .key("bound_ps")
      .value(r.bound.picoseconds())
      .key("elapsed_ps")
      .value(r.elapsed.picoseconds())
      .key("fraction")
      .value(r.fraction(), 6)
      .key("bottleneck");
  if (b) {
    w.value(b->group);
  } else {
    w.null();
  }
  w.key("units").array();
  for (const UnitTerm& t : r.terms)
    w.object()
        .key("group")
        .value(t.group)
        .key("kind")
        .value(to_string(t.kind))
        .key("gpu")
        .value(t.gpu)
        .key("resources")
        .value(t.resources)
        .key("measure")
        .value(is_flops(t) ? "flops" : "bytes")
        .key("amount")
        .value(t.amount)
        .key("capacity_per_s")
        .value(t.capacity)
        .key("time_ps")
        .value(t.time.picoseconds())
        .key("utilisation")
        .value(t.utilisation, 6)
        .end();
  w.end().end();
  return out;
}

}  // namespace mgsim::traces
