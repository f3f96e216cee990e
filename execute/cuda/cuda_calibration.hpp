// execute/cuda/cuda_calibration.hpp — the microbenchmarks behind `collsim calibrate --backend
// cuda`, in the GPU worker, for P virtual ranks (rank r on GPU r % devices, as the cuda
// executor places them): copies of 4 B .. max_bytes from rank 0's buffer to rank 1's on one
// stream (alpha and beta of the "link") and the reduction kernel over 4 KiB .. max_bytes
// (gamma), each timed alone on the GPU's clock (events around it); 2, 4, ... copies of 64 MiB
// on as many streams at once (the memory and copy engines the virtual ranks share), on the
// host's clock; and what the one host thread that drives the ranks pays: per transfer issued
// as the executor issues it, and to synchronize every stream after the last (host_issue,
// host_sync). Touches device memory and streams it owns while it runs.
#pragma once

#include "collectives/schedule.hpp"
#include "execute/calibration_samples.hpp"

namespace collsim {

CalibrationSamples measure_cuda_calibration(const CalibrationPlan& plan, Rank ranks);

}  // namespace collsim
