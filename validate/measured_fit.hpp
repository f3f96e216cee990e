// validate/measured_fit.hpp — an nccl-tests log (validate/nccl_tests_log.hpp) set against a
// cluster: its sizes predicted on the cluster (validate --measured), and the efficiency and
// alpha of the link classes its collective crosses fitted to it (calibrate --measured), so
// that a user can calibrate on the one or two nodes they own and predict many.
//
// The fit: least squares on the relative error (predicted / measured - 1, so that every size
// counts alike, as calibrate's ping-pong fit weighs by 1/t^2), over each crossed class's
// efficiency and alpha, by Gauss-Newton with Levenberg damping and finite differences on the
// engine's own predictions (flow on a topology): the fitted numbers are those the engine
// needs, contention and pipelining included. A parameter the log's times do not depend on (a
// class whose alpha is never a route's largest, an intra-node class behind a slower NIC) is
// kept at the cluster's value and said so. A one-node log crosses the intra-node classes
// only; a two-node log the NIC and fabric classes too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/prediction.hpp"
#include "topologies/cluster_config.hpp"
#include "validate/nccl_tests_log.hpp"

namespace collsim {

// The cluster with `ranks` ranks placed by its own placement (a topology) or in whole nodes
// (a flat network). Throws Error where they do not fit.
ClusterConfig cluster_with_ranks(ClusterConfig cluster, Rank ranks);

// The log's distinct sizes (collsim's N), predicted on the cluster for its collective: the
// flow engine on a topology, the analytic one on a flat network. `algorithms`: names, "all"
// or "auto" (the fastest per size). Throws Error for a size 0 line or a root other than 0.
std::vector<PredictionRecord> predict_log_sizes(const ClusterConfig& cluster, const NcclTestsLog& log,
                                                const std::vector<std::string>& algorithms);

struct FittedLinkClass {
  std::string name;
  double efficiency_before = 1, efficiency = 1;
  double alpha_before_s = 0, alpha_s = 0;
  bool efficiency_fitted = false, alpha_fitted = false;  // false: the times do not depend on it
};

struct MeasuredPoint {
  std::size_t line = 0;  // in the log
  std::uint64_t bytes = 0;
  double measured_s = 0, before_s = 0, fitted_s = 0;
};

// Above this rms relative error after the fit, the model does not describe the log (another
// algorithm ran than the one fitted, or the cluster is not the log's system): the numbers
// fitted are not to be trusted, and calibrate says so.
constexpr double kMaxFittedRmsError = 0.10;

struct MeasuredFit {
  std::vector<FittedLinkClass> classes;  // those the collective crosses
  std::vector<MeasuredPoint> points;
  double rms_before = 0, rms_after = 0;  // relative error over the points
  std::size_t iterations = 0;
  std::string yaml;  // the fitted cluster, with the fit and its residuals as comments
};

struct MeasuredFitRequest {
  std::string cluster_yaml;    // the cluster's YAML text (a --config file or a preset)
  std::string cluster_origin;  // for errors and the YAML's comments ("preset dgx-h100")
  std::string log_name;        // the log's file, for the YAML's comments
  std::string algorithm = "auto";  // one name, or "auto"
};

// Throws Error when the cluster has no topology (nothing to fit) or the log cannot be
// predicted on it.
MeasuredFit fit_to_measured(const NcclTestsLog& log, const MeasuredFitRequest& request);

}  // namespace collsim
