// validate/measured_fit.cpp — a log's sizes predicted on a cluster, and its crossed link
// classes fitted to the log (Gauss-Newton on the engine's predictions).
#include "validate/measured_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "base/error.hpp"
#include "base/units.hpp"

namespace collsim {

ClusterConfig cluster_with_ranks(ClusterConfig c, Rank ranks) {
  c.place(ranks);
  return c;
}

std::vector<PredictionRecord> predict_log_sizes(const ClusterConfig& cluster, const NcclTestsLog& log,
                                                const std::vector<std::string>& algorithms) {
  std::set<std::uint64_t> sizes;
  for (const NcclTestsRow& row : log.rows) {
    if (row.size_bytes == 0)
      throw Error(fmt::format("line {}: size 0: a collective on 0 bytes does nothing in collsim (start the log at -b 4 or more)", row.line));
    if (row.root > 0)
      throw Error(fmt::format("line {}: root {}: collsim predicts broadcast and reduce from root 0 (run nccl-tests with -r 0)",
                              row.line, row.root));
    sizes.insert(row.size_bytes);
  }
  PredictionRequest r = cluster_request(cluster);
  r.collective = log.collective;
  // As the log ran: one thread launching for its nGpus GPUs (with a runtime: its kernels)
  if (cluster.runtime != CollectiveRuntime::none) r.gpus_per_thread = log.gpus_per_thread;
  r.algorithms = algorithms;
  r.sizes.assign(sizes.begin(), sizes.end());
  return predict(r);
}

namespace {

// One parameter of the fit: a class's efficiency or alpha.
struct Parameter {
  std::size_t link_class = 0;
  bool efficiency = true;
  double lowest = 0, highest = 0;  // the physical range it is kept in
  double step_floor = 0;           // smallest finite-difference step
};

// The cluster's YAML with the classes' efficiency and alpha replaced.
struct ClusterModel {
  YAML::Node root;
  std::string origin;
  Rank ranks = 1;

  std::string yaml(const std::vector<FittedLinkClass>& classes) const {
    YAML::Node copy = YAML::Clone(root);
    for (const FittedLinkClass& c : classes) {
      copy["link_classes"][c.name]["efficiency"] = fmt::format("{:.9g}", c.efficiency);
      copy["link_classes"][c.name]["alpha_s"] = fmt::format("{:.9g}", c.alpha_s);
    }
    YAML::Emitter out;
    out << copy;
    return std::string(out.c_str()) + "\n";
  }
  ClusterConfig cluster(const std::vector<FittedLinkClass>& classes) const {
    return cluster_with_ranks(parse_cluster_config(yaml(classes), origin), ranks);
  }
};

// The link classes on the routes from rank 0 to every other rank.
std::vector<FittedLinkClass> crossed_classes(const ClusterConfig& c) {
  const Network& net = c.topology->network;
  std::set<LinkClassId> ids;
  std::vector<LinkId> route;
  for (Rank r = 1; r < c.ranks; ++r) {
    route.clear();
    c.topology->route(0, r, 0, route);
    for (LinkId l : route) ids.insert(net.link(l).link_class);
  }
  std::vector<FittedLinkClass> out;
  for (LinkClassId id : ids) {
    const LinkClass& lc = net.link_class(id);
    out.push_back({lc.name, lc.efficiency, lc.efficiency, lc.alpha_s, lc.alpha_s, false, false});
  }
  return out;
}

double& value_of(std::vector<FittedLinkClass>& classes, const Parameter& p) {
  FittedLinkClass& c = classes[p.link_class];
  return p.efficiency ? c.efficiency : c.alpha_s;
}

class Fitter {
 public:
  Fitter(const ClusterModel& model, const NcclTestsLog& log, std::string algorithm)
      : model_(model), log_(log), algorithm_(std::move(algorithm)) {}

  // Predicted time per log row.
  std::vector<double> times(const std::vector<FittedLinkClass>& classes) const {
    std::map<std::uint64_t, double> by_size;
    for (const PredictionRecord& rec : predict_log_sizes(model_.cluster(classes), log_, {algorithm_}))
      by_size[rec.bytes] = rec.time_s;
    std::vector<double> out;
    for (const NcclTestsRow& row : log_.rows) out.push_back(by_size.at(row.size_bytes));
    return out;
  }
  std::vector<double> residuals(const std::vector<FittedLinkClass>& classes) const {
    const std::vector<double> t = times(classes);
    std::vector<double> r;
    for (std::size_t i = 0; i < t.size(); ++i) r.push_back(t[i] / log_.rows[i].measured_s() - 1);
    return r;
  }

