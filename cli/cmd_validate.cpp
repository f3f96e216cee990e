// cli/cmd_validate.cpp — `collsim validate`: calibrate, predict every algorithm x size with the
// flow engine on the calibrated config, execute the same schedules, and write the comparison
// to validate/results/<platform>/ (validate/validation_run.hpp does it; this file reads the
// options and prints the summary). With --measured, the measurements come from an nccl-tests
// log instead and the predictions from a given cluster.
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/progress_line.hpp"
#include "base/units.hpp"
#include "cli/brought_schedule.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "sim/prediction.hpp"
#include "topologies/cluster_config.hpp"
#include "validate/calibrated_model.hpp"
#include "validate/execution_runs.hpp"
#include "validate/measured_fit.hpp"
#include "validate/nccl_tests_log.hpp"
#include "validate/report.hpp"
#include "validate/validation_run.hpp"

namespace collsim::cli {
namespace {

struct ValidateOptions {
  std::string backend, bytes = "4K,64K,1M,16M", algo = "all", max_bytes = "64M", out;
  std::string measured;  // an nccl-tests log
  ClusterSource cluster;
  std::vector<Rank> ranks{2, 4};
  std::uint32_t iterations = 10, warmup = 2;
  LaunchOptions launch;  // --timeout default set in add_validate_command
  BroughtSchedule brought;  // --schedule FILE: the one case, at its own ranks and size
};

// --schedule FILE: the plan's one case; --ranks, where given, must be the schedule's.
void bring_schedule(ValidationPlan& plan, const BroughtSchedule& brought, bool ranks_given) {
  plan.schedule = load_brought_schedule(brought);
  const Rank ranks = plan.schedule->info().ranks;
  if (ranks_given && plan.ranks != std::vector<Rank>{ranks})
    throw Error(fmt::format("the schedule is for {} ranks: give --ranks {} or leave --ranks out", ranks, ranks));
  plan.ranks = {ranks};
}

void run(const ValidateOptions& o, const CLI::App& cmd) {
  if (o.backend.empty()) throw Error("give --backend NAME (execute here) or --measured FILE (an nccl-tests log)");
  if (!o.cluster.config.empty() || !o.cluster.preset.empty())
    throw Error("--config and --preset go with --measured; --backend calibrates the machine it runs on");
  ValidationPlan plan{.backend = o.backend,
                      .ranks = o.ranks,
                      .algorithms = o.algo,
                      .sizes = o.bytes,
                      .max_bytes = o.max_bytes,
                      .iterations = o.iterations,
                      .warmup = o.warmup,
                      .out = o.out,
                      .launch = o.launch,
                      .schedule = nullptr};
  if (o.brought.given()) bring_schedule(plan, o.brought, cmd.count("--ranks") > 0);
  ValidationOutcome outcome;
  {
    ProgressLine line("validate");  // cleared before stdout's summary
    outcome = run_validation(plan, {.update = [&](const std::string& now, double done,
                                                  std::size_t total) { line.update(now, done, total); },
                                    .note = [&](const std::string& text) { line.note(text); }});
  }
  const ValidationSummary& s = outcome.summary;
  const std::vector<RanksSummary> by_ranks = summarize_by_ranks(outcome.rows, outcome.cores);
  fmt::print("collsim validate: {} cases, median |error| {:.1f}%, p90 |error| {:.1f}%{} -> {}\n", s.rows,
             s.median_abs_error_pct, s.p90_abs_error_pct,
             by_ranks.size() > 1 || (by_ranks.size() == 1 && by_ranks[0].oversubscribed)
                 ? " (" + by_ranks_text(by_ranks, outcome.cores) + ")"
                 : "",
             outcome.folder.string());
  if (any_probed(outcome.rows))
    fmt::print("collsim validate: {} of {} cases measured with the machine as calibrated (probes within {:.0f}%; "
               "results.md sums them up apart)\n",
               steady_rows(outcome.rows).size(), outcome.rows.size(), 100 * kDriftTolerance);
}

// --measured: what validate --backend would report, with the log's times as the measured
// ones and the cluster's predictions (flow engine) as the predicted ones.
void run_measured(const ValidateOptions& o, const CLI::App& cmd) {
  for (const char* option : {"--bytes", "--iters", "--warmup", "--max-bytes", "--hostfile", "--mpirun-arg", "--timeout"})
    if (cmd.count(option) > 0)
      throw Error(fmt::format("{} is for executed runs (--backend); with --measured the sizes and times are the log's", option));
  if (o.cluster.config.empty() && o.cluster.preset.empty())
    throw Error("--measured needs the cluster the log ran on: --config FILE or --preset NAME (collsim topo --list)");
  if (cmd.count("--ranks") > 0 && o.ranks.size() != 1)
    throw Error("--ranks: with --measured give one rank count (default: the log's)");
  const NcclTestsLog log = load_nccl_tests_log(o.measured);
  const Rank ranks = cmd.count("--ranks") > 0 ? o.ranks[0] : log.rank_count();
  // By default what NCCL would run (--algo nccl): the log is NCCL's.
  const std::string algo = cmd.count("--algo") > 0 ? o.algo : std::string(kNcclChoice);
  const ClusterConfig given = load_cluster(o.cluster);
  ClusterConfig cluster;
  std::vector<PredictionRecord> records;
  try {
    cluster = cluster_with_ranks(given, ranks);
    records = predict_log_sizes(cluster, log, parse_name_list(algo, "algorithm"));
  } catch (const Error& e) {
    throw Error(fmt::format("{} ({} ranks) on {}: {}", o.measured, ranks, given.name, e.what()));
  }
  std::vector<ValidationRow> rows;
  for (const PredictionRecord& rec : records)
    for (const NcclTestsRow& row : log.rows)
      if (row.size_bytes == rec.bytes) rows.push_back({rec.algorithm, ranks, rec.bytes, rec.time_s, row.measured_s()});
  const std::string name = std::filesystem::path(o.measured).stem().string();
  const std::filesystem::path dir = report_folder(o.out, name);
  const std::string_view engine = to_string(default_engine(cluster.topology));
  const std::string preamble = fmt::format(
      "# Validation: {} against {}\n\n"
      "`collsim validate --measured {} {} --algo {}`\n\n"
      "Measured: the nccl-tests log `{}` ({}, {} ranks on {} host{}{}), the out-of-place time of each line (nccl-tests' mean over its iterations). Predicted: "
      "{} engine on {} with {} ranks, algorithm {}. Machine: `machine.md`; plot: `plot.svg`.\n",
      name, cluster.name, o.measured, o.cluster.config.empty() ? "--preset " + o.cluster.preset : "--config " + o.cluster.config,
      algo, o.measured, log.program.empty() ? std::string(to_string(log.collective)) : log.program, log.rank_count(),
      log.host_count(), log.host_count() == 1 ? "" : "s", log.nccl_version.empty() ? "" : ", " + log.nccl_version, engine,
      cluster.name, ranks, algo);
  write_report_folder(
      dir, {{"results.csv", results_csv(rows)},
            {"results.md", results_markdown(rows, preamble, 0, "measured (nccl-tests, out of place)")},
            {"plot.svg", plot_svg(rows, fmt::format("{}: predicted vs measured", name),
                                  fmt::format("predicted ({} engine, {})", engine, cluster.name), "measured (nccl-tests log)")},
            {"busbw.svg", busbw_plot_svg(rows, log.collective, fmt::format("{}: busbw against size", name),
                                         fmt::format("predicted ({} engine)", engine), "measured (nccl-tests)")},
            {"machine.md", measured_machine_markdown(log)}});
  const ValidationSummary s = summarize(rows);
  fmt::print("collsim validate: {} cases, median |error| {:.1f}%, p90 |error| {:.1f}% -> {}\n", s.rows, s.median_abs_error_pct,
             s.p90_abs_error_pct, dir.string());
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto options = std::make_shared<ValidateOptions>();
  ValidateOptions& o = *options;
  CLI::App* cmd = app.add_subcommand(
      "validate", "Calibrate, predict (flow engine), execute, and report predicted vs measured; or compare an nccl-tests log "
                  "(--measured) with predictions on a cluster");
  add_backend_option(*cmd, o.backend, true, false);
  cmd->add_option("--measured", o.measured,
                  "An nccl-tests log (all_reduce_perf, all_gather_perf, reduce_scatter_perf, broadcast_perf, reduce_perf, "
                  "alltoall_perf output) to compare with predictions on --config/--preset, instead of executing: its sizes, its rank "
                  "count (unless --ranks), its out-of-place times; the report goes to -o (default "
                  "validate/results/<log name>)");
  add_cluster_options(*cmd, o.cluster, "With --measured: the cluster YAML the log ran on");
  add_ranks_option(*cmd, o.ranks, kMaxExecutedRanks, "Rank counts, e.g. 2,4")->capture_default_str();
  add_bytes_option(*cmd, o.bytes, "Sizes per rank, multiples of 4 (float32)")->capture_default_str();
  add_algo_option(*cmd, o.algo,
                  "Algorithm names (comma-separated) or 'all'; with --measured also 'nccl' (the default there: what NCCL "
                  "would run) and 'auto' (the fastest collsim algorithm per size on the flow engine)")
      ->capture_default_str();
  cmd->add_option("--max-bytes", o.max_bytes, "Largest calibration message")->capture_default_str();
  cmd->add_option("--iters", o.iterations, "Timed iterations per case")->capture_default_str()->check(whole_number(1, 100000));
  cmd->add_option("--warmup", o.warmup, "Warm-up iterations per case")->capture_default_str()->check(whole_number(0, 100000));
  cmd->add_option("-o,--out", o.out, "Report folder, replaced as a whole (default: validate/results/<platform>)");
  add_brought_schedule_options(*cmd, o.brought, "execute and predict instead of --algo, at its own ranks and size",
                               {"--algo", "--measured"});
  o.launch.timeout_s = 600;  // per launch
  add_launch_options(*cmd, o.launch);
  cmd->callback([options, cmd] {
    if (options->measured.empty()) return run(*options, *cmd);
    if (!options->backend.empty()) throw Error("give --backend (execute here) or --measured (a log), not both");
    run_measured(*options, *cmd);
  });
}

}  // namespace collsim::cli
