// tests/validate/test_calibration.cpp — fits, repeats and their spread, the reliability checks,
// the calibrated YAML (it must load and give the numbers back), validation summaries, and the mpirun command line.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "execute/launcher.hpp"
#include "execute/measurement.hpp"
#include "execute/progress.hpp"
#include "sim/cost_rule.hpp"
#include "sim/pair_pricing.hpp"
#include "topologies/cluster_config.hpp"
#include "validate/calibration.hpp"
#include "validate/report.hpp"

using namespace collsim;

namespace {

CalibrationSamples synthetic_samples(double alpha, double bandwidth, double gamma) {
  CalibrationSamples s;
  for (std::uint64_t b = 1; b <= (1u << 26); b *= 4) s.ping_pong.push_back({b, alpha + double(b) / bandwidth, {}});
  for (std::uint64_t b = 4096; b <= (1u << 26); b *= 4) s.reduction.push_back({b, 1e-7 + double(b) * gamma, {}});
  s.concurrent = {{2, 1u << 24, 2.0 * (1u << 24) / bandwidth, {}}, {4, 1u << 24, 4.0 * (1u << 24) / (1.5 * bandwidth), {}}};
  s.library = "Test MPI";
  return s;
}

// One launch's samples for each (alpha, bandwidth, gamma), merged as `collsim calibrate`
// merges its launches.
struct Parameters {
  double alpha, bandwidth, gamma;
};
CalibrationSamples repeated_samples(const std::vector<Parameters>& per_repeat) {
  std::vector<CalibrationSamples> runs;
  for (const Parameters& p : per_repeat) runs.push_back(synthetic_samples(p.alpha, p.bandwidth, p.gamma));
  return merge_repeats(runs);
}

// Five launches that agree within 2%, as on a quiet machine.
std::vector<Parameters> quiet_repeats() {
  std::vector<Parameters> repeats;
  for (double wobble : {1.0, 1.01, 0.99, 1.02, 0.98}) repeats.push_back({2e-6 * wobble, 5e9 / wobble, 1e-10 * wobble});
  return repeats;
}

bool mentions(const std::vector<std::string>& reasons, const std::string& fragment) {
  return std::ranges::any_of(reasons, [&](const std::string& r) { return r.find(fragment) != std::string::npos; });
}

}  // namespace

TEST_CASE("a shared capacity is what exchanges lost against their flows alone at the same size") {
  // A CPU node as it measures: in cache, two exchanges run at twice one flow's rate (each
  // core copies its own); out of cache they reach 1.2 flows' worth (one memory bus).
  CalibrationSamples s = synthetic_samples(2e-6, 5e9, 1e-10);
  const auto exchange = [](std::uint64_t bytes, double flows_worth) {
    return ConcurrentSample{2, bytes, 2e-6 + 2.0 * double(bytes) / (flows_worth * 5e9), {}};
  };
  s.concurrent = {exchange(1u << 18, 2.0), exchange(1u << 20, 2.0)};
  CHECK(fit_calibration(s).shared_Bps == 0);  // in cache only: nothing shared
  s.concurrent.push_back(exchange(1u << 24, 1.2));
  const Calibration c = fit_calibration(s);
  CHECK(c.shared_Bps_measured == Approx(2.0 * (1u << 24) / (2e-6 + 2.0 * (1u << 24) / 6e9)));
  CHECK(c.shared_Bps >= c.size_factors.bandwidth_Bps);  // never below one flow alone
}

TEST_CASE("the relative least-squares fit recovers alpha and beta from exact data") {
  const Calibration c = fit_calibration(synthetic_samples(2e-6, 5e9, 1e-10));
  CHECK(c.link.intercept == Approx(2e-6).epsilon(1e-6));
  CHECK(1.0 / c.link.slope == Approx(5e9).epsilon(1e-6));
  CHECK(c.gamma_s_per_byte == Approx(1e-10).epsilon(1e-6));
  CHECK(c.link.max_relative_residual < 1e-9);
  // 4 flows reached 1.5 links' worth: a shared capacity; 2 flows reached 2 links' worth: none
  CHECK(c.shared_Bps == Approx(1.5 * 5e9));
  CHECK(c.reliable());
}

TEST_CASE("a fit needs two different sizes") {
  CHECK_THROWS(fit_relative({{8, 1e-6, {}}}));
  CHECK_THROWS(fit_relative({{8, 1e-6, {}}, {8, 2e-6, {}}}));
}

