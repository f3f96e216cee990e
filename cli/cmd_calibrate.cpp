// cli/cmd_calibrate.cpp — `collsim calibrate`: microbenchmarks on a backend, fitted
// to alpha, beta, gamma and a shared capacity, written as a cluster YAML (configs/README.md)
// that `collsim predict --config` loads. With --measured, a given cluster's link classes
// fitted to an nccl-tests log instead (validate/measured_fit.hpp).
#include <memory>

#include <fmt/format.h>

#include "base/atomic_file.hpp"
#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/units.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "sim/prediction.hpp"
#include "topologies/cluster_config.hpp"
#include "validate/calibrated_model.hpp"
#include "validate/execution_runs.hpp"
#include "validate/measured_fit.hpp"
#include "validate/nccl_tests_log.hpp"
#include "validate/report.hpp"

namespace collsim::cli {
namespace {

struct CalibrateOptions {
  CalibrationJob job;
  std::string max_bytes = "64M", output;
  // An nccl-tests log; the algorithm its times are fitted with (by default what NCCL would run).
  std::string measured, algo = std::string(kNcclChoice);
  ClusterSource cluster;
  LaunchOptions launch;  // --timeout default set in add_calibrate_command
};

std::string class_summary(const FittedLinkClass& c) {
  auto value = [](bool fitted, const std::string& before, const std::string& after) {
    return fitted ? fmt::format("{} -> {}", before, after) : fmt::format("{} (kept)", before);
  };
  return fmt::format("{} efficiency {}, alpha {}", c.name,
                     value(c.efficiency_fitted, fmt::format("{:.4g}", c.efficiency_before), fmt::format("{:.4g}", c.efficiency)),
                     value(c.alpha_fitted, format_seconds(c.alpha_before_s), format_seconds(c.alpha_s)));
}

// --measured: the cluster's crossed link classes fitted to the log; the fitted YAML out.
void run_measured(const CalibrateOptions& o, const CLI::App& cmd) {
  for (const char* option : {"--ranks", "--max-bytes", "--seconds-per-point", "--repeats", "--hostfile", "--mpirun-arg", "--timeout"})
    if (cmd.count(option) > 0) throw Error(fmt::format("{} is for --backend runs; with --measured the points are the log's", option));
  if (o.cluster.config.empty() == o.cluster.preset.empty())
    throw Error("--measured needs the cluster to fit: --config FILE or --preset NAME (one of them)");
  if (o.algo.find(',') != std::string::npos || o.algo == "all")
    throw Error("--algo: with --measured give one algorithm, 'nccl' or 'auto' (one predicted time per size is fitted)");
  if (!o.output.empty()) check_writable(o.output, "fitted config");
  const NcclTestsLog log = load_nccl_tests_log(o.measured);
  MeasuredFitRequest request;
  request.cluster_yaml = o.cluster.preset.empty() ? read_text_file(o.cluster.config, "cluster config", kMaxConfigBytes)
                                                  : preset_yaml(o.cluster.preset);
  request.cluster_origin = o.cluster.preset.empty() ? o.cluster.config : "preset " + o.cluster.preset;
  request.log_name = o.measured;
  request.algorithm = o.algo;
  MeasuredFit fit;
  try {
    fit = fit_to_measured(log, request);
  } catch (const Error& e) {
    throw Error(fmt::format("{} ({} ranks) on {}: {}", o.measured, log.rank_count(), request.cluster_origin, e.what()));
  }
  if (fit.rms_after > kMaxFittedRmsError)
    fmt::print(stderr,
               "collsim calibrate: warning: the fitted model is still {:.1f}% off the log (rms, more than {:.0f}%): the "
               "algorithm fitted (--algo {}) may not be what ran, or the log's system is not this cluster; do not trust "
               "these numbers (the YAML lists every size)\n",
               100 * fit.rms_after, 100 * kMaxFittedRmsError, o.algo);
  if (o.output.empty()) {
    fmt::print("{}", fit.yaml);
    return;
  }
  write_text_file(o.output, fit.yaml, "fitted config");
  std::string classes;
  for (const FittedLinkClass& c : fit.classes) classes += (classes.empty() ? "" : "; ") + class_summary(c);
  fmt::print("collsim calibrate: {} from {} sizes of {} on {} ranks ({} host{}); rms error {:.1f}% -> {:.1f}% -> {}\n", classes,
             fit.points.size(), log.program.empty() ? std::string(to_string(log.collective)) : log.program, log.rank_count(),
             log.host_count(), log.host_count() == 1 ? "" : "s", 100 * fit.rms_before, 100 * fit.rms_after, o.output);
}

void run(CalibrateOptions o, const CLI::App& cmd) {
  if (cmd.count("--backend") == 0) throw Error("give --backend NAME (measure here) or --measured FILE (an nccl-tests log)");
  if (!o.cluster.config.empty() || !o.cluster.preset.empty())
    throw Error("--config and --preset go with --measured; --backend calibrates the machine it runs on");
  o.job.max_bytes = parse_size(o.max_bytes);
  if (!o.output.empty()) check_writable(o.output, "calibrated config");  // before minutes of measuring
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
  CLI::App* cmd = app.add_subcommand("calibrate", "Measure alpha, beta, gamma and shared capacity; write a cluster YAML. "
                                                   "Or fit a cluster's link classes to an nccl-tests log (--measured)");
  add_backend_option(*cmd, o.job.backend, true, false);
  cmd->add_option("--measured", o.measured,
                  "An nccl-tests log of a small system (one node fits the intra-node link classes, two nodes the NIC and "
                  "fabric too): fit the efficiency and alpha of the link classes its collective crosses on "
                  "--config/--preset (least squares on the relative error of the flow engine's times), instead of "
                  "measuring here");
  add_cluster_options(*cmd, o.cluster, "With --measured: the cluster YAML to fit");
  add_algo_option(*cmd, o.algo,
                  "With --measured: the algorithm whose predicted times are fitted: 'nccl' (default: what NCCL would run), "
                  "'auto' (the fastest collsim algorithm per size), or the one that ran where you know it "
                  "(NCCL_ALGO=Ring: ring)")
      ->capture_default_str();
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
  cmd->callback([options, cmd] {
    if (options->measured.empty()) {
      if (cmd->count("--algo") > 0) throw Error("--algo goes with --measured");
      return run(*options, *cmd);
    }
    if (cmd->count("--backend") > 0) throw Error("give --backend (measure here) or --measured (a log), not both");
    run_measured(*options, *cmd);
  });
}

}  // namespace collsim::cli
