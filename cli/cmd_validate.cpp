// cli/cmd_validate.cpp — `collsim validate`: calibrate, predict every algorithm x
// size with the flow engine on the calibrated config, execute the same schedules, and write
// the comparison to validate/results/<platform>/ (report.hpp). With --measured, the
// measurements come from an nccl-tests log instead and the predictions from a given cluster.
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

struct ValidateOptions {
  std::string backend, bytes = "4K,64K,1M,16M", algo = "all", max_bytes = "64M", out;
  std::string measured;  // an nccl-tests log
  ClusterSource cluster;
  std::vector<Rank> ranks{2, 4};
  std::uint32_t iterations = 10, warmup = 2;
  LaunchOptions launch;  // --timeout default set in add_validate_command
};

// The flow engine's time per (algorithm, bytes) for P ranks on the calibrated node;
// `progress` hears each run start (PredictionStep).
std::map<std::pair<std::string, std::uint64_t>, double> predict_on(const Calibration& c, const std::string& name,
                                                                    const ExecutionJob& job,
                                                                    const std::function<void(const PredictionStep&)>& progress) {
  const ClusterConfig cluster = parse_cluster_config(calibrated_config_yaml(c, name, job.request.ranks), name);
  PredictionRequest r;
  r.collective = job.request.collective;
  r.algorithms = expand_algorithms(job.request);
  r.sizes = job.request.sizes;
  r.ranks = job.request.ranks;
  r.cost = cluster.cost;
  r.topology = cluster.topology;
  r.engine = EngineKind::flow;
  std::map<std::pair<std::string, std::uint64_t>, double> times;
  for (const PredictionRecord& rec : predict(r, progress)) times[{rec.algorithm, rec.bytes}] = rec.time_s;
  return times;
}

// The most ranks asked for, but never more than the cores (at least 2): ranks beyond the
// cores spin for a core while others measure, so the calibration would time the scheduler
// (the worker's CPU-share check then refuses it), not the transport.
Rank calibration_ranks(const ValidateOptions& o) {
  const Rank most = *std::max_element(o.ranks.begin(), o.ranks.end());
  const Rank cores = std::max<Rank>(std::thread::hardware_concurrency(), 2);
  return o.backend == "mpi" || o.backend == "mpi+cuda" ? std::min(most, cores) : most;
}

// The calibrated tables beyond the link's size factors, as the preamble names them ("" when
// the backend measured none).
std::string context_tables(const Calibration& c) {
  std::vector<std::string> parts;
  if (!c.exchange_factors.rows.empty())
    parts.push_back(fmt::format("exchanges by {} rows of their own", c.exchange_factors.rows.size()));
  if (!c.reduction_factors.empty())
    parts.push_back(fmt::format("reductions by {} size rows", c.reduction_factors.size()));
  if (!c.reduction_into_sent_factors.empty())
    parts.push_back(fmt::format("reductions into data just sent by {} more", c.reduction_into_sent_factors.size()));
  return parts.empty() ? "" : fmt::format(" ({})", fmt::join(parts, ", "));
}

std::string preamble(const ValidateOptions& o, const Calibration& c, const std::string& name) {
  std::string text = fmt::format(
      "# Validation: {}\n\n"
      "`collsim validate --backend {} --ranks {} --bytes {} --algo {} --iters {} --warmup {}`\n\n"
      "Predicted: flow engine on `calibrated.yaml`: the rank link follows the ping-pong sweep through {} size-factor "
      "rows (as one line it would be alpha {}, {:.3f} GB/s){}, shared capacity {}, gamma {:.3g} s/B, {}. Measured: the "
      "median of {} iterations of the same schedule executed on backend {}, each verified. Machine: `machine.md`; "
      "plot: `plot.svg`.\n",
      name, o.backend, fmt::join(o.ranks, ","), o.bytes, o.algo, o.iterations, o.warmup, c.size_factors.rows.size(),
      format_seconds(c.link.intercept), to_GBps(1.0 / c.link.slope), context_tables(c),
      c.shared_Bps > 0 ? fmt::format("{:.3f} GB/s", to_GBps(c.shared_Bps)) : std::string("none"), c.gamma_s_per_byte,
      c.core_Bps > 0
          ? fmt::format("each rank's core {:.3f} GB/s of copies, shared by what it receives (the receiver copies) and "
                        "its reductions",
                        to_GBps(c.core_Bps))
      : c.memory_Bps > 0 ? fmt::format("each rank's memory {:.3f} GB/s, shared by its transfers and reductions",
                                       to_GBps(c.memory_Bps))
                         : std::string("no memory bandwidth (reductions overlap transfers for free)"),
      o.iterations, o.backend);
  if (!c.reliable())
    text += fmt::format("\n**The calibration was flagged unreliable**: {}. Read the errors below with that in mind.\n",
                        fmt::join(c.unreliable_because, "; "));
  return text;
}