TEST_CASE("the calibrated config loads as a cluster and carries the fitted numbers") {
  const Calibration c = fit_calibration(synthetic_samples(3e-6, 4e9, 2e-10));
  const std::string yaml = calibrated_config_yaml(c, "cpu-test", 4);
  const ClusterConfig cluster = parse_cluster_config(yaml, "calibrated");
  CHECK(cluster.ranks == 4);
  REQUIRE(cluster.topology);
  CHECK(cluster.cost.gamma_s_per_byte == Approx(2e-10).epsilon(1e-5));
  const CostModel flat = equivalent_cost_model(*cluster.topology, cluster.cost.gamma_s_per_byte);
  CHECK(flat.inter_node.alpha_s == Approx(3e-6).epsilon(1e-5));
  CHECK(1.0 / flat.inter_node.beta_s_per_byte == Approx(4e9).epsilon(1e-5));
  CHECK_THAT(yaml, Catch::Contains("backplane_Bps"));
  CHECK_THAT(yaml, Catch::Contains("rms relative residual") && Catch::Contains("size_factors:"));
}

TEST_CASE("a measured memcpy becomes each rank's memory bandwidth, 2 bytes per byte copied, and loads") {
  CalibrationSamples s = synthetic_samples(3e-6, 4e9, 2e-10);
  s.memory_copy = {{64u << 20, double(64u << 20) / 8e9, {}}};  // copies 8 GB/s: reads and writes 16 GB/s
  const Calibration c = fit_calibration(s);
  CHECK(c.memory_Bps_measured == Approx(16e9).epsilon(1e-12));
  CHECK(c.memory_Bps == c.memory_Bps_measured);  // above the fastest stretch of one flow (4 GB/s)
  const std::string yaml = calibrated_config_yaml(c, "cpu-test", 2);
  CHECK_THAT(yaml, Catch::Contains("memory_bandwidth_Bps: 1.6") && Catch::Contains("measured by calibrate"));
  const ClusterConfig cluster = parse_cluster_config(yaml, "calibrated");
  REQUIRE(cluster.topology->models_memory());
  CHECK(cluster.topology->network.link(cluster.topology->memory_of(1)).bandwidth_Bps == Approx(16e9).epsilon(1e-9));
  // Without a memcpy (a GPU worker, older samples) the YAML has no memory: the model as before.
  const std::string without = calibrated_config_yaml(fit_calibration(synthetic_samples(3e-6, 4e9, 2e-10)), "cpu-test", 2);
  CHECK_THAT(without, !Catch::Contains("memory_bandwidth_Bps"));
  CHECK_FALSE(parse_cluster_config(without, "calibrated").topology->models_memory());
  // A memcpy slower than one message alone, or than one reduction alone (3 bytes per byte), is
  // raised to the faster of them: every message and every reduction crosses the memory.
  s.memory_copy = {{64u << 20, double(64u << 20) / 1e9, {}}};
  const Calibration slow = fit_calibration(s);
  const double reduction_Bps = 3 / fastest_reduction_s_per_byte(slow.reduction_factors, slow.gamma_s_per_byte);
  CHECK(reduction_Bps > slow.size_factors.bandwidth_Bps);  // gamma 2e-10: a reduction draws about 15 GB/s
  CHECK(slow.memory_Bps == Approx(reduction_Bps).epsilon(1e-12));
  CHECK_THAT(calibrated_config_yaml(slow, "cpu-test", 2), Catch::Contains("raised from the memcpy's 2 GB/s"));
  // Its repeats merge and survive the worker's JSON like every other point.
  std::vector<CalibrationSamples> runs(3, s);
  runs[1].memory_copy[0].seconds *= 1.1;
  const CalibrationSamples merged = merge_repeats(runs);
  CHECK(merged.memory_copy[0].repeats.size() == 3);
  CHECK(calibration_samples_from_json(to_json(merged)).memory_copy[0].repeats == merged.memory_copy[0].repeats);
}