 private:
  const ClusterModel& model_;
  const NcclTestsLog& log_;
  std::string algorithm_;
};

double sum_of_squares(const std::vector<double>& r) {
  double s = 0;
  for (double x : r) s += x * x;
  return s;
}

double rms(const std::vector<double>& r) { return r.empty() ? 0 : std::sqrt(sum_of_squares(r) / double(r.size())); }

// Solves A x = b (n <= a few) by Gaussian elimination with partial pivoting; false when singular.
bool solve(std::vector<std::vector<double>> a, std::vector<double> b, std::vector<double>& x) {
  const std::size_t n = b.size();
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t row = col + 1; row < n; ++row)
      if (std::abs(a[row][col]) > std::abs(a[pivot][col])) pivot = row;
    if (std::abs(a[pivot][col]) < 1e-300) return false;
    std::swap(a[col], a[pivot]);
    std::swap(b[col], b[pivot]);
    for (std::size_t row = col + 1; row < n; ++row) {
      const double f = a[row][col] / a[col][col];
      for (std::size_t k = col; k < n; ++k) a[row][k] -= f * a[col][k];
      b[row] -= f * b[col];
    }
  }
  x.assign(n, 0);
  for (std::size_t i = n; i-- > 0;) {
    double s = b[i];
    for (std::size_t k = i + 1; k < n; ++k) s -= a[i][k] * x[k];
    x[i] = s / a[i][i];
  }
  return true;
}

// The Jacobian's columns (d residual / d parameter), by forward differences.
std::vector<std::vector<double>> jacobian(const Fitter& f, std::vector<FittedLinkClass> classes,
                                          const std::vector<Parameter>& params, const std::vector<double>& r0) {
  std::vector<std::vector<double>> columns;
  for (const Parameter& p : params) {
    double& v = value_of(classes, p);
    const double saved = v;
    const double h = std::max(1e-4 * std::abs(saved), p.step_floor) * (saved + p.step_floor > p.highest ? -1 : 1);
    v = saved + h;
    const std::vector<double> r = f.residuals(classes);
    v = saved;
    std::vector<double> column;
    for (std::size_t i = 0; i < r.size(); ++i) column.push_back((r[i] - r0[i]) / h);
    columns.push_back(column);
  }
  return columns;
}

double norm(const std::vector<double>& v) { return std::sqrt(sum_of_squares(v)); }

// A parameter's typical size, to compare sensitivities in common units: the error's change
// for a relative change of the parameter (an alpha of microseconds and an efficiency near 1
// alike), never below a hundred finite-difference steps (an alpha of 0 can still matter).
double scale_of(const std::vector<FittedLinkClass>& classes, const Parameter& p) {
  const FittedLinkClass& c = classes[p.link_class];
  return std::max(std::abs(p.efficiency ? c.efficiency : c.alpha_s), 100 * p.step_floor);
}

// Drops the parameters the times barely depend on (a thousandth of the most telling one's
// sensitivity or less), which the fit could only move at random; returns the rest.
std::vector<Parameter> identifiable(const std::vector<Parameter>& params, const std::vector<std::vector<double>>& columns,
                                    const std::vector<FittedLinkClass>& classes) {
  std::vector<double> sensitivity;
  for (std::size_t k = 0; k < params.size(); ++k) sensitivity.push_back(norm(columns[k]) * scale_of(classes, params[k]));
  const double largest = sensitivity.empty() ? 0 : *std::max_element(sensitivity.begin(), sensitivity.end());
  std::vector<Parameter> kept;
  for (std::size_t k = 0; k < params.size(); ++k)
    if (sensitivity[k] > 1e-3 * largest && sensitivity[k] > 0) kept.push_back(params[k]);
  return kept;
}

// One damped Gauss-Newton step from `classes`; true when it lowered the sum of squares.
bool step(const Fitter& f, std::vector<FittedLinkClass>& classes, const std::vector<Parameter>& params,
          const std::vector<std::vector<double>>& J, std::vector<double>& r, double& damping) {
  const std::size_t n = params.size();
  std::vector<std::vector<double>> a(n, std::vector<double>(n, 0));
  std::vector<double> g(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t m = 0; m < r.size(); ++m) a[i][k] += J[i][m] * J[k][m];
    for (std::size_t m = 0; m < r.size(); ++m) g[i] -= J[i][m] * r[m];
  }
  const double before = sum_of_squares(r);
  for (int attempt = 0; attempt < 12; ++attempt, damping *= 10) {
    std::vector<std::vector<double>> damped = a;
    for (std::size_t i = 0; i < n; ++i) damped[i][i] *= 1 + damping;
    std::vector<double> dx;
    if (!solve(damped, g, dx)) continue;
    std::vector<FittedLinkClass> trial = classes;
    for (std::size_t i = 0; i < n; ++i) {
      double& v = value_of(trial, params[i]);
      v = std::clamp(v + dx[i], params[i].lowest, params[i].highest);
    }
    const std::vector<double> rt = f.residuals(trial);
    if (sum_of_squares(rt) < before) {
      classes = trial;
      r = rt;
      damping = std::max(damping / 10, 1e-12);
      return true;
    }
  }
  return false;
}

