// validate/reduction_factor_fit.cpp — the reduction sweeps as reduction_factors (validate/calibration.hpp).
#include "validate/calibration.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "base/error.hpp"

namespace collsim {

// The config reader's bounds on a factor (topologies/cluster_config.cpp).
constexpr double kMaxReductionFactor = 1e4;

std::vector<FittedReductionFactor> fit_reduction_factors(const std::vector<SizeTime>& sweep, double gamma_s_per_byte) {
  if (sweep.empty()) return {};
  if (!(gamma_s_per_byte > 0)) throw Error("reduction factors need a gamma above 0");
  std::vector<FittedReductionFactor> rows;
  for (const SizeTime& p : sweep) {
    if (!(p.seconds > 0) || p.bytes == 0)
      throw Error(fmt::format("reduction sweep: the point at {} bytes has no time", p.bytes));
    const double factor = p.seconds / (double(p.bytes) * gamma_s_per_byte);
    rows.push_back({rows.empty() ? 0 : p.bytes, p.bytes, std::min(factor, kMaxReductionFactor)});
  }
  return rows;
}

double fastest_reduction_s_per_byte(const std::vector<FittedReductionFactor>& rows, double gamma_s_per_byte) {
  double fastest = std::numeric_limits<double>::infinity();
  for (const FittedReductionFactor& r : rows) fastest = std::min(fastest, r.gamma * gamma_s_per_byte);
  return fastest;
}

}  // namespace collsim