TEST_CASE("a GPU calibration is one GPU's virtual ranks, named after the GPU, and loads") {
  CalibrationSamples s = synthetic_samples(4e-6, 1.2e12, 3e-13);
  s.library = "CUDA runtime 13.0, driver API 13.0";
  s.device = "NVIDIA H100 80GB HBM3";
  const Calibration c = fit_calibration(s);
  const std::string yaml = calibrated_config_yaml(c, "gpu-nvidia-h100-80gb-hbm3", 8);
  const ClusterConfig cluster = parse_cluster_config(yaml, "calibrated");
  CHECK(cluster.ranks == 8);
  CHECK(1.0 / equivalent_cost_model(*cluster.topology, 0).inter_node.beta_s_per_byte == Approx(1.2e12).epsilon(1e-5));
  CHECK_THAT(yaml, Catch::Contains("hbm:") && Catch::Contains("8 virtual ranks on one NVIDIA H100 80GB HBM3"));
  CHECK_THAT(yaml, !Catch::Contains("shm"));
  CHECK(platform_name(describe_machine(s.library, s.device), "cuda") == "gpu-nvidia-h100-80gb-hbm3");
  CHECK_THAT(machine_markdown(describe_machine(s.library, s.device)), Catch::Contains("| GPU | NVIDIA H100 80GB HBM3 |"));
  CHECK(calibration_samples_from_json(to_json(s)).device == s.device);
}

TEST_CASE("every point keeps its repeats, one per launch, and stands for their median") {
  const CalibrationSamples s = repeated_samples(quiet_repeats());
  for (const SizeTime& p : s.ping_pong) {
    REQUIRE(p.repeats.size() == 5);
    CHECK(p.seconds == median_of(p.repeats));
  }
  REQUIRE(s.concurrent.size() == 2);
  CHECK(s.concurrent[1].repeats.size() == 5);
  const Spread spread = spread_of(s.ping_pong[0].repeats, s.ping_pong[0].seconds);
  CHECK(spread.below < 0);
  CHECK(spread.above > 0);
}

TEST_CASE("a clean sweep repeated five times is reliable, with each parameter's range over the repeats") {
  const Calibration c = fit_calibration(repeated_samples(quiet_repeats()));
  CHECK(c.reliable());
  CHECK(c.unreliable_because.empty());
  CHECK(c.repeats.repeats == 5);
  CHECK(c.repeats.alpha_s.lowest <= c.link.intercept);
  CHECK(c.repeats.alpha_s.highest >= c.link.intercept);
  CHECK(c.repeats.alpha_s.factor() <= kMaxRepeatFactor);
  CHECK(c.repeats.bandwidth_Bps.low_quartile < c.repeats.bandwidth_Bps.high_quartile);
  CHECK(unreliable_calibration_warning(c, "calibrate").empty());
  CHECK_THAT(calibration_summary(c), Catch::EndsWith(": reliable"));
}

TEST_CASE("calibrate's summary says the link class its YAML writes, and the one-line fit as such") {
  const Calibration c = fit_calibration(repeated_samples(quiet_repeats()));
  const std::string summary = calibration_summary(c);
  const std::string yaml = calibrated_config_yaml(c, "t", 2);
  // the YAML's bandwidth_Bps and alpha_s are what the summary leads with
  CHECK_THAT(yaml, Catch::Contains(fmt::format("bandwidth_Bps: {:.10e}", c.size_factors.bandwidth_Bps)));
  CHECK_THAT(yaml, Catch::Contains(fmt::format("alpha_s: {:.10e}", c.size_factors.alpha_s)));
  CHECK_THAT(summary, Catch::StartsWith(fmt::format("link {} (the fastest stretch), alpha {} (the first stretch's start-up), {} "
                                                    "size-factor rows",
                                                    format_rate(c.size_factors.bandwidth_Bps),
                                                    format_seconds(c.size_factors.alpha_s), c.size_factors.rows.size())));
  // the line fit and the repeats' ranges are labelled as theirs, not as the YAML's model or its error bars
  CHECK_THAT(summary, Catch::Contains(fmt::format("one line through the sweep: alpha {}, ", format_seconds(c.link.intercept))));
  CHECK_THAT(summary, Catch::Contains(" per repeat"));
  CHECK_THAT(summary, !Catch::Contains("["));
}

