// Strong types for the quantities a simulation moves: time, bytes, bandwidth, frequency.
//
// Contract:
//   - Time and Duration are signed 64-bit counts of picoseconds (about 106 days of range).
//   - Bytes is a signed 64-bit count; Bandwidth is whole bytes per second; Frequency whole hertz.
//   - Durations derived from rates are computed once from exact integers (transfer_time, cycles),
//     rounding up, with 128-bit intermediates; nothing accumulates rounded per-byte costs.
//   - Unit strings parse exactly (decimal mantissa times an exact prefix): "26.5625GB/s" is
//     26'562'500'000 B/s. A value that is not a whole number of the base unit is an error.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace mgsim::sim {

// 128-bit intermediates for exact rate arithmetic (GCC and Clang; __extension__ keeps -Wpedantic
// quiet).
__extension__ typedef __int128 Int128;

class Duration {
 public:
  constexpr Duration() = default;
  static constexpr Duration ps(std::int64_t n) { return Duration(n); }
  static constexpr Duration ns(std::int64_t n) { return Duration(n * 1'000); }
  static constexpr Duration us(std::int64_t n) { return Duration(n * 1'000'000); }
  static constexpr Duration ms(std::int64_t n) { return Duration(n * 1'000'000'000); }
  static constexpr Duration zero() { return Duration(0); }
  static constexpr Duration max() { return Duration(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t picoseconds() const { return ps_; }
  constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }
  constexpr double microseconds() const { return static_cast<double>(ps_) * 1e-6; }

  constexpr Duration operator+(Duration o) const { return Duration(ps_ + o.ps_); }
  constexpr Duration operator-(Duration o) const { return Duration(ps_ - o.ps_); }
  constexpr Duration operator*(std::int64_t k) const { return Duration(ps_ * k); }
  constexpr Duration& operator+=(Duration o) {
    ps_ += o.ps_;
    return *this;
  }
  constexpr Duration& operator-=(Duration o) {
    ps_ -= o.ps_;
    return *this;
  }
  constexpr auto operator<=>(const Duration&) const = default;

 private:
  constexpr explicit Duration(std::int64_t ps) : ps_(ps) {}
  std::int64_t ps_ = 0;
};

// A point on the simulated clock; the simulation starts at Time::zero().
class Time {
 public:
  constexpr Time() = default;
  static constexpr Time zero() { return Time(0); }
  static constexpr Time from_ps(std::int64_t ps) { return Time(ps); }
  static constexpr Time max() { return Time(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t picoseconds() const { return ps_; }
  constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }
  constexpr Duration since_start() const { return Duration::ps(ps_); }

  constexpr Time operator+(Duration d) const { return Time(ps_ + d.picoseconds()); }
  constexpr Time operator-(Duration d) const { return Time(ps_ - d.picoseconds()); }
  constexpr Duration operator-(Time o) const { return Duration::ps(ps_ - o.ps_); }
  constexpr Time& operator+=(Duration d) {
    ps_ += d.picoseconds();
    return *this;
  }
  constexpr auto operator<=>(const Time&) const = default;

 private:
  constexpr explicit Time(std::int64_t ps) : ps_(ps) {}
  std::int64_t ps_ = 0;
};

class Bytes {
 public:
  constexpr Bytes() = default;
  constexpr explicit Bytes(std::int64_t n) : n_(n) {}
  static constexpr Bytes KiB(std::int64_t n) { return Bytes(n << 10); }
  static constexpr Bytes MiB(std::int64_t n) { return Bytes(n << 20); }
  static constexpr Bytes GiB(std::int64_t n) { return Bytes(n << 30); }

  constexpr std::int64_t count() const { return n_; }
  constexpr Bytes operator+(Bytes o) const { return Bytes(n_ + o.n_); }
  constexpr Bytes operator-(Bytes o) const { return Bytes(n_ - o.n_); }
  constexpr Bytes operator*(std::int64_t k) const { return Bytes(n_ * k); }
  constexpr Bytes operator/(std::int64_t k) const { return Bytes(n_ / k); }
  constexpr Bytes& operator+=(Bytes o) {
    n_ += o.n_;
    return *this;
  }
  constexpr Bytes& operator-=(Bytes o) {
    n_ -= o.n_;
    return *this;
  }
  constexpr auto operator<=>(const Bytes&) const = default;

 private:
  std::int64_t n_ = 0;
};

// Whole bytes per second. Datasheet link rates are whole bytes per second (26.5625 GB/s is
// 26'562'500'000 B/s); shared rates inside the fluid solver are not, and live there as doubles.
class Bandwidth {
 public:
  constexpr Bandwidth() = default;
  static constexpr Bandwidth bytes_per_second(std::int64_t n) { return Bandwidth(n); }
  static constexpr Bandwidth GBps(std::int64_t n) { return Bandwidth(n * 1'000'000'000); }

  constexpr std::int64_t bytes_per_second() const { return bps_; }
  constexpr double gbps() const { return static_cast<double>(bps_) * 1e-9; }
  constexpr Bandwidth operator*(std::int64_t k) const { return Bandwidth(bps_ * k); }
  constexpr Bandwidth operator+(Bandwidth o) const { return Bandwidth(bps_ + o.bps_); }
  constexpr auto operator<=>(const Bandwidth&) const = default;

 private:
  constexpr explicit Bandwidth(std::int64_t n) : bps_(n) {}
  std::int64_t bps_ = 0;
};

class Frequency {
 public:
  constexpr Frequency() = default;
  static constexpr Frequency hz(std::int64_t n) { return Frequency(n); }
  static constexpr Frequency mhz(std::int64_t n) { return Frequency(n * 1'000'000); }

  constexpr std::int64_t hertz() const { return hz_; }
  constexpr auto operator<=>(const Frequency&) const = default;

 private:
  constexpr explicit Frequency(std::int64_t n) : hz_(n) {}
  std::int64_t hz_ = 0;
};

// Whole microwatts: a board's power ("700W", "137.5W").
class Power {
 public:
  constexpr Power() = default;
  static constexpr Power microwatts(std::int64_t n) { return Power(n); }
  static constexpr Power watts(std::int64_t n) { return Power(n * 1'000'000); }

  constexpr std::int64_t microwatts() const { return uw_; }
  constexpr double watts() const { return static_cast<double>(uw_) * 1e-6; }
  constexpr auto operator<=>(const Power&) const = default;

 private:
  constexpr explicit Power(std::int64_t n) : uw_(n) {}
  std::int64_t uw_ = 0;
};

// Whole attojoules: the energy of one operation ("1.474pJ" per flop, "121.3pJ" per byte).
class Energy {
 public:
  constexpr Energy() = default;
  static constexpr Energy attojoules(std::int64_t n) { return Energy(n); }

  constexpr std::int64_t attojoules() const { return aj_; }
  constexpr double joules() const { return static_cast<double>(aj_) * 1e-18; }
  constexpr auto operator<=>(const Energy&) const = default;

 private:
  constexpr explicit Energy(std::int64_t n) : aj_(n) {}
  std::int64_t aj_ = 0;
};

// Time to move `bytes` at `bw`, rounded up to a whole picosecond, computed once.
// REQUIRES: bytes >= 0, bw > 0.
Duration transfer_time(Bytes bytes, Bandwidth bw);
// Time taken by `cycles` cycles at `f`, rounded up to a whole picosecond. REQUIRES: f > 0.
Duration cycles_to_duration(std::int64_t cycles, Frequency f);

// Parsers for unit strings. Each returns true and sets `out` on success; on failure returns
// false and sets `error` to a one-line reason naming what was expected.
//   bytes:     "64KB" (SI, 1000), "2MiB" (binary, 1024), "512B", "1Gb" (bits, /8)
//   bandwidth: "450 GB/s", "26.5625GB/s", "3.2Tb/s", "900GiB/s"
//   duration:  "650ns", "1.5us", "2ms", "10ps", "1s"
//   frequency: "1.98GHz", "1755MHz"
//   power:     "700W", "137.5W", "1.2kW", "350mW"
//   energy:    "1.474pJ", "121.3pJ", "2nJ", "500fJ"
bool parse_bytes(std::string_view text, Bytes& out, std::string& error);
bool parse_bandwidth(std::string_view text, Bandwidth& out, std::string& error);
bool parse_duration(std::string_view text, Duration& out, std::string& error);
bool parse_frequency(std::string_view text, Frequency& out, std::string& error);
bool parse_power(std::string_view text, Power& out, std::string& error);
bool parse_energy(std::string_view text, Energy& out, std::string& error);

// Human-readable forms, exact where the value allows ("650ns", "1.5us", "2MiB", "450GB/s").
std::string to_string(Duration d);
std::string to_string(Bytes b);
std::string to_string(Bandwidth bw);
std::string to_string(Frequency f);
std::string to_string(Power p);
std::string to_string(Energy e);

}  // namespace mgsim::sim
