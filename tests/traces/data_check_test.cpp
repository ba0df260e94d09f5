// The data check's vector clock (traces/data_check.hpp): ticks by agent in blocks of consecutive
// agents; absent agents read 0, a join is the elementwise max, erase_if drops entries and then
// empty blocks.
#include <catch2/catch.hpp>

#include "traces/data_check.hpp"

using mgsim::traces::Clock;

TEST_CASE("a clock reads 0 for agents it never saw, and raise only raises") {
  Clock c;
  CHECK(c.get(0) == 0);
  CHECK(c.get(12345) == 0);
  c.raise(7, 3);
  c.raise(7, 2);  // lower: kept at 3
  CHECK(c.get(7) == 3);
  CHECK(c.get(6) == 0);  // same block, another agent
  CHECK(c.get(8) == 0);
  c.raise(1000, 1);  // a block far away, inserted after
  c.raise(20, 5);    // and one between
  CHECK(c.get(1000) == 1);
  CHECK(c.get(20) == 5);
  CHECK(c.get(7) == 3);
}

TEST_CASE("a join keeps each agent's larger tick, across blocks either side has alone") {
  Clock a;
  Clock b;
  a.raise(1, 4);
  a.raise(40, 1);
  b.raise(1, 2);
  b.raise(2, 9);
  b.raise(500, 7);
  a.join(b);
  CHECK(a.get(1) == 4);
  CHECK(a.get(2) == 9);
  CHECK(a.get(40) == 1);
  CHECK(a.get(500) == 7);
  Clock empty;
  empty.join(a);  // into an empty clock: a copy
  CHECK(empty.get(500) == 7);
  a.join(Clock{});  // with an empty clock: unchanged
  CHECK(a.get(2) == 9);
}

TEST_CASE("erase_if drops the entries it is asked to, and the blocks they empty") {
  Clock c;
  c.raise(3, 1);
  c.raise(4, 2);
  c.raise(100, 3);
  c.erase_if([](std::uint32_t agent, std::uint32_t) { return agent >= 4; });
  CHECK(c.get(3) == 1);
  CHECK(c.get(4) == 0);
  CHECK(c.get(100) == 0);
  Clock d;
  d.raise(100, 3);
  c.join(d);  // the emptied block is gone, so this one comes back whole
  CHECK(c.get(100) == 3);
}

TEST_CASE("a join of a clock whose blocks this one has is the same max, made in place") {
  Clock a;
  a.raise(1, 4);
  a.raise(40, 1);
  a.raise(500, 2);
  Clock b;  // blocks of agents 0-15 and 496-511 only: both in a
  b.raise(2, 9);
  b.raise(1, 3);
  b.raise(505, 6);
  a.join(b);
  CHECK(a.get(1) == 4);
  CHECK(a.get(2) == 9);
  CHECK(a.get(40) == 1);
  CHECK(a.get(500) == 2);
  CHECK(a.get(505) == 6);
  CHECK(a.get(17) == 0);
}

TEST_CASE("a cursor reads a clock for agents in rising order as get does") {
  Clock c;
  c.raise(3, 1);
  c.raise(18, 2);
  c.raise(900, 3);
  Clock::Cursor at(c);
  for (std::uint32_t agent : {0u, 3u, 3u, 17u, 18u, 40u, 899u, 900u, 5000u})
    CHECK(at.get(agent) == c.get(agent));
}