TEST_CASE("one stray repeat does not move the parameters' middle half, repeats that disagree do") {
  std::vector<Parameters> repeats = quiet_repeats();
  repeats[2].alpha *= 3;  // one launch hit by a burst of load
  const Calibration stray = fit_calibration(repeated_samples(repeats));
  CHECK(stray.repeats.alpha_s.factor() <= kMaxRepeatFactor);
  CHECK_FALSE(mentions(stray.unreliable_because, "alpha moved x"));
  // That launch's small messages ran at another speed, which the launch check names (ea6dd0e).
  CHECK(mentions(stray.unreliable_because, "launch 3 of 5 ran at another speed"));

  repeats = quiet_repeats();
  repeats[0].alpha *= 3, repeats[1].alpha *= 3, repeats[3].alpha *= 3;
  const Calibration c = fit_calibration(repeated_samples(repeats));
  CHECK_FALSE(c.reliable());
  CHECK(c.repeats.alpha_s.factor() > kMaxRepeatFactor);
  CHECK(mentions(c.unreliable_because, "alpha moved x"));
  CHECK_FALSE(mentions(c.unreliable_because, "bandwidth moved"));
}

TEST_CASE("bandwidth or gamma that move between repeats are named in the reason") {
  std::vector<Parameters> repeats = quiet_repeats();
  repeats[0].bandwidth /= 2, repeats[1].bandwidth /= 2, repeats[3].gamma *= 2, repeats[4].gamma *= 2;
  const Calibration c = fit_calibration(repeated_samples(repeats));
  CHECK(mentions(c.unreliable_because, "bandwidth moved x"));
  CHECK(mentions(c.unreliable_because, "gamma moved x"));
  CHECK(mentions(c.unreliable_because, "run on an idle machine"));
}

TEST_CASE("a sweep whose time falls from one size to the next is unreliable") {
  std::vector<CalibrationSamples> runs;
  for (const Parameters& p : quiet_repeats()) {
    CalibrationSamples s = synthetic_samples(p.alpha, p.bandwidth, p.gamma);
    for (std::size_t i = 0; i < s.ping_pong.size(); ++i) s.ping_pong[i].seconds *= i % 2 ? 4.0 : 1.0;  // every launch alike
    runs.push_back(s);
  }
  const Calibration c = fit_calibration(merge_repeats(runs));
  CHECK(mentions(c.unreliable_because, "the ping-pong time falls 75% from"));
  CHECK_FALSE(mentions(c.unreliable_because, "moved"));
}

TEST_CASE("ranks that copy what they receive get a core at the fastest stretch, not a memory, and it loads") {
  CalibrationSamples s = synthetic_samples(3e-6, 4e9, 2e-10);
  s.memory_copy = {{64u << 20, double(64u << 20) / 8e9, {}}};
  s.receiver_copies = true;
  const Calibration c = fit_calibration(s);
  CHECK(c.core_Bps == c.size_factors.bandwidth_Bps);
  CHECK(c.memory_Bps == 0);
  const std::string yaml = calibrated_config_yaml(c, "cpu-test", 2);
  CHECK_THAT(yaml, Catch::Contains("core_copy_Bps: ") && !Catch::Contains("memory_bandwidth_Bps"));
  CHECK_THAT(yaml, Catch::Contains("memcpy"));  // kept as a comment
  const ClusterConfig cluster = parse_cluster_config(yaml, "calibrated");
  REQUIRE(cluster.topology->models_core());
  CHECK(cluster.topology->network.link(cluster.topology->memory_of(0)).bandwidth_Bps ==
        Approx(c.size_factors.bandwidth_Bps).epsilon(1e-9));
  // The flag survives the worker's JSON and merges only where every launch had it.
  CHECK(calibration_samples_from_json(to_json(s)).receiver_copies);
  std::vector<CalibrationSamples> runs(3, s);
  CHECK(merge_repeats(runs).receiver_copies);
  runs[2].receiver_copies = false;
  CHECK_FALSE(merge_repeats(runs).receiver_copies);
}

// Three regimes, as shared memory shows them: small messages pay a large start-up, a middle
// stretch is slow (eager copies), large messages stream at full rate.
CalibrationSamples regime_samples() {
  CalibrationSamples s = synthetic_samples(1e-6, 5e9, 1e-10);
  for (SizeTime& p : s.ping_pong) {
    const double b = double(p.bytes);
    p.seconds = p.bytes < 4096 ? 1e-6 + b / 1e9 : p.bytes < (1u << 20) ? 3e-6 + b / 2e9 : 20e-6 + b / 6e9;
  }
  for (ConcurrentSample& x : s.concurrent) x.seconds = double(x.bytes) / 20e9;  // no shared capacity: each flow alone
  return s;
}

std::vector<LinkId> route_between(const Topology& t, Rank src, Rank dst) {
  std::vector<LinkId> route;
  t.route(src, dst, 0, route);
  return route;
}

