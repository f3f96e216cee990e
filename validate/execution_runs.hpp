// validate/execution_runs.hpp — the executions collsim asks of a backend's workers: a job
// of algorithms x sizes (measurements back), and a calibration (samples back). Both go
// through launcher.hpp; this file only checks the request and decodes the answer.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "execute/launcher.hpp"
#include "execute/measurement.hpp"
#include "validate/calibration.hpp"
#include "validate/machine_drift.hpp"

namespace collsim {

// Checks the job (backend, algorithms, sizes) before any process starts, and returns the
// processes it needs: its ranks, plus the largest schedule's switch reducers, each emulated
// by a process of its own (execution_plan.hpp). Throws Error, also for an in-network
// schedule on a backend that does not emulate switches.
Rank check_job(const ExecutionJob& job);
std::vector<Measurement> execute(const ExecutionJob& job, const LaunchOptions& launch);

// A case measured between ping-pong probes, and how far they moved (machine_drift.hpp).
struct ProbedMeasurement {
  Measurement measurement;
  double drift = kNoProbe;
};

// Launches in all that a case may take to be measured on the machine as calibrated.
inline constexpr int kMeasureAttempts = 3;

// Executes `job` with ping-pong probes around every case (probe_sizes of `ping_pong`); with
// `retry`, then runs again the cases whose probes drifted beyond kDriftTolerance, in a launch
// per size, up to kMeasureAttempts launches for each, keeping the measurement whose probes sat
// closest to the calibration. `on_retry` hears each such launch (size, cases). Without
// `retry` (oversubscribed ranks, whose probes time the scheduler) it runs once.
std::vector<ProbedMeasurement> execute_probed(ExecutionJob job, const LaunchOptions& launch,
                                              std::span<const SizeTime> ping_pong, bool retry,
                                              const std::function<void(std::uint64_t, std::size_t)>& on_retry);
// The same with `run` as the launch (execute(job, launch) above; tests give their own).
using JobRunner = std::function<std::vector<Measurement>(const ExecutionJob&)>;
std::vector<ProbedMeasurement> measure_until_steady(ExecutionJob job, std::span<const SizeTime> ping_pong, bool retry,
                                                    const JobRunner& run,
                                                    const std::function<void(std::uint64_t, std::size_t)>& on_retry);

struct CalibrationJob {
  std::string backend = "mpi";
  Rank ranks = 2;                      // at least 2; more ranks test more concurrent pairs
  std::uint64_t max_bytes = 64ull << 20;
  double seconds_per_point = 0.05;
  std::uint32_t repeats = kDefaultRepeats;  // launches, each measuring every point once more
};
CalibrationSamples measure_calibration(const CalibrationJob& job, const LaunchOptions& launch);
// What measure_calibration refuses before launching (a backend without calibration, fewer
// than 2 ranks, --max-bytes under 16K, no repeats), for callers that print before it.
void check_calibration_job(const CalibrationJob& job);

}  // namespace collsim
