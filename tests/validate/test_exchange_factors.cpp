// tests/validate/test_exchange_factors.cpp — the exchange sweep as a link class's
// exchange_factors: rows relative to the ping-pong's class, held to the class's rate and the
// cost rule's latency bound, written into the calibrated YAML, merged over launches and
// carried through the worker's JSON.
#include <catch2/catch.hpp>

#include <yaml-cpp/yaml.h>

#include "base/error.hpp"
#include "topologies/cluster_config.hpp"
#include "validate/calibration.hpp"

using namespace collsim;

namespace {

constexpr double kAlpha = 1e-6, kBandwidth = 5e9;

// A ping-pong in three regimes, as shared memory shows them (a large start-up for small
// messages, slow eager copies in the middle, full rate from 1 MiB), 1 B .. 64 MiB by doubling
// as the worker measures it; its exchange sweep is the same until a test changes it.
CalibrationSamples regime_samples() {
  CalibrationSamples s;
  for (std::uint64_t b = 1; b <= (1u << 26); b *= 2) {
    const double x = double(b);
    const double t = b < 4096 ? kAlpha + x / 1e9 : b < (1u << 20) ? 3e-6 + x / 2e9 : 20e-6 + x / 3e9;
    s.ping_pong.push_back({b, t, {}});
  }
  for (std::uint64_t b = 4096; b <= (1u << 26); b *= 4) s.reduction.push_back({b, 1e-7 + double(b) * 1e-10, {}});
  s.exchange = s.ping_pong;
  s.library = "Test MPI";
  return s;
}

// t = startup + bytes / rate at every size of the sweep.
std::vector<SizeTime> line_sweep(double startup_s, double rate_Bps) {
  std::vector<SizeTime> sweep;
  for (std::uint64_t b = 1; b <= (1u << 26); b *= 2) sweep.push_back({b, startup_s + double(b) / rate_Bps, {}});
  return sweep;
}

double exchange_model(const Calibration& c, std::uint64_t bytes) {
  return factored_seconds(c.size_factors.alpha_s, c.size_factors.bandwidth_Bps, c.exchange_factors.rows, bytes);
}

}  // namespace

TEST_CASE("an exchange sweep equal to the ping-pong gives exchange factors equal to the size factors") {
  const Calibration c = fit_calibration(regime_samples());
  REQUIRE(c.exchange_factors.rows.size() == c.size_factors.rows.size());
  for (std::size_t i = 0; i < c.size_factors.rows.size(); ++i) {
    const FittedSizeFactor &x = c.exchange_factors.rows[i], &p = c.size_factors.rows[i];
    INFO("row " << i);
    CHECK(x.from_bytes == p.from_bytes);
    CHECK(x.bandwidth == Approx(p.bandwidth).epsilon(1e-12));
    CHECK(x.latency == Approx(p.latency).epsilon(1e-12));
    CHECK(x.bent == p.bent);
    CHECK(x.step == p.step);
  }
}

TEST_CASE("exchanges whose start-up is 1.5x the one-way one have latency factors 1.5, and the model meets them") {
  CalibrationSamples s = regime_samples();
  s.ping_pong = line_sweep(kAlpha, kBandwidth);
  s.exchange = line_sweep(1.5 * kAlpha, kBandwidth);
  const Calibration c = fit_calibration(s);
  REQUIRE(c.exchange_factors.rows.size() == s.exchange.size() - 1);
  CHECK(c.exchange_factors.own.alpha_s == Approx(1.5 * kAlpha).epsilon(1e-9));
  for (const FittedSizeFactor& r : c.exchange_factors.rows) {
    CHECK(r.latency == Approx(1.5).epsilon(1e-6));
    CHECK(r.bandwidth == Approx(1.0).epsilon(1e-6));
    CHECK_FALSE(r.bent);
  }
  for (const SizeTime& p : s.exchange) CHECK(exchange_model(c, p.bytes) == Approx(p.seconds).epsilon(1e-6));
  // The one-way time is unchanged by the exchanges: the size factors are the ping-pong's alone.
  CHECK(c.size_factors.alpha_s == Approx(kAlpha).epsilon(1e-9));
  CHECK(calibration_summary(c).find("exchanges x1.50 at 1 .. x1.00 at 64M over one way") != std::string::npos);
}

TEST_CASE("a stretch where exchanges beat the class's rate is held to it and marked bent") {
  CalibrationSamples s = regime_samples();
  for (SizeTime& p : s.exchange)  // from 1 MiB on, twice the class's fastest rate
    if (p.bytes >= (1u << 20)) p.seconds = 20e-6 + double(p.bytes) / 6e9;
  const Calibration c = fit_calibration(s);
  for (std::size_t i = 0; i < c.exchange_factors.rows.size(); ++i) {
    const FittedSizeFactor& r = c.exchange_factors.rows[i];
    INFO("row " << i << " from " << r.from_bytes);
    CHECK(r.bandwidth <= 1.0);
    if (r.from_bytes >= (1u << 20)) {
      CHECK(r.bandwidth == 1.0);
      CHECK(r.bent);
    }
  }
  // Held to the class's rate, the model is slower than those exchanges, and the YAML says so.
  CHECK(exchange_model(c, 1u << 26) > s.exchange.back().seconds);
  const std::string yaml = exchange_factors_yaml(c);
  CHECK(yaml.find("64M: measured") != std::string::npos);
  CHECK(yaml.find("OUTSIDE the measured spread") != std::string::npos);
  CHECK(yaml.find("bent to stay physical") != std::string::npos);
}