// The executions validate will run, one per rank count, each checked (backend, algorithms,
// sizes as float elements) before anything is calibrated or launched.
std::vector<ExecutionJob> planned_jobs(const ValidateOptions& o) {
  std::vector<ExecutionJob> jobs;
  for (Rank p : o.ranks) {
    ExecutionJob job;
    job.backend = o.backend;
    job.request.algorithms = parse_name_list(o.algo, "algorithm");
    job.request.sizes = parse_size_list(o.bytes);
    job.request.ranks = p;
    job.iterations = o.iterations;
    job.warmup = o.warmup;
    job.reference = false;
    check_job(job);
    jobs.push_back(job);
  }
  return jobs;
}

// The report folder, created (and shown writable) before the long part starts.
std::filesystem::path report_folder(const ValidateOptions& o, const std::string& name) {
  const std::filesystem::path dir = o.out.empty() ? std::filesystem::path("validate/results") / name : std::filesystem::path(o.out);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw Error(fmt::format("cannot create report folder '{}': {}", dir.string(),
                            ec ? ec.message() : "a file of that name is in the way"));
  return dir;
}

// Backend mpi brackets every case with ping-pong probes and measures again those that ran
// while the machine's speed had moved from the calibration's (validate/machine_drift.hpp);
// oversubscribed rank counts are probed but not run again (their probes time the scheduler).
// Other backends run once, unprobed.
std::vector<ProbedMeasurement> execute_with_probes(const ValidateOptions& o, const ExecutionJob& job, const Calibration& c,
                                                   unsigned cores, ProgressLine& progress) {
  if (o.backend != "mpi") {
    std::vector<ProbedMeasurement> once;
    for (Measurement& m : execute(job, o.launch)) once.push_back({std::move(m), kNoProbe});
    return once;
  }
  const bool retry = job.request.ranks <= std::max(cores, 1u);
  return execute_probed(job, o.launch, c.samples.ping_pong, retry, [&](std::uint64_t bytes, std::size_t cases) {
    progress.note(fmt::format("collsim validate: {} case(s) at {} ran while the machine's speed had moved from the "
                              "calibration's; measuring them again",
                              cases, format_size(bytes)));
  });
}

