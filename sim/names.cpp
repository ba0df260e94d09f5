#include "sim/names.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace mgsim::sim {
namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1);
  std::vector<std::size_t> cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string nearest_name(std::string_view word, std::span<const std::string> candidates) {
  std::string best;
  std::size_t best_d = std::string::npos;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  // Close enough to be a typo: at most a third of the word, and at least one edit allowed.
  if (best_d > std::max<std::size_t>(2, word.size() / 3)) return "";
  return best;
}

std::string did_you_mean(std::string_view word, std::span<const std::string> candidates) {
  const std::string near = nearest_name(word, candidates);
  return near.empty() ? "" : fmt::format("; did you mean '{}'?", near);
}

}  // namespace mgsim::sim
