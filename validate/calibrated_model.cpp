// validate/calibrated_model.cpp — the calibrated YAML costed by the cost rule, point by point.
#include "validate/calibrated_model.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "base/units.hpp"
#include "sim/cost_rule.hpp"
#include "topologies/cluster_config.hpp"

namespace collsim {
namespace {

// One message from rank 0 to rank 1 of the loaded config, as every engine costs it alone.
double model_time(const Topology& t, std::uint64_t bytes) {
  std::vector<LinkId> route;
  t.route(0, 1, 0, route);
  const RouteCost cost = route_cost(t.network, route, bytes, 1, simple_protocol());
  return cost.startup_s + double(bytes) / cost.bandwidth_Bps;
}

}  // namespace

std::string CheckedCalibration::verdict() const {
  return fmt::format("model within the measured spread at {} of {} ping-pong sizes", within, points);
}

CheckedCalibration checked_calibration_yaml(const Calibration& c, const std::string& name, std::uint32_t ranks) {
  CheckedCalibration out;
  out.yaml = calibrated_config_yaml(c, name, ranks);
  const ClusterConfig cluster = parse_cluster_config(out.yaml, "calibrated config");  // what we write must load
  std::string lines;
  for (const SizeTime& p : c.samples.ping_pong) {
    const double model = model_time(*cluster.topology, p.bytes);
    const bool inside = model_within_spread(p, model);
    out.within += inside;
    ++out.points;
    lines += fmt::format("#   {:>6}: model {:>10} ({:+.1f}% of the median){}\n", format_size(p.bytes), format_seconds(model),
                         100 * (model - p.seconds) / p.seconds, inside ? "" : ": OUTSIDE the measured spread");
  }
  out.yaml += fmt::format(
      "# Held to its measurements: each ping-pong size costed by collsim's cost rule (sim/cost_rule.cpp) between\n"
      "# ranks 0 and 1 of this very file; {}.\n{}",
      out.verdict(), lines);
  return out;
}

}  // namespace collsim
