// validate/calibration.cpp — least-squares fits and the calibrated cluster YAML.
#include "validate/calibration.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "collectives/error.hpp"
#include "collectives/units.hpp"

namespace collsim {

namespace {

LinearFit weighted_fit(const std::vector<SizeTime>& points, bool relative) {
  if (points.size() < 2) throw Error("a fit needs at least two sizes");
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const SizeTime& p : points) {
    const double w = relative ? 1.0 / (p.seconds * p.seconds) : 1.0, x = double(p.bytes), y = p.seconds;
    sw += w, sx += w * x, sy += w * y, sxx += w * x * x, sxy += w * x * y;
  }
  const double det = sw * sxx - sx * sx;
  if (det <= 0) throw Error("a fit needs at least two different sizes");
  LinearFit fit;
  fit.slope = (sw * sxy - sx * sy) / det;
  fit.intercept = (sy - fit.slope * sx) / sw;
  double squares = 0;
  for (const SizeTime& p : points) {
    const double residual = (fit.intercept + fit.slope * double(p.bytes) - p.seconds) / p.seconds;
    squares += residual * residual;
    fit.max_relative_residual = std::max(fit.max_relative_residual, std::abs(residual));
  }
  fit.rms_relative_residual = std::sqrt(squares / double(points.size()));
  return fit;
}

}  // namespace

LinearFit fit_relative(const std::vector<SizeTime>& points) { return weighted_fit(points, true); }
LinearFit fit_absolute(const std::vector<SizeTime>& points) { return weighted_fit(points, false); }

Calibration fit_calibration(const CalibrationSamples& samples) {
  Calibration c;
  c.samples = samples;
  c.link = fit_relative(samples.ping_pong);
  if (c.link.slope <= 0) throw Error("ping-pong times do not grow with size: cannot fit a bandwidth");
  c.link.intercept = std::max(c.link.intercept, 0.0);
  c.reduction = fit_absolute(samples.reduction);
  c.gamma_s_per_byte = std::max(c.reduction.slope, 0.0);
  // Shared capacity: the best aggregate rate of the concurrent test, when it stays below what
  // independent links would give (flows x one link's bandwidth).
  const double link_Bps = 1.0 / c.link.slope;
  for (const ConcurrentSample& s : samples.concurrent)
    if (s.flows > 1 && s.aggregate_Bps() < 0.9 * s.flows * link_Bps) c.shared_Bps = std::max(c.shared_Bps, s.aggregate_Bps());
  return c;
}

namespace {

std::string residual_comments(const std::vector<SizeTime>& points, const LinearFit& fit, const char* indent) {
  std::string out;
  for (const SizeTime& p : points) {
    const double model = fit.intercept + fit.slope * double(p.bytes);
    out += fmt::format("{}#   {:>6}: measured {:>10}, fit {:>10} ({:+.1f}%)\n", indent, format_size(p.bytes),
                       format_seconds(p.seconds), format_seconds(model), 100 * (model - p.seconds) / p.seconds);
  }
  return out;
}

std::string concurrent_comments(const Calibration& c) {
  std::string out;
  for (const ConcurrentSample& s : c.samples.concurrent)
    out += fmt::format("  #   {} flows x {}: {} -> {:.3f} GB/s in all\n", s.flows, format_size(s.bytes),
                       format_seconds(s.seconds), s.aggregate_Bps() * 1e-9);
  return out;
}

// What one calibrated node is: processes over shared memory (mpi), or virtual ranks sharing
// one GPU (cuda).
struct NodeWording {
  std::string header, description, link_class, measured_as, shared_as;
};

NodeWording wording_of(const Calibration& c, std::uint32_t ranks) {
  if (c.samples.device.empty())
    return {"one node, every rank a process, messages through\n# shared memory",
            fmt::format("{} ranks on one node, intra-node shared memory, calibrated", ranks), "shm", "ping-pong one-way time",
            "concurrent exchanges (the node's shared capacity: memory bus and cores)"};
  return {fmt::format("{} virtual ranks on one GPU ({}),\n# copies through its memory", ranks, c.samples.device),
          fmt::format("{} virtual ranks on one {}, calibrated", ranks, c.samples.device), "hbm",
          "device-to-device copy time on one stream",
          "copies on several streams at once (the GPU's memory and copy engines, shared)"};
}

}  // namespace

std::string calibrated_config_yaml(const Calibration& c, const std::string& name, std::uint32_t ranks) {
  const NodeWording w = wording_of(c, ranks);
  std::string y = fmt::format(
      "# Calibrated by `collsim calibrate` ({}): {}.\n"
      "# Numbers are fits to measurements on this machine, not datasheet values.\n"
      "name: {}\n"
      "description: {}\n"
      "link_classes:\n"
      "  {}:\n"
      "    # {} t = alpha + b / bandwidth, least squares weighted by 1/t^2:\n"
      "    # rms relative residual {:.1f}%, largest {:.1f}%\n{}"
      "    bandwidth_Bps: {:.6e}\n"
      "    latency_s: 0.0\n"
      "    alpha_s: {:.6e}\n"
      "nodes:\n"
      "  count: 1\n"
      "  gpus_per_node: {}\n"
      "  switch: pcie\n"
      "  gpu_link: {}\n",
      c.samples.library, w.header, name, w.description, w.link_class, w.measured_as, 100 * c.link.rms_relative_residual,
      100 * c.link.max_relative_residual, residual_comments(c.samples.ping_pong, c.link, "    "), 1.0 / c.link.slope,
      c.link.intercept, ranks, w.link_class);
  y += fmt::format("  # {}:\n", w.shared_as) + concurrent_comments(c);
  if (c.shared_Bps > 0) y += fmt::format("  backplane_Bps: {:.6e}\n", c.shared_Bps);
  else y += "  # aggregate rate grew with the flows: no shared capacity modeled\n";
  y += fmt::format(
      "# reduction dst += src over floats, plain least squares slope (rms relative residual {:.1f}%):\n{}"
      "gamma_s_per_byte: {:.6e}\n",
      100 * c.reduction.rms_relative_residual, residual_comments(c.samples.reduction, c.reduction, ""),
      c.gamma_s_per_byte);
  return y;
}

nlohmann::json to_json(const CalibrationSamples& s) {
  nlohmann::json j;
  for (const SizeTime& p : s.ping_pong) j["ping_pong"].push_back({p.bytes, p.seconds});
  for (const SizeTime& p : s.reduction) j["reduction"].push_back({p.bytes, p.seconds});
  for (const ConcurrentSample& c : s.concurrent) j["concurrent"].push_back({c.flows, c.bytes, c.seconds});
  j["library"] = s.library;
  if (!s.device.empty()) j["device"] = s.device;
  return j;
}

CalibrationSamples calibration_samples_from_json(const nlohmann::json& j) {
  CalibrationSamples s;
  for (const auto& p : j.at("ping_pong")) s.ping_pong.push_back({p.at(0).get<std::uint64_t>(), p.at(1).get<double>()});
  for (const auto& p : j.at("reduction")) s.reduction.push_back({p.at(0).get<std::uint64_t>(), p.at(1).get<double>()});
  if (j.contains("concurrent"))
    for (const auto& c : j.at("concurrent"))
      s.concurrent.push_back({c.at(0).get<std::uint32_t>(), c.at(1).get<std::uint64_t>(), c.at(2).get<double>()});
  s.library = j.value("library", "");
  s.device = j.value("device", "");
  return s;
}

}  // namespace collsim
