#include "validate/fit.hpp"

#include <fmt/format.h>

#include "sim/check.hpp"

namespace mgsim::validate {

FitResult least_squares(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                        const Eigen::VectorXd& w, const std::string& what,
                        const sim::SourceLocation& where) {
  MGSIM_CHECK(x.rows() == y.size() && y.size() == w.size(), "fit '{}': {} rows, {} y, {} w", what,
              x.rows(), y.size(), w.size());
  const auto n = x.rows();
  const auto k = x.cols();
  if (n <= k)
    throw sim::ConfigError(where, fmt::format("cannot fit {}: {} point(s) for {} coefficient(s); "
                                              "need at least {}",
                                              what, n, k, k + 1));
  const Eigen::MatrixXd xw = w.asDiagonal() * x;
  const Eigen::VectorXd yw = w.asDiagonal() * y;
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(xw);
  if (qr.rank() < k)
    throw sim::ConfigError(where, fmt::format("cannot fit {}: the {} points are degenerate (rank "
                                              "{} < {} coefficients: every row has the same x?)",
                                              what, n, qr.rank(), k));
  const Eigen::VectorXd c = qr.solve(yw);
  const Eigen::VectorXd residual = y - x * c;
  const double mean = y.mean();
  const double ss_tot = (y.array() - mean).square().sum();
  const double ss_res = residual.squaredNorm();
  FitResult out;
  out.coefficients.assign(c.data(), c.data() + c.size());
  out.r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : (ss_res == 0 ? 1.0 : 0.0);
  out.points = static_cast<std::size_t>(n);
  return out;
}

}  // namespace mgsim::validate