TEST_CASE("the calibrated link class follows a sweep through its regimes: every median, by the cost rule") {
  const Calibration c = fit_calibration(regime_samples());
  REQUIRE(c.size_factors.rows.size() == c.samples.ping_pong.size() - 1);
  CHECK(c.size_factors.rows.front().from_bytes == 0);
  double fastest = 0;  // the fastest stretch between measured sizes (here where regimes meet)
  for (std::size_t i = 0; i + 1 < c.samples.ping_pong.size(); ++i) {
    const SizeTime &a = c.samples.ping_pong[i], &b = c.samples.ping_pong[i + 1];
    fastest = std::max(fastest, double(b.bytes - a.bytes) / (b.seconds - a.seconds));
  }
  CHECK(c.size_factors.bandwidth_Bps == Approx(fastest).epsilon(1e-9));
  for (const FittedSizeFactor& r : c.size_factors.rows) {
    CHECK(r.bandwidth > 0);
    CHECK(r.bandwidth <= 1 + 1e-12);
  }
  const ClusterConfig cluster = parse_cluster_config(calibrated_config_yaml(c, "cpu-test", 2), "calibrated");
  const Topology& t = *cluster.topology;
  const std::vector<LinkId> route = route_between(t, 0, 1);
  for (std::size_t i = 0; i < c.samples.ping_pong.size(); ++i) {
    const SizeTime& p = c.samples.ping_pong[i];
    const RouteCost cost = route_cost(t.network, route, p.bytes, 1, simple_protocol());
    INFO(p.bytes << " bytes");
    if (i + 1 < c.samples.ping_pong.size() && c.size_factors.rows[i].bent) continue;  // said so in the YAML
    CHECK(cost.startup_s + double(p.bytes) / cost.bandwidth_Bps == Approx(p.seconds).epsilon(1e-9));
  }
}

TEST_CASE("a stretch whose time does not grow is bent, a jump is a step, and both are marked") {
  CalibrationSamples s = synthetic_samples(1e-6, 5e9, 1e-10);
  s.ping_pong[7].seconds = s.ping_pong[6].seconds * 0.99;  // falls a little: noise, averaged flat
  s.ping_pong[11].seconds *= 3;                          // a jump: its own line would start below zero
  const SizeFactorFit fit = fit_size_factors(s.ping_pong);
  CHECK(fit.rows[6].bent);
  CHECK(fit.rows[10].step);  // the row before carries on up to the jump
  CHECK_FALSE(fit.rows[10].bent);
  CHECK(fit.rows[10].latency == fit.rows[9].latency);
  CHECK(fit.rows[10].bandwidth == fit.rows[9].bandwidth);
  CHECK_FALSE(fit.rows[11].step);  // the jump's far size starts a row of its own
  CHECK_FALSE(fit.rows[0].bent);
  for (const FittedSizeFactor& r : fit.rows) {
    CHECK(r.latency > 0);
    CHECK(r.latency <= 1e4);
    CHECK(r.bandwidth > 0);
    CHECK(r.bandwidth <= 1 + 1e-12);
  }
  const std::string yaml = calibrated_config_yaml(fit_calibration(s), "cpu-test", 2);
  CHECK_THAT(yaml, Catch::Contains("bent to stay physical"));
  CHECK_THAT(yaml, Catch::Contains("a jump at the next size"));
  CHECK_NOTHROW(parse_cluster_config(yaml, "calibrated"));
}

TEST_CASE("ranks that were short of a CPU in any launch make the calibration unreliable") {
  std::vector<CalibrationSamples> runs;
  for (const Parameters& p : quiet_repeats()) runs.push_back(synthetic_samples(p.alpha, p.bandwidth, p.gamma));
  runs[3].on_cpu_fraction = kMinOnCpuFraction / 2;
  const Calibration c = fit_calibration(merge_repeats(runs));
  CHECK(c.samples.on_cpu_fraction == kMinOnCpuFraction / 2);
  CHECK(mentions(c.unreliable_because, "had a CPU only"));
}

TEST_CASE("launches that measured different sizes are not merged") {
  std::vector<CalibrationSamples> runs{synthetic_samples(1e-6, 1e9, 1e-10), synthetic_samples(1e-6, 1e9, 1e-10)};
  runs[1].ping_pong.pop_back();
  CHECK_THROWS_AS(merge_repeats(runs), Error);
  runs[1] = runs[0];
  runs[1].reduction[0].bytes *= 2;
  CHECK_THROWS_AS(merge_repeats(runs), Error);
}

