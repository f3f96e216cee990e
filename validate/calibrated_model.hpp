// validate/calibrated_model.hpp — a calibrated cluster YAML held to its own measurements: the
// YAML is loaded like any config and each ping-pong size costed by the one cost rule
// (sim/cost_rule.hpp) between two of its ranks, beside the measured median and spread. The
// verdict (how many points the model predicts within their spread, and which it misses) is
// written into the YAML as comments and returned for the command's summary line. Touches
// nothing but its arguments.
#pragma once

#include <cstdint>
#include <string>

#include "validate/calibration.hpp"

namespace collsim {

struct CheckedCalibration {
  std::string yaml;        // calibrated_config_yaml plus the check, as comments
  std::size_t points = 0;  // ping-pong sizes checked
  std::size_t within = 0;  // of them, predicted within their measured spread
  std::string verdict() const;  // "model within the spread at 13 of 14 ping-pong sizes"
};

// Throws Error when the YAML does not load (a bug: what collsim writes must load).
CheckedCalibration checked_calibration_yaml(const Calibration& c, const std::string& name, std::uint32_t ranks);

}  // namespace collsim
