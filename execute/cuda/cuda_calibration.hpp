// execute/cuda/cuda_calibration.hpp — the microbenchmarks behind `collsim calibrate --backend
// cuda`, in the GPU worker, for P virtual ranks (rank r on GPU r % devices, as the cuda
// executor places them): copies of 4 B .. max_bytes from rank 0's buffer to rank 1's on one
// stream (alpha and beta of the "link"), 2, 4, ... copies on as many streams at once (the
// memory and copy engines the virtual ranks share), and the reduction kernel over
// 4 KiB .. max_bytes (gamma). Times are host-clock, as the executor's: enqueue back-to-back
// repetitions, wait, divide. Touches device memory and streams it owns while it runs.
#pragma once

#include "collectives/schedule.hpp"
#include "execute/calibration_samples.hpp"

namespace collsim {

CalibrationSamples measure_cuda_calibration(const CalibrationPlan& plan, Rank ranks);

}  // namespace collsim