TEST_CASE("an unreliable calibration warns on each line and still loads, carrying its reasons") {
  std::vector<Parameters> repeats = quiet_repeats();
  repeats[0].alpha *= 3, repeats[1].alpha *= 3, repeats[3].alpha *= 3;
  CalibrationSamples s = repeated_samples(repeats);
  s.on_cpu_fraction = kMinOnCpuFraction / 2;
  const Calibration c = fit_calibration(s);
  // alpha moved between repeats, the CPU was shared, and launch 3 met the machine at its
  // other speed (the median's launches were the slow ones).
  REQUIRE(c.unreliable_because.size() == 3);
  CHECK(mentions(c.unreliable_because, "launch 3 of 5 ran at another speed"));

  const std::string warning = unreliable_calibration_warning(c, "validate");
  std::size_t lines = 0;
  for (std::size_t at = 0; at < warning.size(); at = warning.find('\n', at) + 1, ++lines)
    CHECK(warning.compare(at, 26, "collsim validate: warning:") == 0);
  CHECK(lines == c.unreliable_because.size() + 1);
  CHECK_THAT(calibration_summary(c), Catch::Contains("UNRELIABLE"));

  const std::string yaml = calibrated_config_yaml(c, "cpu-test", 2);
  CHECK_THAT(yaml, Catch::Contains("median of 5 repeats"));
  const ClusterConfig cluster = parse_cluster_config(yaml, "calibrated");
  CHECK_FALSE(cluster.calibration_reliable);
  CHECK(cluster.calibration_reasons == c.unreliable_because);
  CHECK(equivalent_cost_model(*cluster.topology, 0).inter_node.alpha_s == Approx(c.link.intercept).epsilon(1e-5));

  const Calibration quiet = fit_calibration(repeated_samples(quiet_repeats()));
  const ClusterConfig good = parse_cluster_config(calibrated_config_yaml(quiet, "cpu-test", 2), "calibrated");
  CHECK(good.calibration_reliable);
  CHECK(good.calibration_reasons.empty());
}

TEST_CASE("a calibration field that is not {reliable, reasons} is refused") {
  const std::string base = calibrated_config_yaml(fit_calibration(synthetic_samples(1e-6, 1e9, 1e-10)), "cpu-test", 2);
  const std::string head = base.substr(0, base.find("calibration:"));
  CHECK_THROWS_WITH(parse_cluster_config(head + "calibration: {reliable: maybe}\n", "c"),
                    Catch::Contains("'calibration.reliable' must be true or false"));
  CHECK_THROWS_WITH(parse_cluster_config(head + "calibration: {reliable: true, spread: 2}\n", "c"),
                    Catch::Contains("unknown key 'spread'"));
  CHECK_THROWS_WITH(parse_cluster_config(head + "calibration: {reliable: false, reasons: 3}\n", "c"),
                    Catch::Contains("'calibration.reasons' must be a list"));
}

TEST_CASE("a GPU calibration's host issue and sync become the YAML's host_issue, merged over launches, and load") {
  std::vector<CalibrationSamples> launches;
  for (double issue_us : {5.3, 5.1, 5.6}) {
    CalibrationSamples s = synthetic_samples(2e-6, 1.4e12, 3e-13);
    s.device = "NVIDIA H100 80GB HBM3";
    s.host_issue = {{4096, issue_us * 1e-6, {}}};
    s.host_sync = {{2, (issue_us - 3) * 1e-6, {}}, {8, (issue_us + 3) * 1e-6, {}}};  // 1 us a stream
    launches.push_back(s);
  }
  const CalibrationSamples merged = merge_repeats(launches);
  REQUIRE(merged.host_issue.size() == 1);
  CHECK(merged.host_issue[0].seconds == Approx(5.3e-6));  // the median of the launches
  CHECK(merged.host_issue[0].repeats.size() == 3);
  const CalibrationSamples back = calibration_samples_from_json(to_json(merged));
  CHECK(back.host_issue[0].repeats == merged.host_issue[0].repeats);
  CHECK(back.host_sync[0].seconds == merged.host_sync[0].seconds);

  const std::string yaml = calibrated_config_yaml(fit_calibration(merged), "gpu", 8);
  CHECK_THAT(yaml, Catch::Contains("host_issue:") && Catch::Contains("per transfer: chained 4K reductions"));
  const ClusterConfig cluster = parse_cluster_config(yaml, "calibrated");
  CHECK(cluster.host_issue.per_transfer_s == Approx(5.3e-6).epsilon(1e-5));
  // the line through (2 streams, 2.3 us) and (8, 8.3 us): 0.3 us + 1 us a stream
  CHECK(cluster.host_issue.sync_per_stream_s == Approx(1e-6).epsilon(1e-5));
  CHECK(cluster.host_issue.sync_s == Approx(0.3e-6).epsilon(1e-4));
  CHECK(cluster.host_issue.sync_of(4) == Approx(4.3e-6).epsilon(1e-4));

  // mpi (and samples from before the host was measured): no host_issue, nothing issued
  const std::string mpi_yaml = calibrated_config_yaml(fit_calibration(synthetic_samples(1e-6, 5e9, 1e-10)), "shm", 4);
  CHECK_THAT(mpi_yaml, !Catch::Contains("host_issue"));
  CHECK(parse_cluster_config(mpi_yaml, "calibrated").host_issue.per_transfer_s == 0);
}

