// validate/execution_runs.cpp — jobs to workers and back.
#include "validate/execution_runs.hpp"

#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "execute/backends.hpp"
#include "execute/launcher.hpp"

namespace collsim {

namespace {

// An in-network schedule needs a backend that emulates its switches.
void require_emulation(const BackendEntry& backend, const Schedule& schedule) {
  if (schedule.info().reducers == 0 || backend.emulates_switches) return;
  throw Error(fmt::format("{} reduces in switches, which backend '{}' cannot emulate (one process drives its ranks): "
                          "run it with --backend mpi, where each switch is one more process",
                          schedule.info().algorithm, backend.name));
}

}  // namespace

Rank check_job(const ExecutionJob& job) {
  const BackendEntry& backend = find_backend(job.backend);
  if (job.request.ranks < 1) throw Error("--ranks must be at least 1");
  if (job.request.ranks > kMaxExecutedRanks)
    throw Error(fmt::format("{} ranks: an execution starts at most {}", job.request.ranks, kMaxExecutedRanks));
  if (job.request.sizes.empty()) throw Error("no sizes to run");
  // Generates and checks every schedule once here, so bad requests fail before launching.
  Rank processes = job.request.ranks;
  for (const std::string& algorithm : expand_algorithms(job.request))
    for (std::uint64_t bytes : job.request.sizes) {
      const Schedule schedule = executed_schedule(job.request, algorithm, bytes);
      require_emulation(backend, schedule);
      processes = std::max(processes, executed_processes(schedule));
    }
  if (processes > kMaxExecutedRanks)
    throw Error(fmt::format("{} ranks and {} switch reducers: an execution starts at most {} processes",
                            job.request.ranks, processes - job.request.ranks, kMaxExecutedRanks));
  return processes;
}

std::vector<Measurement> execute(const ExecutionJob& job, const LaunchOptions& launch) {
  const Rank processes = check_job(job);
  nlohmann::json request = to_json(job);
  request["mode"] = "run";
  const nlohmann::json answer = launch_worker({job.backend, processes, request, launch, job.request.ranks});
  std::vector<Measurement> measurements;
  for (const nlohmann::json& m : answer.at("measurements")) measurements.push_back(measurement_from_json(m));
  return measurements;
}

namespace {

// The cases of `measured` that drifted, by size.
std::map<std::uint64_t, std::vector<std::string>> drifted_by_size(const std::vector<ProbedMeasurement>& measured) {
  std::map<std::uint64_t, std::vector<std::string>> drifted;
  for (const ProbedMeasurement& p : measured)
    if (!machine_steady(p.drift)) drifted[p.measurement.bytes].push_back(p.measurement.algorithm);
  return drifted;
}

std::vector<ProbedMeasurement> probed(const std::vector<Measurement>& measurements,
                                      std::span<const std::uint64_t> probe_bytes, std::span<const SizeTime> ping_pong) {
  std::vector<ProbedMeasurement> out;
  for (const Measurement& m : measurements) out.push_back({m, machine_drift(m, probe_bytes, ping_pong)});
  return out;
}

}  // namespace

std::vector<ProbedMeasurement> execute_probed(ExecutionJob job, const LaunchOptions& launch,
                                              std::span<const SizeTime> ping_pong, bool retry,
                                              const std::function<void(std::uint64_t, std::size_t)>& on_retry) {
  return measure_until_steady(
      std::move(job), ping_pong, retry, [&](const ExecutionJob& j) { return execute(j, launch); }, on_retry);
}

std::vector<ProbedMeasurement> measure_until_steady(ExecutionJob job, std::span<const SizeTime> ping_pong, bool retry,
                                                    const JobRunner& run,
                                                    const std::function<void(std::uint64_t, std::size_t)>& on_retry) {
  job.probe_bytes = probe_sizes(ping_pong);
  std::vector<ProbedMeasurement> measured = probed(run(job), job.probe_bytes, ping_pong);
  for (int attempt = 1; retry && attempt < kMeasureAttempts; ++attempt) {
    const auto drifted = drifted_by_size(measured);
    if (drifted.empty()) break;
    for (const auto& [bytes, algorithms] : drifted) {
      if (on_retry) on_retry(bytes, algorithms.size());
      ExecutionJob again = job;
      again.request.sizes = {bytes};
      again.request.algorithms = algorithms;
      for (ProbedMeasurement& next : probed(run(again), job.probe_bytes, ping_pong))
        for (ProbedMeasurement& kept : measured)
          if (kept.measurement.algorithm == next.measurement.algorithm && kept.measurement.bytes == bytes &&
              next.drift < kept.drift)
            kept = std::move(next);
    }
  }
  return measured;
}

namespace {

std::string calibrated_backends() {
  std::vector<std::string_view> names;
  for (const BackendEntry& b : backend_table())
    if (b.calibrates) names.push_back(b.name);
  return fmt::format("{}", fmt::join(names, " or "));
}

constexpr std::uint64_t kMinCalibrationBytes = 16 << 10;

}  // namespace

void check_calibration_job(const CalibrationJob& job) {
  if (!find_backend(job.backend).calibrates)
    throw Error(fmt::format("backend '{}' has no calibration of its own: calibrate with {}, whose measured link and "
                            "reduction numbers it runs on",
                            job.backend, calibrated_backends()));
  if (job.ranks < 2) throw Error("calibration needs at least 2 ranks");
  // The reduction and exchange sweeps run from 4K to --max-bytes by doubling, and a fit needs
  // more than two sizes to trust: so at least 16K, checked before anything is launched.
  if (job.max_bytes < kMinCalibrationBytes)
    throw Error(fmt::format("--max-bytes must be at least 16K (got {}): the reduction is fitted over 4K .. --max-bytes, "
                            "which needs three sizes or more",
                            format_size(job.max_bytes)));
  if (job.repeats < 1) throw Error("--repeats must be at least 1");
}

CalibrationSamples measure_calibration(const CalibrationJob& job, const LaunchOptions& launch) {
  check_calibration_job(job);
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
