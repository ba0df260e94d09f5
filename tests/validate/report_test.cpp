#include <catch2/catch.hpp>

#include "validate/report.hpp"

using namespace mgsim::validate;

TEST_CASE("median and nearest-rank p90") {
  // Even count: mean of the middle two, (0.2 + 0.3) / 2.
  CHECK(median_of({0.4, 0.1, 0.3, 0.2}) == Approx(0.25));
  CHECK(median_of({0.5, 0.1, 0.3}) == Approx(0.3));
  // 10 values 1..10: ceil(0.9 x 10) = 9th smallest = 9; 11 values: ceil(9.9) = 10th = 10.
  CHECK(p90_of({10, 9, 8, 7, 6, 5, 4, 3, 2, 1}) == 9);
  CHECK(p90_of({11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}) == 10);
  CHECK(p90_of({0.5}) == 0.5);
}

TEST_CASE("category statistics use |predicted / measured - 1|") {
  ValidationRun run;
  // Errors: +10 %, -20 %, +5 % (primitive); -50 % (held-out).
  run.cases = {{"a.csv", "primitive", 1, "x", 100, 110},
               {"a.csv", "primitive", 2, "y", 100, 80},
               {"a.csv", "primitive", 3, "z", 100, 105},
               {"b.csv", "held-out", 4, "w", 10, 5}};
  const auto s = category_stats(run);
  REQUIRE(s.size() == 2);
  CHECK(s[0].category == "primitive");
  CHECK(s[0].cases == 3);
  CHECK(s[0].median == Approx(0.10));  // |e| sorted 0.05, 0.10, 0.20
  CHECK(s[0].p90 == Approx(0.20));     // ceil(2.7) = 3rd
  CHECK(s[0].worst == Approx(0.20));
  CHECK(s[1].median == Approx(0.5));
}

TEST_CASE("family statistics split the cases by data file") {
  ValidationRun run;
  // a.csv: |e| = 0.10, 0.30 (median of two = their mean 0.20); b.csv: |e| = 0.50; c.csv shares
  // a's category but not its statistics: |e| = 0.01.
  run.cases = {{"a.csv", "primitive", 1, "x", 100, 110},
               {"b.csv", "held-out", 2, "w", 10, 5},
               {"a.csv", "primitive", 3, "y", 100, 70},
               {"c.csv", "primitive", 4, "z", 100, 101}};
  const auto s = family_stats(run);
  REQUIRE(s.size() == 3);
  CHECK(s[0].category == "a.csv (primitive)");
  CHECK(s[0].cases == 2);
  CHECK(s[0].median == Approx(0.20));
  CHECK(s[0].p90 == Approx(0.30));  // ceil(1.8) = 2nd
  CHECK(s[1].category == "b.csv (held-out)");
  CHECK(s[1].worst == Approx(0.5));
  CHECK(s[2].median == Approx(0.01));
}

TEST_CASE("the baseline check fails on growth past the tolerance only") {
  const std::vector<CategoryStats> recorded{{"held-out", 4, 0.10, 0.20, 0.30}};
  CHECK(check_baseline({{"held-out", 4, 0.10, 0.20, 0.30}}, recorded, 1e-9).empty());
  CHECK(check_baseline({{"held-out", 4, 0.05, 0.20, 0.30}}, recorded, 1e-9).empty());  // better
  const auto grew = check_baseline({{"held-out", 4, 0.10, 0.21, 0.30}}, recorded, 1e-9);
  REQUIRE(grew.size() == 1);
  CHECK_THAT(grew[0], Catch::Contains("p90"));
  CHECK(check_baseline({{"held-out", 5, 0.10, 0.20, 0.30}}, recorded, 1e-9).size() == 1);
  CHECK(check_baseline({{"primitive", 4, 0.1, 0.2, 0.3}}, recorded, 1e-9).size() == 2);
}