TEST_CASE("an exchange start-up beyond the cost rule's latency bound is held to it and marked bent") {
  CalibrationSamples s = regime_samples();
  s.ping_pong = line_sweep(kAlpha, kBandwidth);
  s.exchange = line_sweep(2 * kAlpha, kBandwidth);
  // The last stretch starts at 1.5e4 class start-ups: 7,500 of the exchange's own (within its
  // own bound), beyond the 10^4 a row may carry relative to the class.
  for (std::size_t i = s.exchange.size() - 2; i < s.exchange.size(); ++i)
    s.exchange[i].seconds = 1.5e4 * kAlpha + double(s.exchange[i].bytes) / kBandwidth;
  const Calibration c = fit_calibration(s);
  CHECK_FALSE(c.exchange_factors.own.rows.back().bent);
  CHECK(c.exchange_factors.rows.back().latency == 1e4);
  CHECK(c.exchange_factors.rows.back().bent);
}

TEST_CASE("an exchange sweep at other sizes than the ping-pong's is refused") {
  CalibrationSamples s = regime_samples();
  s.exchange.pop_back();
  CHECK_THROWS_WITH(fit_calibration(s), Catch::Contains("the exchange sweep must measure the ping-pong's sizes"));
  s = regime_samples();
  s.exchange[3].bytes += 1;
  CHECK_THROWS_AS(fit_calibration(s), Error);
}

TEST_CASE("the calibrated YAML carries the exchange sweep held to its model, and its rows as the link class's key") {
  CalibrationSamples s = regime_samples();
  for (SizeTime& p : s.exchange) p.seconds += 0.5 * kAlpha;  // 1.5x the start-up of the first regime
  const Calibration c = fit_calibration(s);
  const std::string yaml = calibrated_config_yaml(c, "cpu-test", 2);
  CHECK_THAT(yaml, Catch::Contains("# Exchanges: ranks 0 and 1 send the size to each other at once"));
  CHECK_THAT(yaml, Catch::Contains("within the measured spread at 27 of 27 exchange sizes"));
  CHECK_THAT(yaml, Catch::Contains("      1: measured     1.5 us, x1.50 one way; model     1.5 us (+0.0%)"));
  // Right after the size factors, as the link class's key; what calibrate writes loads.
  CHECK(yaml.find("# Exchanges:") > yaml.find("size_factors:"));
  CHECK(yaml.find("# Exchanges:") < yaml.find("nodes:"));
  CHECK(yaml.find("    exchange_factors:\n") != std::string::npos);
  const ClusterConfig loaded = parse_cluster_config(yaml, "calibrated");
  CHECK(loaded.topology->network.prices_exchanges());
  // A list of {from_bytes, bandwidth, latency} under the link class, the rows' numbers.
  const YAML::Node rows = YAML::Load(yaml)["link_classes"]["shm"]["exchange_factors"];
  REQUIRE(rows.size() == c.exchange_factors.rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CHECK(rows[i]["from_bytes"].as<std::uint64_t>() == c.exchange_factors.rows[i].from_bytes);
    CHECK(rows[i]["bandwidth"].as<double>() == Approx(c.exchange_factors.rows[i].bandwidth).epsilon(1e-9));
    CHECK(rows[i]["latency"].as<double>() == Approx(c.exchange_factors.rows[i].latency).epsilon(1e-9));
  }
  CHECK(rows[0]["latency"].as<double>() == Approx(1.5).epsilon(1e-9));
}

TEST_CASE("without an exchange sweep (a GPU worker, older samples) nothing about exchanges is written") {
  CalibrationSamples s = regime_samples();
  s.exchange.clear();
  const Calibration c = fit_calibration(s);
  CHECK(c.exchange_factors.rows.empty());
  CHECK(exchange_factors_yaml(c).empty());
  const std::string yaml = calibrated_config_yaml(c, "cpu-test", 2);
  CHECK(yaml.find("Exchanges:") == std::string::npos);
  CHECK(yaml.find("exchange_factors") == std::string::npos);
  CHECK(calibration_summary(c).find("exchanges") == std::string::npos);
}

TEST_CASE("exchanges merge over launches with their spread and survive the worker's JSON, and JSON without them loads") {
  std::vector<CalibrationSamples> runs(3, regime_samples());
  runs[1].exchange[4].seconds *= 1.2;
  runs[2].exchange[4].seconds *= 0.9;
  const CalibrationSamples merged = merge_repeats(runs);
  REQUIRE(merged.exchange.size() == runs[0].exchange.size());
  CHECK(merged.exchange[4].seconds == runs[0].exchange[4].seconds);  // the median of the three
  CHECK(merged.exchange[4].repeats.size() == 3);
  CHECK(spread_text(merged.exchange[4].repeats, merged.exchange[4].seconds) == " [-10.0% +20.0%]");

  const CalibrationSamples back = calibration_samples_from_json(to_json(merged));
  REQUIRE(back.exchange.size() == merged.exchange.size());
  CHECK(back.exchange[4].bytes == merged.exchange[4].bytes);
  CHECK(back.exchange[4].seconds == merged.exchange[4].seconds);
  CHECK(back.exchange[4].repeats == merged.exchange[4].repeats);

  nlohmann::json old = to_json(merged);
  old.erase("exchange");
  const CalibrationSamples before = calibration_samples_from_json(old);
  CHECK(before.exchange.empty());
  CHECK(before.ping_pong.size() == merged.ping_pong.size());
  CHECK(fit_calibration(before).exchange_factors.rows.empty());
}
