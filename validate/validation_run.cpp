// validate/validation_run.cpp — calibrate, predict, execute, report: the steps of
// `collsim validate --backend`, in order.
#include "validate/validation_run.hpp"

#include <algorithm>
#include <map>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/units.hpp"
#include "sim/prediction.hpp"
#include "topologies/cluster_config.hpp"
#include "validate/calibrated_model.hpp"
#include "validate/execution_runs.hpp"

namespace collsim {
namespace {

void tell(const ValidationProgress& progress, const std::string& now, double done, std::size_t total) {
  if (progress.update) progress.update(now, done, total);
}
void note(const ValidationProgress& progress, const std::string& line) {
  if (progress.note) progress.note(line);
}

// The flow engine's time per (algorithm, bytes) for P ranks on the calibrated node;
// `progress` hears each run start (PredictionStep).
std::map<std::pair<std::string, std::uint64_t>, double> predict_on(const Calibration& c, const std::string& name,
                                                                    const ExecutionJob& job,
                                                                    const std::function<void(const PredictionStep&)>& progress) {
  const ClusterConfig cluster = parse_cluster_config(calibrated_config_yaml(c, name, job.request.ranks), name);
  PredictionRequest r = cluster_request(cluster);
  r.collective = job.request.collective;
  r.algorithms = expand_algorithms(job.request);
  r.sizes = job.request.sizes;
  r.ranks = job.request.ranks;
  r.engine = EngineKind::flow;
  r.schedule = job.request.schedule;
  std::map<std::pair<std::string, std::uint64_t>, double> times;
  for (const PredictionRecord& rec : predict(r, progress)) times[{rec.algorithm, rec.bytes}] = rec.time_s;
  return times;
}

// The most ranks asked for, but never more than the cores (at least 2): ranks beyond the
// cores spin for a core while others measure, so the calibration would time the scheduler
// (the worker's CPU-share check then refuses it), not the transport.
Rank calibration_ranks(const ValidationPlan& plan) {
  const Rank most = *std::max_element(plan.ranks.begin(), plan.ranks.end());
  const Rank cores = std::max<Rank>(std::thread::hardware_concurrency(), 2);
  return plan.backend == "mpi" || plan.backend == "mpi+cuda" ? std::min(most, cores) : most;
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

std::string memory_words(const Calibration& c) {
  if (c.core_Bps > 0)
    return fmt::format("each rank's core {:.3f} GB/s of copies, shared by what it receives (the receiver copies) and "
                       "its reductions",
                       to_GBps(c.core_Bps));
  if (c.memory_Bps > 0)
    return fmt::format("each rank's memory {:.3f} GB/s, shared by its transfers and reductions", to_GBps(c.memory_Bps));
  return "no memory bandwidth (reductions overlap transfers for free)";
}

// The command line's cases: built-in algorithms x sizes x rank counts, or the brought schedule.
std::string cases_arguments(const ValidationPlan& plan) {
  if (plan.schedule) return "--schedule FILE";
  return fmt::format("--ranks {} --bytes {} --algo {}", fmt::join(plan.ranks, ","), plan.sizes, plan.algorithms);
}

// What the brought schedule is, after the command line ("" without one).
std::string brought_words(const ValidationPlan& plan) {
  if (!plan.schedule) return "";
  const ScheduleInfo& info = plan.schedule->info();
  return fmt::format(": FILE is a {} {} on {} ranks, {} bytes", info.algorithm, to_string(info.collective), info.ranks,
                     info.bytes);
}

std::string preamble(const ValidationPlan& plan, const Calibration& c, const std::string& name) {
  std::string text = fmt::format(
      "# Validation: {}\n\n"
      "`collsim validate --backend {} {} --iters {} --warmup {}`{}\n\n"
      "Predicted: flow engine on `calibrated.yaml`: the rank link follows the ping-pong sweep through {} size-factor "
      "rows (as one line it would be alpha {}, {:.3f} GB/s){}, shared capacity {}, gamma {:.3g} s/B, {}. Measured: the "
      "median of {} iterations of the same schedule executed on backend {}, each verified. Machine: `machine.md`; "
      "plot: `plot.svg`.\n",
      name, plan.backend, cases_arguments(plan), plan.iterations, plan.warmup, brought_words(plan),
      c.size_factors.rows.size(), format_seconds(c.link.intercept), to_GBps(1.0 / c.link.slope), context_tables(c),
      c.shared_Bps > 0 ? fmt::format("{:.3f} GB/s", to_GBps(c.shared_Bps)) : std::string("none"), c.gamma_s_per_byte,
      memory_words(c), plan.iterations, plan.backend);
  if (!c.reliable())
    text += fmt::format("\n**The calibration was flagged unreliable**: {}. Read the errors below with that in mind.\n",
                        fmt::join(c.unreliable_because, "; "));
  return text;
}

// Validate compares predictions with times measured on the ranks. An in-network schedule
// runs only with its switches emulated by processes of this host, whose speed is not a
// switch's, so its times would fit nothing: refused, named, before anything starts.
void refuse_emulated_switches(const ExecutionRequest& request) {
  const auto refuse = [](std::string_view name) {
    throw Error(fmt::format("{} reduces in switches, which a run only emulates with processes of this host "
                            "(their time is not a switch's), so its times validate nothing: leave it out (collsim run "
                            "--backend mpi still executes and verifies it)",
                            name));
  };
  if (request.schedule) {
    if (request.schedule->info().reducers > 0) refuse(request.schedule->info().algorithm);
    return;
  }
  for (const std::string& name : request.algorithms)
    if (const AlgorithmEntry* a = lookup_algorithm(name); a && a->in_network != InNetwork::none) refuse(name);
}

// The executions validate will run, one per rank count, each checked (backend, algorithms,
// sizes as float elements) before anything is calibrated or launched.
std::vector<ExecutionJob> planned_jobs(const ValidationPlan& plan) {
  std::vector<ExecutionJob> jobs;
  for (Rank p : plan.ranks) {
    ExecutionJob job;
    job.backend = plan.backend;
    job.request.algorithms = parse_name_list(plan.algorithms, "algorithm");
    job.request.sizes = parse_size_list(plan.sizes);
    job.request.ranks = p;
    job.iterations = plan.iterations;
    job.warmup = plan.warmup;
    job.reference = false;
    if (plan.schedule) bring_schedule(job.request, plan.schedule);
    refuse_emulated_switches(job.request);
    check_job(job);
    jobs.push_back(job);
  }
  return jobs;
}

// Backend mpi brackets every case with ping-pong probes and measures again those that ran
// while the machine's speed had moved from the calibration's (validate/machine_drift.hpp);
// oversubscribed rank counts are probed but not run again (their probes time the scheduler).
// Backend cuda alike with the host's issue per transfer (its time is the one host thread's:
// execute/device/host_issue_probe.hpp) against the calibration's host_issue. Other backends run
// once, unprobed.
std::vector<ProbedMeasurement> execute_with_probes(const ValidationPlan& plan, const ExecutionJob& job,
                                                   const Calibration& c, unsigned cores,
                                                   const ValidationProgress& progress) {
  const bool host_probed = plan.backend == "cuda" && !c.samples.host_issue.empty();
  if (plan.backend != "mpi" && !host_probed) {
    std::vector<ProbedMeasurement> once;
    for (Measurement& m : execute(job, plan.launch)) once.push_back({std::move(m), kNoProbe});
    return once;
  }
  const bool retry = host_probed || job.request.ranks <= std::max(cores, 1u);
  const std::vector<SizeTime>& reference = host_probed ? c.samples.host_issue : c.samples.ping_pong;
  return execute_probed(job, plan.launch, reference, retry, [&](std::uint64_t bytes, std::size_t cases) {
    note(progress, fmt::format("collsim validate: {} case(s) at {} ran while the machine's speed had moved from the "
                               "calibration's; measuring them again",
                               cases, format_size(bytes)));
  });
}

CalibrationJob calibration_job(const ValidationPlan& plan) {
  return {plan.backend, calibration_ranks(plan), parse_size(plan.max_bytes), 0.05};
}

Calibration calibrate(const ValidationPlan& plan, const ValidationProgress& progress, std::size_t stages) {
  const CalibrationJob job = calibration_job(plan);
  note(progress, fmt::format("collsim validate: calibrating on {} ranks", job.ranks));
  tell(progress, fmt::format("calibrating on {} ranks", job.ranks), 0, stages);
  Calibration c = fit_calibration(measure_calibration(job, plan.launch));
  if (std::string warning = unreliable_calibration_warning(c, "validate"); !warning.empty()) {
    if (warning.back() == '\n') warning.pop_back();
    note(progress, warning);
  }
  return c;
}

void write_report(const std::filesystem::path& dir, const ValidationPlan& plan, const Calibration& c,
                  const std::string& name, const MachineInfo& machine, const std::vector<ValidationRow>& rows,
                  const std::vector<MeasuredSpread>& spreads) {
  write_report_folder(
      dir, {{"calibrated.yaml", checked_calibration_yaml(c, name, calibration_ranks(plan)).yaml},
            {"results.csv", results_csv(rows)},
            {"results.md", results_markdown(rows, preamble(plan, c, name), machine.cores)},
            {"plot.svg", plot_svg(rows, fmt::format("{}: predicted vs measured", name),
                                  "predicted (flow engine, calibrated config)", "measured median", spreads)},
            {"machine.md", machine_markdown(machine)}});
}

// The case's issue as measured (the cuda backend times it) and as the calibration models it.
void add_host_issue(ValidationRow& row, const Measurement& m, const Calibration& c) {
  row.transfers = m.transfers;
  if (m.issue_s.empty()) return;
  row.measured_issue_s = m.issue_median_s();
  if (!c.samples.host_issue.empty()) row.model_issue_s = double(m.transfers) * c.samples.host_issue.front().seconds;
}

}  // namespace

std::filesystem::path report_folder(const std::filesystem::path& out, const std::string& name) {
  const std::filesystem::path dir = out.empty() ? std::filesystem::path("validate/results") / name : out;
  check_report_folder(dir, kReportFiles, "report folder");
  return dir;
}

void write_report_folder(const std::filesystem::path& folder, const std::vector<FolderFile>& files) {
  replace_folder(folder, files, kReportFiles, "report folder");
}

ValidationOutcome run_validation(const ValidationPlan& plan, const ValidationProgress& progress) {
  if (plan.backend.empty()) throw Error("give --backend NAME (execute here) or --measured FILE (an nccl-tests log)");
  if (plan.ranks.empty()) throw Error("--ranks: give at least one rank count");
  const std::vector<ExecutionJob> jobs = planned_jobs(plan);
  if (!plan.out.empty()) report_folder(plan.out, "");  // an unwritable -o fails now, not after the runs
  check_calibration_job(calibration_job(plan));  // --max-bytes 4K fails now, not after MPI starts
  // Stages: the calibration, then per rank count its prediction and its execution.
  const std::size_t stages = 1 + 2 * jobs.size();
  const Calibration c = calibrate(plan, progress, stages);
  const MachineInfo machine = describe_machine(c.samples.library, c.samples.device);
  const std::string name = platform_name(machine, plan.backend);
  ValidationOutcome outcome;
  std::vector<MeasuredSpread> spreads;  // per row: its fastest and slowest iteration, for the plot
  std::size_t stage = 0;
  for (const ExecutionJob& job : jobs) {
    const Rank p = job.request.ranks;
    ++stage;
    const auto predicted = predict_on(c, name, job, [&](const PredictionStep& step) {
      const double share = step.total > 0 ? double(step.index) / double(step.total) : 0;
      tell(progress, fmt::format("predicting on {} ranks: {} {}", p, step.algorithm, format_size(step.bytes)),
           double(stage) + share, stages);
    });
    ++stage;
    note(progress, fmt::format("collsim validate: executing on {} ranks", p));
    tell(progress, fmt::format("executing on {} ranks", p), double(stage), stages);
    for (const ProbedMeasurement& probed : execute_with_probes(plan, job, c, machine.cores, progress)) {
      const Measurement& m = probed.measurement;
      ValidationRow row{m.algorithm, p, m.bytes, predicted.at({m.algorithm, m.bytes}), m.median_s(), probed.drift};
      add_host_issue(row, m, c);
      outcome.rows.push_back(row);
      spreads.push_back({m.min_s(), m.max_s()});
    }
  }
  outcome.folder = report_folder(plan.out, name);
  write_report(outcome.folder, plan, c, name, machine, outcome.rows, spreads);
  outcome.cores = machine.cores;
  outcome.summary = summarize(outcome.rows);
  return outcome;
}

}  // namespace collsim
