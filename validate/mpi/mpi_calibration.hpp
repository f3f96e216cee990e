// validate/mpi/mpi_calibration.hpp — the microbenchmarks behind `collsim calibrate --backend
// mpi`, collective over MPI_COMM_WORLD (at least 2 ranks): ping-pong between ranks 0 and 1,
// the same two exchanging (both sending at once) at the ping-pong's sizes, concurrent
// pairwise exchanges among 2, 4, ... ranks, and the reduction loop and a large memcpy on
// rank 0.
// Touches host buffers and MPI_COMM_WORLD.
#pragma once

#include "validate/calibration.hpp"

namespace collsim {

// Complete on rank 0.
CalibrationSamples measure_mpi_calibration(const CalibrationPlan& plan);

// The ping-pong one-way time between ranks 0 and 1 at each of `sizes`, measured as the
// calibration measures it (its median of rounds), about `seconds` per size; on every rank.
// `buffer` holds the largest size (the caller keeps it between probes).
std::vector<double> probe_ping_pong(std::vector<char>& buffer, const std::vector<std::uint64_t>& sizes, double seconds);

}  // namespace collsim
