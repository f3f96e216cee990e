// tests/validate/test_reduction_factor_fit.cpp — a reduction sweep as the cluster's
// reduction_factors (validate/calibration.hpp, "Reduction factors"): each measured size's
// seconds per byte over gamma, a row from that size on, the first from 0; the cost rule then
// gives every measured point back. The calibrated YAML carries both tables (reductions, and
// reductions into sent data) as keys that load, and the samples survive the worker's JSON.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>

#include "base/error.hpp"
#include "sim/cost_rule.hpp"
#include "topologies/cluster_config.hpp"
#include "validate/calibration.hpp"

using namespace collsim;

namespace {

// In cache (up to 1 MiB) 2e-11 s/B, then 6e-11 s/B: gamma fitted at 6e-11.
std::vector<SizeTime> sweep() {
  std::vector<SizeTime> points;
  for (std::uint64_t b = 4096; b <= (64u << 20); b *= 2)
    points.push_back({b, double(b) * (b <= (1u << 20) ? 2e-11 : 6e-11), {}});
  return points;
}

}  // namespace

TEST_CASE("a reduction sweep becomes one row per measured size, the first from 0") {
  const std::vector<FittedReductionFactor> rows = fit_reduction_factors(sweep(), 6e-11);
  REQUIRE(rows.size() == sweep().size());
  CHECK(rows.front().from_bytes == 0);
  CHECK(rows.front().measured_bytes == 4096);
  for (std::size_t i = 1; i < rows.size(); ++i) CHECK(rows[i].from_bytes == rows[i].measured_bytes);
  CHECK(rows.front().gamma == Approx(1.0 / 3));
  CHECK(rows.back().gamma == Approx(1.0));
  CHECK(fastest_reduction_s_per_byte(rows, 6e-11) == Approx(2e-11));
  CHECK(fit_reduction_factors({}, 6e-11).empty());
  CHECK_THROWS_AS(fit_reduction_factors(sweep(), 0), Error);
  CHECK_THROWS_AS(fit_reduction_factors({{4096, 0, {}}}, 6e-11), Error);
}

TEST_CASE("the rows, read back as a cluster's reduction_factors, give every measured reduction its time") {
  const double gamma = 6e-11;
  std::string yaml = "name: t\nlink_classes:\n  x: {bandwidth_Bps: 1.0e+10}\ntopology: {kind: full, endpoints: 2, link: x}\n";
  yaml += fmt::format("gamma_s_per_byte: {}\nreduction_factors:\n", gamma);
  for (const FittedReductionFactor& r : fit_reduction_factors(sweep(), gamma))
    yaml += fmt::format("  - {{from_bytes: {}, gamma: {:.10g}}}\n", r.from_bytes, r.gamma);
  const ClusterConfig config = parse_cluster_config(yaml, "t.yaml");
  for (const SizeTime& p : sweep()) {
    INFO(p.bytes << " bytes");
    CHECK(double(p.bytes) * reduction_s_per_byte(*config.topology, 0, gamma, p.bytes) == Approx(p.seconds).epsilon(1e-9));
  }
}

TEST_CASE("the calibrated YAML carries both reduction tables, which load and give every measured point back") {
  CalibrationSamples s;
  for (std::uint64_t b = 1; b <= (64u << 20); b *= 2) s.ping_pong.push_back({b, 1e-6 + double(b) / 5e9, {}});
  s.reduction = sweep();
  for (const SizeTime& p : sweep()) s.reduction_into_sent.push_back({p.bytes, 4 * p.seconds, {}});
  s.library = "Test MPI";
  const Calibration c = fit_calibration(s);
  REQUIRE(c.reduction_factors.size() == s.reduction.size());
  REQUIRE(c.reduction_into_sent_factors.size() == s.reduction_into_sent.size());
  const std::string yaml = calibrated_config_yaml(c, "cpu-test", 2);
  CHECK_THAT(yaml, Catch::Contains("\nreduction_factors:\n") && Catch::Contains("\nreduction_into_sent_factors:\n"));
  const ClusterConfig config = parse_cluster_config(yaml, "calibrated");
  const Topology& t = *config.topology;
  for (std::size_t i = 0; i < s.reduction.size(); ++i) {
    const SizeTime& p = s.reduction[i];
    const SizeTime& q = s.reduction_into_sent[i];
    INFO(p.bytes << " bytes");
    CHECK(double(p.bytes) * reduction_s_per_byte(t, 0, c.gamma_s_per_byte, p.bytes) == Approx(p.seconds).epsilon(1e-5));
    CHECK(double(q.bytes) * reduction_s_per_byte(t, 0, c.gamma_s_per_byte, q.bytes, true) == Approx(q.seconds).epsilon(1e-5));
  }
  // The worker's JSON keeps the sweep; samples written before it load without it, and then the
  // YAML has no into-sent table.
  CHECK(calibration_samples_from_json(to_json(s)).reduction_into_sent.size() == s.reduction_into_sent.size());
  nlohmann::json old = to_json(s);
  old.erase("reduction_into_sent");
  const CalibrationSamples before = calibration_samples_from_json(old);
  CHECK(before.reduction_into_sent.empty());
  CHECK_THAT(calibrated_config_yaml(fit_calibration(before), "cpu-test", 2), !Catch::Contains("reduction_into_sent_factors"));
}
