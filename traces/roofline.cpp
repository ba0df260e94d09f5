#include "traces/roofline.hpp"

#include <algorithm>
#include <unordered_map>

#include "sim/check.hpp"

namespace mgsim::traces {

const UnitTerm* Roofline::bottleneck() const {
  if (terms.empty() || terms.front().amount == 0) return nullptr;
  return &terms.front();
}

double Roofline::fraction() const {
  if (elapsed.picoseconds() <= 0) return 0.0;
  return static_cast<double>(bound.picoseconds()) / static_cast<double>(elapsed.picoseconds());
}

Roofline compute_roofline(const models::ResourceCatalog& catalog, sim::FluidNetwork& net,
                          sim::Duration elapsed) {
  std::vector<UnitTerm> terms;
  std::unordered_map<std::string, std::size_t> index;
  std::size_t last = 0;  // a group's entries mostly come one after another: no lookup for those
  for (const models::CatalogEntry& e : catalog.entries()) {
    if (terms.empty() || terms[last].group != e.group) {
      auto [it, fresh] = index.emplace(e.group, terms.size());
      if (fresh) {
        UnitTerm t;
        t.group = e.group;
        t.kind = e.kind;
        t.gpu = e.gpu;
        terms.push_back(std::move(t));
      }
      last = it->second;
    }
    UnitTerm& t = terms[last];
    t.resources += 1;
    t.amount += net.stats(e.resource).bytes_carried.count();
    t.capacity += net.capacity(e.resource).bytes_per_second();
  }
  for (UnitTerm& t : terms) {
    MGSIM_CHECK(t.capacity > 0 && t.amount >= 0, "unit group '{}': amount {}, capacity {}", t.group,
                t.amount, t.capacity);
    t.time = sim::transfer_time(sim::Bytes(t.amount), sim::Bandwidth::bytes_per_second(t.capacity));
    if (elapsed.picoseconds() > 0)
      t.utilisation =
          static_cast<double>(t.time.picoseconds()) / static_cast<double>(elapsed.picoseconds());
  }
  std::sort(terms.begin(), terms.end(), [](const UnitTerm& a, const UnitTerm& b) {
    if (a.time != b.time) return a.time > b.time;
    return a.group < b.group;
  });
  Roofline r;
  r.terms = std::move(terms);
  r.elapsed = elapsed;
  if (!r.terms.empty()) r.bound = r.terms.front().time;
  return r;
}

}  // namespace mgsim::traces