void run(const ValidateOptions& o) {
  if (o.backend.empty()) throw Error("give --backend NAME (execute here) or --measured FILE (an nccl-tests log)");
  if (!o.cluster.config.empty() || !o.cluster.preset.empty())
    throw Error("--config and --preset go with --measured; --backend calibrates the machine it runs on");
  if (o.ranks.empty()) throw Error("--ranks: give at least one rank count");
  const std::vector<ExecutionJob> jobs = planned_jobs(o);
  if (!o.out.empty()) report_folder(o, "");  // an unwritable -o fails now, not after the runs
  CalibrationJob calibration_job{o.backend, calibration_ranks(o), parse_size(o.max_bytes), 0.05};
  // Stages on stderr: the calibration, then per rank count its prediction and its execution.
  std::optional<ProgressLine> line(std::in_place, "validate");  // reset (cleared) before stdout's summary
  ProgressLine& progress = *line;
  const std::size_t stages = 1 + 2 * jobs.size();
  std::size_t stage = 0;
  progress.note(fmt::format("collsim validate: calibrating on {} ranks", calibration_job.ranks));
  progress.update(fmt::format("calibrating on {} ranks", calibration_job.ranks), double(stage), stages);
  const Calibration c = fit_calibration(measure_calibration(calibration_job, o.launch));
  if (std::string warning = unreliable_calibration_warning(c, "validate"); !warning.empty()) {
    if (warning.back() == '\n') warning.pop_back();
    progress.note(warning);
  }
  const MachineInfo machine = describe_machine(c.samples.library, c.samples.device);
  const std::string name = platform_name(machine, o.backend);
  std::vector<ValidationRow> rows;
  for (const ExecutionJob& job : jobs) {
    const Rank p = job.request.ranks;
    ++stage;
    const auto predicted = predict_on(c, name, job, [&](const PredictionStep& step) {
      const double share = step.total > 0 ? double(step.index) / double(step.total) : 0;
      progress.update(fmt::format("predicting on {} ranks: {} {}", p, step.algorithm, format_size(step.bytes)),
                      double(stage) + share, stages);
    });
    ++stage;
    progress.note(fmt::format("collsim validate: executing on {} ranks", p));
    progress.update(fmt::format("executing on {} ranks", p), double(stage), stages);
    for (const ProbedMeasurement& probed : execute_with_probes(o, job, c, machine.cores, progress)) {
      const Measurement& m = probed.measurement;
      rows.push_back({m.algorithm, p, m.bytes, predicted.at({m.algorithm, m.bytes}), m.median_s(), probed.drift});
    }
  }
  line.reset();
  const std::filesystem::path dir = report_folder(o, name);
  write_text_file(dir / "calibrated.yaml", checked_calibration_yaml(c, name, calibration_job.ranks).yaml, "report file");
  write_text_file(dir / "results.csv", results_csv(rows), "report file");
  write_text_file(dir / "results.md", results_markdown(rows, preamble(o, c, name), machine.cores), "report file");
  write_text_file(dir / "plot.svg", plot_svg(rows, fmt::format("{}: predicted vs measured", name)), "report file");
  write_text_file(dir / "machine.md", machine_markdown(machine), "report file");
  const ValidationSummary s = summarize(rows);
  const std::vector<RanksSummary> by_ranks = summarize_by_ranks(rows, machine.cores);
  fmt::print("collsim validate: {} cases, median |error| {:.1f}%, p90 |error| {:.1f}%{} -> {}\n", s.rows,
             s.median_abs_error_pct, s.p90_abs_error_pct,
             by_ranks.size() > 1 || (by_ranks.size() == 1 && by_ranks[0].oversubscribed)
                 ? " (" + by_ranks_text(by_ranks, machine.cores) + ")"
                 : "",
             dir.string());
  if (any_probed(rows))
    fmt::print("collsim validate: {} of {} cases measured with the machine as calibrated (probes within {:.0f}%; "
               "results.md sums them up apart)\n",
               steady_rows(rows).size(), rows.size(), 100 * kDriftTolerance);
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
  const std::filesystem::path dir = report_folder(o, name);
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
  write_text_file(dir / "results.csv", results_csv(rows), "report file");
  write_text_file(dir / "results.md", results_markdown(rows, preamble, 0, "measured (nccl-tests, out of place)"), "report file");
  write_text_file(dir / "plot.svg",
                  plot_svg(rows, fmt::format("{}: predicted vs measured", name),
                           fmt::format("predicted ({} engine, {})", engine, cluster.name), "measured (nccl-tests log)"),
                  "report file");
  write_text_file(dir / "machine.md", measured_machine_markdown(log), "report file");
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
                  "An nccl-tests log (all_reduce_perf, all_gather_perf, reduce_scatter_perf, broadcast_perf, reduce_perf "
                  "output) to compare with predictions on --config/--preset, instead of executing: its sizes, its rank "
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
  cmd->add_option("-o,--out", o.out, "Report folder (default: validate/results/<platform>)");
  o.launch.timeout_s = 600;  // per launch
  add_launch_options(*cmd, o.launch);
  cmd->callback([options, cmd] {
    if (options->measured.empty()) return run(*options);
    if (!options->backend.empty()) throw Error("give --backend (execute here) or --measured (a log), not both");
    run_measured(*options, *cmd);
  });
}

}  // namespace collsim::cli
