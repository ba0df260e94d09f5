#include "sim/units.hpp"

#include <array>
#include <cctype>
#include <span>

#include <fmt/format.h>

#include "sim/check.hpp"

namespace mgsim::sim {
namespace {

// An exact rational scale from a unit to the base unit: value_in_base = value * num / den.
struct UnitScale {
  std::string_view suffix;
  Int128 num;
  Int128 den;
};

constexpr Int128 pow10(int n) {
  Int128 r = 1;
  for (int i = 0; i < n; ++i) r *= 10;
  return r;
}

constexpr Int128 kKi = Int128{1} << 10;
constexpr Int128 kMi = Int128{1} << 20;
constexpr Int128 kGi = Int128{1} << 30;
constexpr Int128 kTi = Int128{1} << 40;

// Longest suffixes first is not needed: matching is exact on the whole suffix.
constexpr std::array kByteUnits{
    UnitScale{"B", 1, 1},          UnitScale{"KB", pow10(3), 1}, UnitScale{"kB", pow10(3), 1},
    UnitScale{"MB", pow10(6), 1},  UnitScale{"GB", pow10(9), 1}, UnitScale{"TB", pow10(12), 1},
    UnitScale{"KiB", kKi, 1},      UnitScale{"MiB", kMi, 1},     UnitScale{"GiB", kGi, 1},
    UnitScale{"TiB", kTi, 1},      UnitScale{"b", 1, 8},         UnitScale{"Kb", pow10(3), 8},
    UnitScale{"kb", pow10(3), 8},  UnitScale{"Mb", pow10(6), 8}, UnitScale{"Gb", pow10(9), 8},
    UnitScale{"Tb", pow10(12), 8},
};

constexpr std::array kDurationUnits{
    UnitScale{"ps", 1, 1},        UnitScale{"ns", pow10(3), 1},
    UnitScale{"us", pow10(6), 1}, UnitScale{"\xC2\xB5s", pow10(6), 1},
    UnitScale{"ms", pow10(9), 1}, UnitScale{"s", pow10(12), 1},
};

constexpr std::array kFrequencyUnits{
    UnitScale{"Hz", 1, 1},
    UnitScale{"kHz", pow10(3), 1},
    UnitScale{"MHz", pow10(6), 1},
    UnitScale{"GHz", pow10(9), 1},
};

constexpr std::array kPowerUnits{
    UnitScale{"uW", 1, 1},
    UnitScale{"mW", pow10(3), 1},
    UnitScale{"W", pow10(6), 1},
    UnitScale{"kW", pow10(9), 1},
};

constexpr std::array kEnergyUnits{
    UnitScale{"aJ", 1, 1},        UnitScale{"fJ", pow10(3), 1},  UnitScale{"pJ", pow10(6), 1},
    UnitScale{"nJ", pow10(9), 1}, UnitScale{"uJ", pow10(12), 1}, UnitScale{"mJ", pow10(15), 1},
    UnitScale{"J", pow10(18), 1},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string known_suffixes(std::span<const UnitScale> units, std::string_view per) {
  std::string out;
  for (const auto& u : units) {
    if (!out.empty()) out += ", ";
    out += u.suffix;
    out += per;
  }
  return out;
}

// Parses "<decimal> <suffix><per>" into an exact base-unit count. `what` names the quantity
// for messages; `per` is "/s" for rates and "" otherwise.
bool parse_scaled(std::string_view text, std::span<const UnitScale> units, std::string_view per,
                  std::string_view what, std::int64_t& out, std::string& error) {
  const std::string_view s = trim(text);
  std::size_t i = 0;
  Int128 mantissa = 0;
  int fraction_digits = 0;
  int digits = 0;
  bool seen_point = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.' && !seen_point) {
      seen_point = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    // 20 digits (< 2^67) times the largest scale (TiB, s: < 2^41) stays inside the Int128 below;
    // any value that fits the int64 result has fewer digits than that.
    if (++digits > 20) {
      error = fmt::format("'{}' has too many digits for a {}", s, what);
      return false;
    }
    mantissa = mantissa * 10 + (c - '0');
    if (seen_point) ++fraction_digits;
  }
  if (digits == 0) {
    error = fmt::format("expected a {} such as '{}', got '{}'", what,
                        fmt::format("12{}{}", units[units.size() > 2 ? 2 : 0].suffix, per), s);
    return false;
  }
  std::string_view suffix = trim(s.substr(i));
  bool per_ok = per.empty();
  if (!per.empty()) {
    if (suffix.ends_with(per)) {
      suffix.remove_suffix(per.size());
      per_ok = true;
    } else if (suffix.ends_with("ps")) {  // "Gbps", "GBps"
      suffix.remove_suffix(2);
      per_ok = true;
    }
  }
  for (const auto& u : units) {
    if (!per_ok || suffix != u.suffix) continue;
    const Int128 num = mantissa * u.num;
    const Int128 den = pow10(fraction_digits) * u.den;
    if (num % den != 0) {
      error = fmt::format("'{}' is not a whole number of the {}'s base unit", s, what);
      return false;
    }
    const Int128 value = num / den;
    if (value > std::numeric_limits<std::int64_t>::max()) {
      error = fmt::format("'{}' is too large for a {}", s, what);
      return false;
    }
    out = static_cast<std::int64_t>(value);
    return true;
  }
  error = fmt::format("'{}' has no valid unit for a {}: expected one of {}", s, what,
                      known_suffixes(units, per));
  return false;
}

// Formats `value` base units with the largest unit in `units` that divides it exactly, or
// with a short decimal when none does.
std::string format_scaled(std::int64_t value, std::span<const UnitScale> units,
                          std::string_view per) {
  const UnitScale* best = nullptr;
  for (const auto& u : units) {
    if (u.den != 1) continue;
    if (Int128{value} % u.num == 0 && (best == nullptr || u.num > best->num)) best = &u;
  }
  if (best != nullptr && (value != 0 || best->num == 1)) {
    return fmt::format("{}{}{}", static_cast<std::int64_t>(Int128{value} / best->num), best->suffix,
                       per);
  }
  const UnitScale* near = &units[0];
  for (const auto& u : units) {
    if (u.den == 1 && u.num <= Int128{value < 0 ? -value : value} && u.num > near->num) near = &u;
  }
  return fmt::format("{:.6g}{}{}", static_cast<double>(value) / static_cast<double>(near->num),
                     near->suffix, per);
}

}  // namespace

Duration transfer_time(Bytes bytes, Bandwidth bw) {
  MGSIM_CHECK(bytes.count() >= 0 && bw.bytes_per_second() > 0,
              "transfer_time needs bytes >= 0 and a positive bandwidth (got {} B at {} B/s)",
              bytes.count(), bw.bytes_per_second());
  const Int128 num = Int128{bytes.count()} * pow10(12);
  const Int128 den = bw.bytes_per_second();
  return Duration::ps(static_cast<std::int64_t>((num + den - 1) / den));
}

Duration cycles_to_duration(std::int64_t cycles, Frequency f) {
  MGSIM_CHECK(cycles >= 0 && f.hertz() > 0, "cycles_to_duration needs cycles >= 0 and f > 0");
  const Int128 num = Int128{cycles} * pow10(12);
  const Int128 den = f.hertz();
  return Duration::ps(static_cast<std::int64_t>((num + den - 1) / den));
}

bool parse_bytes(std::string_view text, Bytes& out, std::string& error) {
  std::int64_t v = 0;
  if (!parse_scaled(text, kByteUnits, "", "size in bytes", v, error)) return false;
  out = Bytes(v);
  return true;
}

bool parse_bandwidth(std::string_view text, Bandwidth& out, std::string& error) {
  std::int64_t v = 0;
  if (!parse_scaled(text, kByteUnits, "/s", "bandwidth", v, error)) return false;
  out = Bandwidth::bytes_per_second(v);
  return true;
}

bool parse_duration(std::string_view text, Duration& out, std::string& error) {
  std::int64_t v = 0;
  if (!parse_scaled(text, kDurationUnits, "", "duration", v, error)) return false;
  out = Duration::ps(v);
  return true;
}

bool parse_frequency(std::string_view text, Frequency& out, std::string& error) {
  std::int64_t v = 0;
  if (!parse_scaled(text, kFrequencyUnits, "", "frequency", v, error)) return false;
  out = Frequency::hz(v);
  return true;
}

bool parse_power(std::string_view text, Power& out, std::string& error) {
  std::int64_t v = 0;
  if (!parse_scaled(text, kPowerUnits, "", "power", v, error)) return false;
  out = Power::microwatts(v);
  return true;
}

bool parse_energy(std::string_view text, Energy& out, std::string& error) {
  std::int64_t v = 0;
  if (!parse_scaled(text, kEnergyUnits, "", "energy", v, error)) return false;
  out = Energy::attojoules(v);
  return true;
}

std::string to_string(Duration d) { return format_scaled(d.picoseconds(), kDurationUnits, ""); }
std::string to_string(Bytes b) { return format_scaled(b.count(), kByteUnits, ""); }
std::string to_string(Bandwidth bw) {
  return format_scaled(bw.bytes_per_second(), std::span(kByteUnits).first(6), "/s");
}
std::string to_string(Frequency f) { return format_scaled(f.hertz(), kFrequencyUnits, ""); }
std::string to_string(Power p) { return format_scaled(p.microwatts(), kPowerUnits, ""); }
std::string to_string(Energy e) { return format_scaled(e.attojoules(), kEnergyUnits, ""); }

}  // namespace mgsim::sim
