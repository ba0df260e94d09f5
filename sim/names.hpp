// Names of things in input files and messages, in both directions, and the nearest valid name
// for a typo.
//
// An enum that appears in YAML or in output gets one NameTable of {value, "name"} pairs: name()
// replaces a hand-written switch, parse() a chain of string compares, names() the hand-kept list
// an error message shows, so a value added to the table is handled everywhere. Callers word
// their own messages (they are pinned by tests); did_you_mean() gives the usual tail.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mgsim::sim {

// The candidate closest to `word` by edit distance, or "" when none is reasonably close.
std::string nearest_name(std::string_view word, std::span<const std::string> candidates);

// "; did you mean 'x'?" with the nearest candidate, or "" when none is close: the tail of an
// "unknown ..." message.
std::string did_you_mean(std::string_view word, std::span<const std::string> candidates);

template <class E>
struct NamedValue {
  E value;
  std::string_view name;
};

// A fixed table of an enum's values and names, in the order messages list them.
// REQUIRES: values and names are each distinct.
template <class E, std::size_t N>
struct NameTable {
  std::array<NamedValue<E>, N> entries;

  // The name of `e`, or "?" for a value outside the table (a cast from a bad integer).
  constexpr std::string_view name(E e) const {
    for (const NamedValue<E>& x : entries) {
      if (x.value == e) return x.name;
    }
    return "?";
  }
  // The value named `text` exactly, if any.
  constexpr std::optional<E> parse(std::string_view text) const {
    for (const NamedValue<E>& x : entries) {
      if (x.name == text) return x.value;
    }
    return std::nullopt;
  }
  // Every name, in table order (for "valid ...: a, b, c" and nearest-name suggestions).
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    out.reserve(N);
    for (const NamedValue<E>& x : entries) out.emplace_back(x.name);
    return out;
  }
  // The name nearest to an unknown `text` (see nearest_name), or "".
  std::string nearest(std::string_view text) const { return nearest_name(text, names()); }
};

// Builds a table from a braced list: name_table<Dtype>({{Dtype::bf16, "bf16"}, ...}).
template <class E, std::size_t N>
constexpr NameTable<E, N> name_table(const NamedValue<E> (&entries)[N]) {
  NameTable<E, N> table{};
  for (std::size_t i = 0; i < N; ++i) table.entries[i] = entries[i];
  return table;
}

}  // namespace mgsim::sim
