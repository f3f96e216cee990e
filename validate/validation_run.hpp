// validate/validation_run.hpp — `collsim validate --backend B` as a library call, for the
// command line and the Python module alike: calibrate the machine it runs on, predict every
// planned rank count's algorithms x sizes with the flow engine on the calibrated config,
// execute the same schedules (mpi: each case between machine-drift probes, measured again
// while the machine had moved: machine_drift.hpp), and write the report (report.hpp:
// calibrated.yaml, results.csv, results.md, plot.svg, machine.md) into one folder, replaced
// as a whole (old or new, never mixed).
// Touches: the launched workers (execute/launcher.hpp) and the report folder.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/atomic_file.hpp"
#include "execute/launcher.hpp"
#include "validate/report.hpp"

namespace collsim {

struct ValidationPlan {
  std::string backend;
  std::vector<Rank> ranks{2, 4};
  std::string algorithms = "all";         // names, comma-separated, or "all"
  std::string sizes = "4K,64K,1M,16M";    // per rank, multiples of 4 (float32)
  std::string max_bytes = "64M";          // the calibration's largest message
  std::uint32_t iterations = 10, warmup = 2;
  std::filesystem::path out;              // the report folder; empty: validate/results/<platform>
  LaunchOptions launch;
  // A schedule the user brought (`validate --schedule FILE`), proved: the one case, at its own
  // rank count and size, in place of `ranks`, `algorithms` and `sizes`.
  std::shared_ptr<const Schedule> schedule;
};

// What a long validation tells as it goes: a stage and the share of all stages done (for a
// progress line), and lines that stay (what it is doing, what it measures again).
struct ValidationProgress {
  std::function<void(const std::string& now, double done, std::size_t total)> update;
  std::function<void(const std::string& line)> note;
};

struct ValidationOutcome {
  std::filesystem::path folder;  // where the report went
  std::vector<ValidationRow> rows;
  unsigned cores = 0;            // the machine's, for the rank counts it oversubscribed
  ValidationSummary summary;
};

// Throws Error before anything runs when the plan cannot run (no backend or rank count, an
// unknown algorithm, sizes that are not whole floats, an unwritable `out`), and after, when a
// launch fails (the worker's one line).
ValidationOutcome run_validation(const ValidationPlan& plan, const ValidationProgress& progress = {});

// The report folder `out`, or validate/results/`name`, created and shown replaceable: writable,
// holding nothing but report files (a report replaces the whole folder). Throws Error.
std::filesystem::path report_folder(const std::filesystem::path& out, const std::string& name);

// The files a report folder may hold; `files` written as the folder's whole new content, all
// at once (base/atomic_file.hpp): a failure leaves the old report as it was.
inline const std::vector<std::string> kReportFiles{"calibrated.yaml", "results.csv", "results.md",
                                                   "plot.svg",        "busbw.svg",   "machine.md"};
void write_report_folder(const std::filesystem::path& folder, const std::vector<FolderFile>& files);

}  // namespace collsim
