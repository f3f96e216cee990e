// validate/execution_runs.cpp — jobs to workers and back.
#include "validate/execution_runs.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collectives/error.hpp"
#include "validate/backends.hpp"
#include "validate/launcher.hpp"

namespace collsim {

void check_job(const ExecutionJob& job) {
  find_backend(job.backend);
  if (job.request.ranks < 1) throw Error("--ranks must be at least 1");
  if (job.request.sizes.empty()) throw Error("no sizes to run");
  // Generates and checks every schedule once here, so bad requests fail before launching.
  for (const std::string& algorithm : expand_algorithms(job.request))
    for (std::uint64_t bytes : job.request.sizes) executed_schedule(job.request, algorithm, bytes);
}

std::vector<Measurement> execute(const ExecutionJob& job, const LaunchOptions& launch) {
  check_job(job);
  nlohmann::json request = to_json(job);
  request["mode"] = "run";
  const nlohmann::json answer = launch_worker({job.backend, job.request.ranks, request, launch});
  std::vector<Measurement> measurements;
  for (const nlohmann::json& m : answer.at("measurements")) measurements.push_back(measurement_from_json(m));
  return measurements;
}

namespace {

std::string calibrated_backends() {
  std::vector<std::string_view> names;
  for (const BackendEntry& b : backend_table())
    if (b.calibrates) names.push_back(b.name);
  return fmt::format("{}", fmt::join(names, " or "));
}

}  // namespace

CalibrationSamples measure_calibration(const CalibrationJob& job, const LaunchOptions& launch) {
  if (!find_backend(job.backend).calibrates)
    throw Error(fmt::format("backend '{}' has no calibration of its own: calibrate with {}, whose measured link and "
                            "reduction numbers it runs on",
                            job.backend, calibrated_backends()));
  if (job.ranks < 2) throw Error("calibration needs at least 2 ranks");
  if (job.max_bytes < 4096) throw Error("--max-bytes must be at least 4K");
  if (job.repeats < 1) throw Error("--repeats must be at least 1");
  // Each repeat is a launch of its own (calibration.hpp says why); together they take
  // about seconds_per_point per point.
  const nlohmann::json request{{"mode", "calibrate"},
                               {"backend", job.backend},
                               {"ranks", job.ranks},
                               {"max_bytes", job.max_bytes},
                               {"seconds_per_point", job.seconds_per_point / job.repeats}};
  std::vector<CalibrationSamples> runs;
  for (std::uint32_t r = 0; r < job.repeats; ++r) {
    const nlohmann::json answer = launch_worker({job.backend, job.ranks, request, launch});
    runs.push_back(calibration_samples_from_json(answer.at("calibration")));
  }
  return merge_repeats(runs);
}

}  // namespace collsim
