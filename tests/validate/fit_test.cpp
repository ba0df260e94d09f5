#include <catch2/catch.hpp>

#include "sim/config.hpp"
#include "validate/fit.hpp"

using mgsim::validate::least_squares;

TEST_CASE("least squares recovers an exact line") {
  // y = 2 + 3x at x = 1, 2, 4: the fit is exact, so c = (2, 3) and R^2 = 1.
  Eigen::MatrixXd x(3, 2);
  x << 1, 1, 1, 2, 1, 4;
  Eigen::VectorXd y(3);
  y << 5, 8, 14;
  const auto f = least_squares(x, y, Eigen::VectorXd::Ones(3), "line", {"t", 0, 0});
  CHECK(f.coefficients[0] == Approx(2.0).margin(1e-12));
  CHECK(f.coefficients[1] == Approx(3.0).margin(1e-12));
  CHECK(f.r2 == Approx(1.0));
  CHECK(f.points == 3);
}

TEST_CASE("weights choose which residuals matter") {
  // A constant through y = 1, 1, 4: unweighted, the mean 2; weighted 1/y (relative error), the
  // minimum of sum (c/y - 1)^2 is c = sum(1/y) / sum(1/y^2) = 2.25 / 2.0625 = 1.0909.
  Eigen::MatrixXd x = Eigen::MatrixXd::Ones(3, 1);
  Eigen::VectorXd y(3);
  y << 1, 1, 4;
  CHECK(least_squares(x, y, Eigen::VectorXd::Ones(3), "c", {"t", 0, 0}).coefficients[0] ==
        Approx(2.0));
  const Eigen::VectorXd w = y.cwiseInverse();
  CHECK(least_squares(x, y, w, "c", {"t", 0, 0}).coefficients[0] == Approx(2.25 / 2.0625));
}

TEST_CASE("a fit that cannot be done says why") {
  Eigen::MatrixXd two(2, 2);
  two << 1, 1, 1, 2;
  CHECK_THROWS_WITH(least_squares(two, Eigen::VectorXd::Ones(2), Eigen::VectorXd::Ones(2),
                                  "t = a + bytes/b", {"peer_ce.csv", 0, 0}),
                    Catch::Contains("peer_ce.csv") &&
                        Catch::Contains("cannot fit t = a + bytes/b") &&
                        Catch::Contains("2 point(s) for 2 coefficient(s)"));
  Eigen::MatrixXd same(3, 2);
  same << 1, 7, 1, 7, 1, 7;  // every x equal: the slope is undetermined
  CHECK_THROWS_WITH(least_squares(same, Eigen::VectorXd::Ones(3), Eigen::VectorXd::Ones(3), "line",
                                  {"f.csv", 0, 0}),
                    Catch::Contains("degenerate"));
}
