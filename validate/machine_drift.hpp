// validate/machine_drift.hpp — was a case measured on the machine the calibration saw? Each
// case of `validate --backend mpi` is bracketed by ping-pong probes between ranks 0 and 1
// (ExecutionJob::probe_bytes), timed as the calibration times its ping-pong; of `validate
// --backend cuda`, by probes of the host's issue of one transfer (execute/device/
// host_issue_probe.hpp), against the calibration's host_issue (one point, one probe); a case whose
// probes moved beyond kDriftTolerance from the calibration's times at those sizes ran on a
// machine of another speed (a virtual machine's cores placed elsewhere on the host, a
// neighbour's load), which no model calibrated minutes earlier can predict. Pure.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "execute/measurement.hpp"
#include "validate/calibration.hpp"

namespace collsim {

// How far a probe may move from the calibration and the machine still count as the one
// calibrated: wider than one speed's spread between launches, narrower than the jumps of a
// virtual machine that switches speeds (validate/README.md has both).
inline constexpr double kDriftTolerance = 0.25;

inline constexpr double kNoProbe = std::numeric_limits<double>::quiet_NaN();

// The probe sizes for a calibration's ping-pong sweep: its points nearest 2 KiB (start-up
// bound, below the shared-memory eager limit), 1 MiB (bandwidth bound, in cache) and 16 MiB
// (out of the caches), each once. Empty if the sweep is.
std::vector<std::uint64_t> probe_sizes(std::span<const SizeTime> ping_pong);

// The largest |probe / calibrated - 1| over the case's probes, before and after it; kNoProbe
// (NaN) when it has none. `probe_bytes` are the sizes the probes timed, in order; each must be
// a point of `ping_pong` (Error otherwise).
double machine_drift(const Measurement& m, std::span<const std::uint64_t> probe_bytes,
                     std::span<const SizeTime> ping_pong);

// Within kDriftTolerance (a case without probes is not known to have drifted).
inline bool machine_steady(double drift) { return !(drift > kDriftTolerance); }

}  // namespace collsim