TEST_CASE("calibration samples survive the worker's JSON") {
  const CalibrationSamples s = synthetic_samples(1e-6, 1e9, 1e-10);
  const CalibrationSamples back = calibration_samples_from_json(to_json(s));
  REQUIRE(back.ping_pong.size() == s.ping_pong.size());
  CHECK(back.ping_pong[3].seconds == s.ping_pong[3].seconds);
  CHECK(back.concurrent[1].flows == 4);
  CHECK(back.library == "Test MPI");
}

TEST_CASE("repeats and the CPU share survive JSON, samples without repeats still load") {
  CalibrationSamples s = repeated_samples(quiet_repeats());
  s.on_cpu_fraction = 0.5;
  const CalibrationSamples back = calibration_samples_from_json(to_json(s));
  CHECK(back.ping_pong[2].repeats == s.ping_pong[2].repeats);
  CHECK(back.reduction[1].repeats == s.reduction[1].repeats);
  CHECK(back.concurrent[0].repeats == s.concurrent[0].repeats);
  CHECK(back.on_cpu_fraction == 0.5);

  nlohmann::json old = to_json(synthetic_samples(1e-6, 1e9, 1e-10));
  for (auto& p : old["ping_pong"]) p.erase(2);
  old.erase("on_cpu_fraction");
  const CalibrationSamples plain = calibration_samples_from_json(old);
  CHECK(plain.ping_pong[0].repeats.empty());
  CHECK(plain.on_cpu_fraction == 1);
  CHECK(fit_calibration(plain).repeats.repeats == 0);
}

TEST_CASE("the validation summary is the median and p90 of |error|") {
  std::vector<ValidationRow> rows;
  for (int i = 1; i <= 10; ++i) rows.push_back({"ring", 2, 1024, 1.0 + 0.01 * i * (i % 2 ? 1 : -1), 1.0});
  const ValidationSummary s = summarize(rows);
  CHECK(s.rows == 10);
  CHECK(s.median_abs_error_pct == Approx(5.5));
  CHECK(s.p90_abs_error_pct == Approx(9.0));
  CHECK_THAT(results_csv(rows), Catch::StartsWith("algorithm,ranks,bytes,predicted_s,measured_median_s,error_pct\n"));
  CHECK_THAT(plot_svg(rows, "t"), Catch::Contains("<svg") && Catch::Contains("ring"));
}

TEST_CASE("the summary by rank count marks rank counts above the cores as oversubscribed") {
  std::vector<ValidationRow> rows;
  for (int i = 1; i <= 4; ++i) rows.push_back({"ring", 2, 1024, 1.0 + 0.01 * i, 1.0});
  for (int i = 1; i <= 4; ++i) rows.push_back({"ring", 4, 1024, 1.0 + 0.5 * i, 1.0});
  const std::vector<RanksSummary> s = summarize_by_ranks(rows, 2);
  REQUIRE(s.size() == 2);
  CHECK(s[0].ranks == 2);
  CHECK_FALSE(s[0].oversubscribed);
  CHECK(s[0].summary.median_abs_error_pct == Approx(2.5));
  CHECK(s[1].oversubscribed);
  CHECK(s[1].summary.median_abs_error_pct == Approx(125));
  CHECK_THAT(by_ranks_text(s, 2), Catch::Contains("P = 4 (oversubscribed: 4 ranks on 2 cores)"));
  CHECK_THAT(results_markdown(rows, "", 2), Catch::Contains("reported, not judged"));
}

