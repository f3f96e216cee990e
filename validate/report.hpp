// validate/report.hpp — the validation report: predicted vs measured per algorithm, ranks
// and size, written to validate/results/<platform>/ as results.csv, results.md (table and
// summary: median and p90 |error|), plot.svg (log-log, drawn here as plain SVG; drifted cases
// crossed), busbw.svg for nccl-tests logs, machine.md.
// Touches only the files it is asked to write.
#pragma once

#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "collectives/schedule.hpp"
#include "validate/machine_drift.hpp"

namespace collsim {

struct ValidationRow {
  std::string algorithm;
  Rank ranks = 0;
  std::uint64_t bytes = 0;
  double predicted_s = 0;
  double measured_median_s = 0;
  // The case's probes against the calibration (validate/machine_drift.hpp); NaN: not probed.
  double machine_drift = kNoProbe;
  // The cuda backend's host (Measurement::issue_s): its median time to enqueue the case's
  // transfers, and the model's for them (the calibration's per_transfer_s x transfers); NaN
  // where not measured or not modelled.
  std::size_t transfers = 0;
  double measured_issue_s = std::numeric_limits<double>::quiet_NaN();
  double model_issue_s = std::numeric_limits<double>::quiet_NaN();
  double error_pct() const { return 100.0 * (predicted_s - measured_median_s) / measured_median_s; }
};

// Whether any row was probed: the report then shows each case's drift and sums up the cases
// measured on the machine as calibrated apart.
bool any_probed(const std::vector<ValidationRow>& rows);
// Whether any row has the host's issue timed (the cuda backend): the report then shows, size by
// size, how much of each case's time the host spent enqueueing it.
bool any_issue_timed(const std::vector<ValidationRow>& rows);
// The rows whose probes stayed within kDriftTolerance (unprobed rows included).
std::vector<ValidationRow> steady_rows(const std::vector<ValidationRow>& rows);

struct ValidationSummary {
  std::size_t rows = 0;
  double median_abs_error_pct = 0;
  double p90_abs_error_pct = 0;
};
ValidationSummary summarize(const std::vector<ValidationRow>& rows);

// One summary per rank count, in increasing order. A rank count above the node's cores is
// oversubscribed: ranks wait for a core, which no network model predicts, so it is reported
// apart and marked, never judged with the others.
struct RanksSummary {
  Rank ranks = 0;
  bool oversubscribed = false;
  ValidationSummary summary;
};
std::vector<RanksSummary> summarize_by_ranks(const std::vector<ValidationRow>& rows, unsigned cores);
// "P = 2: 35 cases, median |error| 9.8%, p90 |error| 21.0%; P = 4 (oversubscribed: 4 ranks on
// 2 cores): ..."
std::string by_ranks_text(const std::vector<RanksSummary>& summaries, unsigned cores);

struct MachineInfo {
  std::string cpu, os, library, compiler, cuda;
  std::string gpu;  // the GPU the backend ran on (cuda); empty for mpi
  unsigned cores = 0;
  double memory_GiB = 0;
};
// `library` and `gpu` as the worker reported them (CalibrationSamples).
MachineInfo describe_machine(const std::string& library, const std::string& gpu = "");
// "cpu-mpi-intel-xeon-processor-2core", or "gpu-nvidia-h100-80gb-hbm3" where a GPU ran it:
// from the machine, never the host name.
std::string platform_name(const MachineInfo& machine, const std::string& backend);

std::string results_csv(const std::vector<ValidationRow>& rows);
// `cores` 0: the cases ran elsewhere (a measured log): no rank is judged oversubscribed.
std::string results_markdown(const std::vector<ValidationRow>& rows, const std::string& preamble, unsigned cores,
                             const std::string& measured_label = "measured (median)");
// The fastest and slowest timed iteration of a case, for its error bar.
struct MeasuredSpread {
  double min_s = 0, max_s = 0;
};
// `spreads`, one per row where given (executed runs; a log has medians only), draws each case's
// fastest .. slowest iteration as a vertical bar through its marker.
std::string plot_svg(const std::vector<ValidationRow>& rows, const std::string& title,
                     const std::string& x_label = "predicted (flow engine, calibrated config)",
                     const std::string& y_label = "measured median", const std::vector<MeasuredSpread>& spreads = {});
// busbw.svg for an nccl-tests log (validate --measured): busbw against size, as nccl-tests users
// read their logs, one colour per algorithm, measured solid and predicted dashed.
std::string busbw_plot_svg(const std::vector<ValidationRow>& rows, Collective collective, const std::string& title,
                           const std::string& predicted_label, const std::string& measured_label);
std::string machine_markdown(const MachineInfo& machine);  // throws Error
// machine.md for an nccl-tests log (validate --measured): what its header says it ran on.
struct NcclTestsLog;
std::string measured_machine_markdown(const NcclTestsLog& log);

}  // namespace collsim
