// tests/validate/test_calibration.cpp — fits, the calibrated YAML (it must load and give the
// numbers back), validation summaries, and the mpirun command line.
#include <catch2/catch.hpp>

#include <thread>

#include "topologies/cluster_config.hpp"
#include "validate/calibration.hpp"
#include "validate/launcher.hpp"
#include "validate/measurement.hpp"
#include "validate/report.hpp"

using namespace collsim;

namespace {

CalibrationSamples synthetic_samples(double alpha, double bandwidth, double gamma) {
  CalibrationSamples s;
  for (std::uint64_t b = 1; b <= (1u << 26); b *= 4) s.ping_pong.push_back({b, alpha + double(b) / bandwidth});
  for (std::uint64_t b = 4096; b <= (1u << 26); b *= 4) s.reduction.push_back({b, 1e-7 + double(b) * gamma});
  s.concurrent = {{2, 1u << 24, 2.0 * (1u << 24) / bandwidth}, {4, 1u << 24, 4.0 * (1u << 24) / (1.5 * bandwidth)}};
  s.library = "Test MPI";
  return s;
}

}  // namespace

TEST_CASE("the relative least-squares fit recovers alpha and beta from exact data") {
  const Calibration c = fit_calibration(synthetic_samples(2e-6, 5e9, 1e-10));
  CHECK(c.link.intercept == Approx(2e-6).epsilon(1e-6));
  CHECK(1.0 / c.link.slope == Approx(5e9).epsilon(1e-6));
  CHECK(c.gamma_s_per_byte == Approx(1e-10).epsilon(1e-6));
  CHECK(c.link.max_relative_residual < 1e-9);
  // 4 flows reached 1.5 links' worth: a shared capacity; 2 flows reached 2 links' worth: none
  CHECK(c.shared_Bps == Approx(1.5 * 5e9));
}

TEST_CASE("a fit needs two different sizes") {
  CHECK_THROWS(fit_relative({{8, 1e-6}}));
  CHECK_THROWS(fit_relative({{8, 1e-6}, {8, 2e-6}}));
}

TEST_CASE("the calibrated config loads as a cluster and carries the fitted numbers") {
  const Calibration c = fit_calibration(synthetic_samples(3e-6, 4e9, 2e-10));
  const std::string yaml = calibrated_config_yaml(c, "cpu-test", 4);
  const ClusterConfig cluster = parse_cluster_config(yaml, "calibrated");
  CHECK(cluster.ranks == 4);
  REQUIRE(cluster.topology);
  CHECK(cluster.cost.gamma_s_per_byte == Approx(2e-10).epsilon(1e-5));
  CHECK(cluster.cost.inter_node.alpha_s == Approx(3e-6).epsilon(1e-5));
  CHECK(1.0 / cluster.cost.inter_node.beta_s_per_byte == Approx(4e9).epsilon(1e-5));
  CHECK_THAT(yaml, Catch::Contains("backplane_Bps"));
  CHECK_THAT(yaml, Catch::Contains("rms relative residual"));
}

TEST_CASE("a GPU calibration is one GPU's virtual ranks, named after the GPU, and loads") {
  CalibrationSamples s = synthetic_samples(4e-6, 1.2e12, 3e-13);
  s.library = "CUDA runtime 13.0, driver API 13.0";
  s.device = "NVIDIA H100 80GB HBM3";
  const Calibration c = fit_calibration(s);
  const std::string yaml = calibrated_config_yaml(c, "gpu-nvidia-h100-80gb-hbm3", 8);
  const ClusterConfig cluster = parse_cluster_config(yaml, "calibrated");
  CHECK(cluster.ranks == 8);
  CHECK(1.0 / cluster.cost.inter_node.beta_s_per_byte == Approx(1.2e12).epsilon(1e-5));
  CHECK_THAT(yaml, Catch::Contains("hbm:") && Catch::Contains("8 virtual ranks on one NVIDIA H100 80GB HBM3"));
  CHECK_THAT(yaml, !Catch::Contains("shm"));
  CHECK(platform_name(describe_machine(s.library, s.device), "cuda") == "gpu-nvidia-h100-80gb-hbm3");
  CHECK_THAT(machine_markdown(describe_machine(s.library, s.device)), Catch::Contains("| GPU | NVIDIA H100 80GB HBM3 |"));
  CHECK(calibration_samples_from_json(to_json(s)).device == s.device);
}

TEST_CASE("calibration samples survive the worker's JSON") {
  const CalibrationSamples s = synthetic_samples(1e-6, 1e9, 1e-10);
  const CalibrationSamples back = calibration_samples_from_json(to_json(s));
  REQUIRE(back.ping_pong.size() == s.ping_pong.size());
  CHECK(back.ping_pong[3].seconds == s.ping_pong[3].seconds);
  CHECK(back.concurrent[1].flows == 4);
  CHECK(back.library == "Test MPI");
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