TEST_CASE("measurements report nccl-tests bandwidths from the median") {
  Measurement m;
  m.ranks = 4;
  m.bytes = 1000000000;
  m.times_s = {3.0, 1.0, 2.0};
  CHECK(m.median_s() == 2.0);
  CHECK(m.algbw_GBps() == Approx(0.5));
  CHECK(m.busbw_GBps() == Approx(0.5 * 2 * 3 / 4.0));
  const Measurement back = measurement_from_json(to_json(m));
  CHECK(back.times_s == m.times_s);
  CHECK(back.issue_s.empty());
  CHECK(m.issue_median_s() == 0);  // not timed (the CPU backends)
  m.issue_s = {3.0e-6, 1.0e-6, 2.0e-6};
  CHECK(m.issue_median_s() == 2.0e-6);
  CHECK(measurement_from_json(to_json(m)).issue_s == m.issue_s);
}

TEST_CASE("mpirun oversubscribes only when there are more ranks than cores") {
  auto has = [](const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); };
  const Rank cores = std::max(1u, std::thread::hardware_concurrency());
  CHECK_FALSE(has(mpirun_command(1, {"w"}), "--oversubscribe"));
  CHECK(has(mpirun_command(cores + 1, {"w"}), "--oversubscribe"));
  CHECK(has(mpirun_command(2, {"w"}), "--bind-to"));
  CHECK(mpirun_command(2, {"w"}).back() == "w");
}

TEST_CASE("with a hostfile, mpirun spreads the ranks over its nodes and takes the extra arguments") {
  LaunchOptions launch;
  launch.hostfile = "nodes.txt";
  launch.mpirun_args = {"--mca", "btl_tcp_if_include", "ib0"};
  const std::vector<std::string> command = mpirun_command(64, {"worker", "job", "out"}, launch);
  const auto at = [&](const std::string& s) { return std::find(command.begin(), command.end(), s); };
  REQUIRE(at("--hostfile") != command.end());
  CHECK(*(at("--hostfile") + 1) == "nodes.txt");
  CHECK(at("self,vader") == command.end());        // other nodes need the network
  CHECK(at("--oversubscribe") == command.end());   // the hostfile's slots decide
  REQUIRE(at("btl_tcp_if_include") != command.end());
  CHECK(at("btl_tcp_if_include") < at("worker"));  // mpirun's own arguments come first
  CHECK(std::vector<std::string>(command.end() - 3, command.end()) == std::vector<std::string>{"worker", "job", "out"});
  const std::vector<std::string> local = mpirun_command(2, {"w"});
  CHECK(std::find(local.begin(), local.end(), "self,vader") != local.end());
}

TEST_CASE("a progress beacon writes its first beat at once and then at most twice a second") {
  // Each beat names its iteration, so `where` changes every time: that must not turn every
  // beat into a file write and rename between timed iterations.
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / "collsim-test-beacon";
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  ProgressBeacon beacon(folder, 3);
  beacon.beat("ring 4K iteration 1 of 1000");
  for (int i = 2; i <= 1000; ++i) beacon.beat(fmt::format("ring 4K iteration {} of 1000", i));
  const std::vector<RankProgress> p = read_progress(folder);
  REQUIRE(p.size() == 1);
  CHECK(p[0].rank == 3);
  // Were every beat written, the file would hold the last one; 1,000 beats take far less than
  // the half second between writes, so it holds an early one (the first, unless stalled).
  CHECK(p[0].beats < 1000);
  CHECK(p[0].where != "ring 4K iteration 1000 of 1000");
  std::filesystem::remove_all(folder);
}

TEST_CASE("a calibration whose launches met the machine at two speeds says so") {
  CHECK_FALSE(mentions(fit_calibration(repeated_samples(quiet_repeats())).unreliable_because, "ran at another speed"));
  // Launch 4 of 5 on the slower speed: start-up 2.5x (small messages), bandwidth 2.5x lower.
  std::vector<Parameters> two_speeds = quiet_repeats();
  two_speeds[3] = {5e-6, 2e9, 1e-10};
  const Calibration c = fit_calibration(repeated_samples(two_speeds));
  CHECK(mentions(c.unreliable_because, "launch 4 of 5 ran at another speed"));
  CHECK_FALSE(c.reliable());
}
