// cli/cmd_calibrate.cpp — `collsim calibrate`: microbenchmarks on a backend, fitted
// to alpha, beta, gamma and a shared capacity, written as a cluster YAML (configs/README.md)
// that `collsim predict --config` loads.
#include <memory>

#include <fmt/format.h>

#include "collectives/error.hpp"
#include "collectives/units.hpp"
#include "topologies/cluster_config.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "collectives/file_io.hpp"
#include "validate/calibrated_model.hpp"
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
  const CheckedCalibration checked = checked_calibration_yaml(c, name, o.job.ranks);
  fmt::print(stderr, "{}", unreliable_calibration_warning(c, "calibrate"));
  if (o.output.empty()) {
    fmt::print("{}", checked.yaml);
    return;
  }
  write_text_file(o.output, checked.yaml, "calibrated config");
  fmt::print("collsim calibrate: {}; {} -> {}\n", calibration_summary(c), checked.verdict(), o.output);
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
