// validate/calibration.hpp — turning microbenchmarks into a cluster config. The samples
// (measured by a backend's worker) are: ping-pong one-way times over a size sweep, times of
// several pairs exchanging at once (the node's shared capacity: memory bus, copy engines),
// and reduction times. The fit is least squares on t = alpha + beta b weighted by 1/t^2
// (relative error: every decade of sizes counts alike); gamma is the plain least-squares
// slope of the reduction times (large, out-of-cache sizes dominate); the shared capacity is the best aggregate rate the concurrent test
// reached. The result is a topology-form YAML (configs/README.md): one node, one link class,
// with the fit's residuals as comments. Pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace collsim {

struct SizeTime {
  std::uint64_t bytes = 0;
  double seconds = 0;
};

struct ConcurrentSample {
  std::uint32_t flows = 0;  // transfers in flight at once, each of `bytes`
  std::uint64_t bytes = 0;
  double seconds = 0;       // until the last one finished
  double aggregate_Bps() const { return seconds > 0 ? double(flows) * double(bytes) / seconds : 0; }
};

// What a worker measures. mpi: ping-pong between two processes, pairwise exchanges, the
// host reduction loop. cuda: device-to-device copies between two virtual ranks' buffers on
// one stream, copies on several streams at once (the GPU's memory and copy engines shared),
// the reduction kernel; `device` then names the GPU.
struct CalibrationSamples {
  std::vector<SizeTime> ping_pong;   // one-way time per message size
  std::vector<ConcurrentSample> concurrent;
  std::vector<SizeTime> reduction;   // bytes reduced (dst += src), time
  std::string library;               // MPI library / CUDA runtime and driver version line
  std::string device;                // the GPU's name (cuda); empty for mpi
};

struct CalibrationPlan {
  std::uint64_t max_bytes = 64ull << 20;
  double seconds_per_point = 0.05;  // repetitions are chosen to take about this long
};

struct LinearFit {
  double intercept = 0, slope = 0;
  double rms_relative_residual = 0, max_relative_residual = 0;
};

// Least squares t = intercept + slope b, each point weighted by 1/t^2. Needs two sizes.
LinearFit fit_relative(const std::vector<SizeTime>& points);
// Plain least squares: the largest sizes dominate (used for gamma, where the reductions that
// cost time are the large, out-of-cache ones).
LinearFit fit_absolute(const std::vector<SizeTime>& points);

struct Calibration {
  CalibrationSamples samples;
  LinearFit link;          // alpha = intercept, beta = slope
  double gamma_s_per_byte = 0;
  LinearFit reduction;
  double shared_Bps = 0;   // 0: no contention seen (aggregate grew with flows)
};

Calibration fit_calibration(const CalibrationSamples& samples);

// The cluster YAML for `ranks` ranks on one node; `name` is the platform's.
std::string calibrated_config_yaml(const Calibration& c, const std::string& name, std::uint32_t ranks);

nlohmann::json to_json(const CalibrationSamples& s);
CalibrationSamples calibration_samples_from_json(const nlohmann::json& j);

}  // namespace collsim
