// validate/execution_runs.hpp — the executions collsim asks of a backend's workers: a job
// of algorithms x sizes (measurements back), and a calibration (samples back). Both go
// through launcher.hpp; this file only checks the request and decodes the answer.
#pragma once

#include <vector>

#include "validate/calibration.hpp"
#include "validate/launcher.hpp"
#include "validate/measurement.hpp"

namespace collsim {

// Checks the job (backend, algorithms, sizes) before any process starts. Throws Error.
void check_job(const ExecutionJob& job);
std::vector<Measurement> execute(const ExecutionJob& job, const LaunchOptions& launch);

struct CalibrationJob {
  std::string backend = "mpi";
  Rank ranks = 2;                      // at least 2; more ranks test more concurrent pairs
  std::uint64_t max_bytes = 64ull << 20;
  double seconds_per_point = 0.05;
  std::uint32_t repeats = kDefaultRepeats;  // launches, each measuring every point once more
};
CalibrationSamples measure_calibration(const CalibrationJob& job, const LaunchOptions& launch);

}  // namespace collsim
