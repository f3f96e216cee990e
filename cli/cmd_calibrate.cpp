// cli/cmd_calibrate.cpp — `collsim calibrate`: microbenchmarks on a backend, fitted
// to alpha, beta, gamma and a shared capacity, written as a cluster YAML (configs/README.md)
// that `collsim predict --config` loads.
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "collectives/error.hpp"
#include "collectives/units.hpp"
#include "topologies/cluster_config.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "validate/execution_runs.hpp"
#include "validate/report.hpp"

namespace collsim::cli {
namespace {

struct CalibrateOptions {
  CalibrationJob job;
  std::string max_bytes = "64M", output;
  LaunchOptions launch;  // --timeout default set in add_calibrate_command
};

void run(CalibrateOptions o) {
  o.job.max_bytes = parse_size(o.max_bytes);
  const Calibration c = fit_calibration(measure_calibration(o.job, o.launch));
  const std::string name = platform_name(describe_machine(c.samples.library, c.samples.device), o.job.backend);
  const std::string yaml = calibrated_config_yaml(c, name, o.job.ranks);
  parse_cluster_config(yaml, "calibrated config");  // what we write must load
  fmt::print(stderr, "{}", unreliable_calibration_warning(c, "calibrate"));
  if (o.output.empty()) {
    fmt::print("{}", yaml);
    return;
  }
  std::ofstream file(o.output);
  file << yaml;
  if (!file) throw Error("cannot write " + o.output);
  fmt::print("collsim calibrate: {} -> {}\n", calibration_summary(c), o.output);
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto options = std::make_shared<CalibrateOptions>();
  CalibrateOptions& o = *options;
  CLI::App* cmd = app.add_subcommand("calibrate", "Measure alpha, beta, gamma and shared capacity; write a cluster YAML");
  add_backend_option(*cmd, o.job.backend, true);
  add_ranks_option(*cmd, o.job.ranks, kMaxExecutedRanks, "Ranks (pairs for the concurrent test)", 2)->capture_default_str();
  cmd->add_option("--max-bytes", o.max_bytes, "Largest ping-pong message (1 B .. this)")->capture_default_str();
  cmd->add_option("--seconds-per-point", o.job.seconds_per_point, "Time spent on each size")
      ->capture_default_str()
      ->check(positive_number());
  cmd->add_option("--repeats", o.job.repeats, "Launches, each measuring every point once (median; the spread is kept)")
      ->capture_default_str()
      ->check(whole_number(3, 100));
  cmd->add_option("-o,--output", o.output, "Write the YAML here (default: standard output)");
  o.launch.timeout_s = 300;
  add_launch_options(*cmd, o.launch);
  cmd->callback([options] { run(*options); });
}

}  // namespace collsim::cli