std::string fit_comments(const MeasuredFit& fit, const NcclTestsLog& log, const MeasuredFitRequest& request) {
  std::string out = fmt::format(
      "# Fitted by `collsim calibrate --measured {}` on {}: the efficiency and alpha of the link classes that\n"
      "# {} on {} ranks ({} host{}) crosses, least squares on the relative error of the engine's predictions\n"
      "# (flow engine) against the log's {} sizes ({} iterations). Every other number is the cluster's own, with its\n"
      "# source in {}; the comments there are not carried over.\n",
      request.log_name, request.cluster_origin, log.program.empty() ? std::string(to_string(log.collective)) : log.program,
      log.rank_count(), log.host_count(), log.host_count() == 1 ? "" : "s", fit.points.size(), fit.iterations,
      request.cluster_origin);
  if (!log.nccl_version.empty()) out += fmt::format("# The log: {}\n", log.nccl_version);
  for (const FittedLinkClass& c : fit.classes)
    out += fmt::format("# {}: efficiency {:.4g} -> {:.4g}{}, alpha {} -> {}{}\n", c.name, c.efficiency_before, c.efficiency,
                       c.efficiency_fitted ? " (fitted)" : " (kept: these times do not depend on it)",
                       format_seconds(c.alpha_before_s), format_seconds(c.alpha_s),
                       c.alpha_fitted ? " (fitted)" : " (kept: these times do not depend on it)");
  out += fmt::format("# Per size (log line: size, measured, before the fit, fitted); rms relative error {:.1f}% -> {:.1f}%:\n",
                     100 * fit.rms_before, 100 * fit.rms_after);
  for (const MeasuredPoint& p : fit.points)
    out += fmt::format("#   line {:>4}: {:>10}: measured {:>10}, before {:>10} ({:+.1f}%), fitted {:>10} ({:+.1f}%)\n", p.line,
                       format_size(p.bytes), format_seconds(p.measured_s), format_seconds(p.before_s),
                       100 * (p.before_s / p.measured_s - 1), format_seconds(p.fitted_s), 100 * (p.fitted_s / p.measured_s - 1));
  return out;
}

}  // namespace

MeasuredFit fit_to_measured(const NcclTestsLog& log, const MeasuredFitRequest& request) {
  check_cluster_yaml(request.cluster_yaml, request.cluster_origin);
  ClusterModel model{YAML::Load(request.cluster_yaml), request.cluster_origin, log.rank_count()};
  const ClusterConfig start = model.cluster({});
  // The fit writes its classes into the config's link_classes; the flat form (`links:`) has none.
  if (model.root["links"])
    throw Error(fmt::format("{} is a flat network (links: inter_node/intra_node): calibrate --measured fits link classes; "
                            "describe the cluster with link_classes and nodes (configs/README.md)",
                            request.cluster_origin));
  MeasuredFit fit;
  fit.classes = crossed_classes(start);
  std::vector<Parameter> params;
  for (std::size_t i = 0; i < fit.classes.size(); ++i) {
    params.push_back({i, true, 1e-3, 1.0, 1e-4});
    params.push_back({i, false, 0.0, 1e-2, 1e-9});
  }
  const Fitter fitter(model, log, request.algorithm);
  const std::vector<double> before = fitter.times(fit.classes);
  std::vector<double> r = fitter.residuals(fit.classes);
  fit.rms_before = rms(r);
  params = identifiable(params, jacobian(fitter, fit.classes, params, r), fit.classes);
  for (const Parameter& p : params) (p.efficiency ? fit.classes[p.link_class].efficiency_fitted : fit.classes[p.link_class].alpha_fitted) = true;
  double damping = 1e-3;
  for (; fit.iterations < 40 && !params.empty(); ++fit.iterations) {
    const double previous = sum_of_squares(r);
    if (!step(fitter, fit.classes, params, jacobian(fitter, fit.classes, params, r), r, damping)) break;
    if (previous - sum_of_squares(r) <= 1e-14 * std::max(previous, 1e-30)) break;
  }
  fit.rms_after = rms(r);
  const std::vector<double> after = fitter.times(fit.classes);
  for (std::size_t i = 0; i < log.rows.size(); ++i)
    fit.points.push_back({log.rows[i].line, log.rows[i].size_bytes, log.rows[i].measured_s(), before[i], after[i]});
  YAML::Node named = YAML::Clone(model.root);
  model.root["name"] = fmt::format("{}-fitted", named["name"] ? named["name"].as<std::string>() : std::string("cluster"));
  // What predict reads back: whether to trust the fit (configs/README.md, `calibration`).
  model.root["calibration"]["reliable"] = fit.rms_after <= kMaxFittedRmsError;
  if (fit.rms_after > kMaxFittedRmsError)
    model.root["calibration"]["reasons"].push_back(
        fmt::format("the fitted model is {:.1f}% off the log's times (rms; bound {:.0f}%): algorithm {} may not be what "
                    "ran, or the log's system is not {}",
                    100 * fit.rms_after, 100 * kMaxFittedRmsError, request.algorithm, request.cluster_origin));
  fit.yaml = fit_comments(fit, log, request) + model.yaml(fit.classes);
  return fit;
}

}  // namespace collsim
