// Linear least squares for calibration (Eigen): y ~ X c, optionally weighted.
//
// Weights multiply each row (residual_i x w_i), so w_i = 1 / y_i fits relative error, which is
// what a time model spanning 1 KiB to 1 GiB needs (unweighted, the largest sizes alone would set
// the intercept). R^2 is reported on the unweighted data: 1 - sum (y - X c)^2 / sum (y - mean)^2,
// and 1 when y is constant and fitted exactly.
//
// Contract: a fit needs more points than coefficients (one degree of freedom at least) and a
// full-rank X (column-pivoting QR decides the rank); otherwise it throws sim::ConfigError at
// `where` saying which fit could not be done and why. Ignores: outlier rejection, uncertainties.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "sim/config.hpp"

namespace mgsim::validate {

struct FitResult {
  std::vector<double> coefficients;  // one per column of X
  double r2 = 0;
  std::size_t points = 0;
};

// REQUIRES: x.rows() == y.size() == w.size(); `what` names the fit in messages ("t = a + bytes/b").
FitResult least_squares(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                        const Eigen::VectorXd& w, const std::string& what,
                        const sim::SourceLocation& where);

}  // namespace mgsim::validate
