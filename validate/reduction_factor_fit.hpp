// validate/reduction_factor_fit.hpp — a reduction sweep as the cluster's reduction_factors
// (topologies/topology.hpp; configs/README.md): each measured size's seconds per byte over
// gamma, a row from that size on. A CPU reduces data in its caches faster than data from DRAM
// (this project's node: 2.1e-11 s/B at 64 KiB, 6.5e-11 s/B at 64 MiB), which one gamma, fitted
// where the large reductions dominate, prices at the DRAM rate. The sweep doubles its sizes, so
// every power of two a collective reduces is a measured point; between two points a reduction
// takes the smaller one's pace. Pure.
#pragma once

#include <cstdint>
#include <vector>

#include "validate/calibration.hpp"

namespace collsim {

struct FittedReductionFactor {
  std::uint64_t from_bytes = 0;  // 0 for the first row, else its measured size
  std::uint64_t measured_bytes = 0;
  double gamma = 1;              // the factor on gamma_s_per_byte
};

// One row per measured size, by size (the first from 0); empty for an empty sweep. Throws
// Error when gamma is not above 0 or a point's time is not.
std::vector<FittedReductionFactor> fit_reduction_factors(const std::vector<SizeTime>& sweep, double gamma_s_per_byte);

// The smallest seconds per byte any row gives (gamma x its factor): what a reduction alone
// reached at its fastest, which the rank's memory must let through.
double fastest_reduction_s_per_byte(const std::vector<FittedReductionFactor>& rows, double gamma_s_per_byte);

}  // namespace collsim
