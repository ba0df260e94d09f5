#include "sim/trace.hpp"

#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "sim/check.hpp"

using namespace mgsim::sim;

namespace {

std::string record_sample() {
  ChromeTraceWriter w;
  TrackId s0 = w.track("gpu0", "stream0");
  TrackId s1 = w.track("gpu0", "stream1");
  TrackId g1 = w.track("gpu1", "stream0");
  CHECK(w.track("gpu0", "stream0").value == s0.value);  // same pair, same id
  w.slice(s0, "memcpy", Time::from_ps(1'500'000), Time::from_ps(2'000'001));
  w.slice(s1, "kernel \"gemm\"\\x\n", Time::from_ps(0), Time::from_ps(7));
  w.counter(g1, "GB/s", Time::from_ps(123), 450.5);
  std::ostringstream out;
  w.write(out);
  return out.str();
}

bool contains(const std::string& s, const std::string& needle) {
  return s.find(needle) != std::string::npos;
}

}  // namespace

TEST_CASE("chrome trace: metadata names processes and threads in first-seen order") {
  std::string json = record_sample();
  CHECK(json.rfind("{\"traceEvents\":[", 0) == 0);
  CHECK(contains(json, R"({"name":"process_name","ph":"M","pid":1,"args":{"name":"gpu0"}})"));
  CHECK(contains(json, R"({"name":"process_name","ph":"M","pid":2,"args":{"name":"gpu1"}})"));
  // gpu0 has threads 1 (stream0) and 2 (stream1); gpu1's first thread is tid 1 again.
  CHECK(contains(json,
                 R"({"name":"thread_name","ph":"M","pid":1,"tid":2,"args":{"name":"stream1"}})"));
  CHECK(contains(json,
                 R"({"name":"thread_name","ph":"M","pid":2,"tid":1,"args":{"name":"stream0"}})"));
  CHECK(contains(json, "\"displayTimeUnit\":\"ns\"}"));
}

TEST_CASE("chrome trace: timestamps keep picoseconds as microsecond decimals") {
  std::string json = record_sample();
  // 1'500'000 ps = 1.500000 us; duration 500'001 ps = 0.500001 us.
  CHECK(
      contains(json, R"("name":"memcpy","ph":"X","pid":1,"tid":1,"ts":1.500000,"dur":0.500001})"));
  // Counter at 123 ps = 0.000123 us, on gpu1 stream0, named after the thread.
  CHECK(contains(
      json,
      R"("name":"stream0 GB/s","ph":"C","pid":2,"tid":1,"ts":0.000123,"args":{"value":450.5}})"));
}

TEST_CASE("chrome trace: names are JSON-escaped") {
  std::string json = record_sample();
  // kernel "gemm"\x<newline> -> kernel \"gemm\"\\x\n
  CHECK(contains(json, R"("name":"kernel \"gemm\"\\x\n","ph":"X")"));
  // No raw control characters inside the document except the newlines between events.
  for (char c : json) CHECK((static_cast<unsigned char>(c) >= 0x20 || c == '\n'));
}

TEST_CASE("chrome trace: identical calls give identical bytes") {
  CHECK(record_sample() == record_sample());
}

TEST_CASE("chrome trace: brackets balance and events are comma-separated") {
  std::string json = record_sample();
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  bool balanced = true;
  for (char c : json) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    if (depth < 0) balanced = false;
  }
  CHECK(balanced);
  CHECK(depth == 0);
  CHECK_FALSE(in_string);
  // 2 processes x 2 metadata + 3 tracks x 2 metadata + 2 slices + 1 counter = 13 events,
  // so 12 separating commas at the start of a line.
  std::size_t commas = 0;
  for (std::size_t p = json.find(",\n"); p != std::string::npos; p = json.find(",\n", p + 1)) {
    ++commas;
  }
  CHECK(commas == 12);
}

TEST_CASE("chrome trace: a slice ending before it begins is an internal error") {
  ChromeTraceWriter w;
  TrackId t = w.track("p", "t");
  CHECK_THROWS_AS(w.slice(t, "bad", Time::from_ps(5), Time::from_ps(4)), InternalError);
  CHECK_THROWS_AS(w.counter(TrackId{42}, "x", Time::zero(), 1.0), InternalError);
}

TEST_CASE("chrome trace: a slice's args are an object after its duration, in the order given") {
  ChromeTraceWriter w;
  const TrackId t = w.track("gpu0", "sm000 k.r");
  const TraceArg args[] = {{"op", 0, "load"}, {"bytes", 1'000'000, {}}, {"peer", 1, {}}};
  w.slice(t, "load", Time::from_ps(0), Time::from_ps(1'000'000), args);
  w.slice(t, "mma", Time::from_ps(1'000'000), Time::from_ps(2'000'000));
  std::ostringstream out;
  w.write(out);
  CHECK(contains(out.str(), R"("dur":1.000000,"args":{"op":"load","bytes":1000000,"peer":1}})"));
  // Without args, no "args" object.
  CHECK(contains(out.str(),
                 R"("name":"mma","ph":"X","pid":1,"tid":1,"ts":1.000000,"dur":1.000000})"));
}

TEST_CASE("a tee gives both sinks every call, each with its own track ids") {
  ChromeTraceWriter direct, a, b;
  // `b` already has a track, so its ids differ from the tee's and from `a`'s.
  (void)b.track("other", "thread");
  TraceTee tee(a, b);
  for (TraceSink* sink : {static_cast<TraceSink*>(&direct), static_cast<TraceSink*>(&tee)}) {
    const TrackId s0 = sink->track("gpu0", "stream0");
    const TrackId s1 = sink->track("gpu1", "stream0");
    CHECK(sink->track("gpu0", "stream0").value == s0.value);
    sink->slice(s0, "copy", Time::from_ps(10), Time::from_ps(20));
    sink->slice(s1, "gemm", Time::from_ps(5), Time::from_ps(30));
    sink->counter(s1, "GB/s", Time::from_ps(7), 12.5);
  }
  std::ostringstream want, got_a, got_b;
  direct.write(want);
  a.write(got_a);
  b.write(got_b);
  CHECK(got_a.str() == want.str());
  CHECK(contains(got_b.str(), "\"name\":\"copy\""));
  CHECK(contains(got_b.str(), "\"name\":\"gemm\""));
  CHECK(contains(got_b.str(), "\"other\""));
}
