#include "sim/units.hpp"

#include <catch2/catch.hpp>

using namespace mgsim::sim;

namespace {
Bandwidth bw(const char* s) {
  Bandwidth v;
  std::string e;
  REQUIRE(parse_bandwidth(s, v, e));
  return v;
}
Bytes bytes(const char* s) {
  Bytes v;
  std::string e;
  REQUIRE(parse_bytes(s, v, e));
  return v;
}
}  // namespace

TEST_CASE("bandwidth strings parse exactly, SI and binary prefixes apart") {
  // 26.5625 GB/s = 26.5625e9 B/s: a whole number, so exact.
  CHECK(bw("26.5625GB/s").bytes_per_second() == 26'562'500'000);
  CHECK(bw("450 GB/s").bytes_per_second() == 450'000'000'000);
  // Bits: 3.2 Tb/s / 8 = 400 GB/s.
  CHECK(bw("3.2Tb/s").bytes_per_second() == 400'000'000'000);
  CHECK(bw("400Gbps").bytes_per_second() == 50'000'000'000);
  // Binary prefix: 1 GiB/s = 2^30 B/s.
  CHECK(bw("1GiB/s").bytes_per_second() == 1'073'741'824);
}

TEST_CASE("byte strings: KB is 1000, KiB is 1024") {
  CHECK(bytes("64KB").count() == 64'000);
  CHECK(bytes("64KiB").count() == 65'536);
  CHECK(bytes("2MiB").count() == 2 * 1'048'576);
  CHECK(bytes("1.5GiB").count() == 1'610'612'736);
  CHECK(bytes("512B").count() == 512);
}

TEST_CASE("durations and frequencies") {
  Duration d;
  Frequency f;
  std::string e;
  REQUIRE(parse_duration("650ns", d, e));
  CHECK(d == Duration::ns(650));
  REQUIRE(parse_duration("1.5us", d, e));
  CHECK(d.picoseconds() == 1'500'000);
  REQUIRE(parse_frequency("1.98GHz", f, e));
  CHECK(f.hertz() == 1'980'000'000);
}

TEST_CASE("power and energy parse exactly and print back") {
  Power p;
  Energy en;
  std::string e;
  REQUIRE(parse_power("137.5W", p, e));
  CHECK(p.microwatts() == 137'500'000);
  Power back;
  REQUIRE(parse_power(to_string(p), back, e));
  CHECK(back == p);
  REQUIRE(parse_power("1.2kW", p, e));
  CHECK(p == Power::watts(1200));
  REQUIRE(parse_energy("1.474pJ", en, e));
  CHECK(en.attojoules() == 1'474'000);
  Energy back_e;
  REQUIRE(parse_energy(to_string(en), back_e, e));
  CHECK(back_e == en);
  CHECK_FALSE(parse_power("700", p, e));  // the unit is required
  CHECK(e.find("expected one of") != std::string::npos);
  CHECK_FALSE(parse_energy("0.1aJ", en, e));  // below the attojoule resolution
}

TEST_CASE("bad unit strings are errors that say what was expected") {
  std::string e;
  Bandwidth b;
  CHECK_FALSE(parse_bandwidth("450", b, e));
  CHECK(e.find("expected one of") != std::string::npos);
  CHECK_FALSE(parse_bandwidth("fast", b, e));
  Duration d;
  CHECK_FALSE(parse_duration("0.5ps", d, e));  // below the picosecond resolution
  CHECK_FALSE(parse_duration("10 parsecs", d, e));
  Bytes n;
  CHECK_FALSE(parse_bytes("1.2345B", n, e));
}

TEST_CASE("transfer_time rounds up once, from exact integers") {
  // 1 MB at 50 GB/s = 1e6 / 50e9 s = 20 us exactly.
  CHECK(transfer_time(Bytes(1'000'000), Bandwidth::GBps(50)) == Duration::us(20));
  // 1 B at 900 GB/s = 1.111 ps -> 2 ps (htsim's rounded 1 ps/B would say 1).
  CHECK(transfer_time(Bytes(1), Bandwidth::GBps(900)).picoseconds() == 2);
  // 1 GiB at 26.5625 GB/s: 1073741824e12 / 26562500000 = 40423221609.41... ps -> ...610.
  CHECK(transfer_time(Bytes::GiB(1), bw("26.5625GB/s")).picoseconds() == 40'423'221'610);
  // The product bytes * 1e12 overflows 64 bits but not the 128-bit intermediate:
  // 1 GiB at 1 KB/s = 1073741.824 s = 1.073741824e18 ps.
  CHECK(transfer_time(Bytes::GiB(1), bw("1KB/s")).picoseconds() == 1'073'741'824'000'000'000);
}

TEST_CASE("values print back in their natural unit") {
  CHECK(to_string(Duration::ns(650)) == "650ns");
  CHECK(to_string(Bytes::MiB(2)) == "2MiB");
  CHECK(to_string(Bandwidth::GBps(450)) == "450GB/s");
}
