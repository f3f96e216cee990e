// validate/cli/cmd_validate.cpp — `collsim validate`: calibrate, predict every algorithm x
// size with the flow engine on the calibrated config, execute the same schedules, and write
// the comparison to validate/results/<platform>/ (report.hpp).
#include <filesystem>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "collectives/error.hpp"
#include "collectives/units.hpp"
#include "sim/prediction.hpp"
#include "topologies/cluster_config.hpp"
#include "validate/cli/commands.hpp"
#include "validate/execution_runs.hpp"
#include "validate/report.hpp"

namespace collsim::cli {
namespace {

struct ValidateOptions {
  std::string backend, ranks = "2,4", bytes = "4K,64K,1M,16M", algo = "all", max_bytes = "64M", out;
  std::uint32_t iterations = 10, warmup = 2;
  LaunchOptions launch;  // --timeout default set in add_validate_command
};

std::vector<Rank> parse_ranks(const std::string& text) {
  std::vector<Rank> ranks;
  for (const std::string& item : split_names(text)) {
    const long p = std::strtol(item.c_str(), nullptr, 10);
    if (p < 2 || p > 4096) throw Error(fmt::format("--ranks: '{}' is not a rank count in 2..4096", item));
    ranks.push_back(Rank(p));
  }
  if (ranks.empty()) throw Error("--ranks: give at least one rank count");
  return ranks;
}

// The flow engine's time per (algorithm, bytes) for P ranks on the calibrated node.
std::map<std::pair<std::string, std::uint64_t>, double> predict_on(const Calibration& c, const std::string& name,
                                                                    const ExecutionJob& job) {
  const ClusterConfig cluster = parse_cluster_config(calibrated_config_yaml(c, name, job.request.ranks), name);
  PredictionRequest r;
  r.collective = job.request.collective;
  r.algorithms = expand_algorithms(job.request);
  r.sizes = job.request.sizes;
  r.ranks = job.request.ranks;
  r.cost = cluster.cost;
  r.topology = cluster.topology;
  r.engine = "flow";
  std::map<std::pair<std::string, std::uint64_t>, double> times;
  for (const PredictionRecord& rec : predict(r)) times[{rec.algorithm, rec.bytes}] = rec.time_s;
  return times;
}

std::string preamble(const ValidateOptions& o, const Calibration& c, const std::string& name) {
  return fmt::format(
      "# Validation: {}\n\n"
      "`collsim validate --backend {} --ranks {} --bytes {} --iters {} --warmup {}`\n\n"
      "Predicted: flow engine on `calibrated.yaml` (alpha {}, {:.3f} GB/s per rank link, shared capacity {}, "
      "gamma {:.3g} s/B). Measured: the median of {} iterations of the same schedule executed on backend {}, each "
      "verified. Machine: `machine.md`; plot: `plot.svg`.\n",
      name, o.backend, o.ranks, o.bytes, o.iterations, o.warmup, format_seconds(c.link.intercept), 1e-9 / c.link.slope,
      c.shared_Bps > 0 ? fmt::format("{:.3f} GB/s", c.shared_Bps * 1e-9) : std::string("none"), c.gamma_s_per_byte,
      o.iterations, o.backend);
}

void run(const ValidateOptions& o) {
  const std::vector<Rank> ranks = parse_ranks(o.ranks);
  CalibrationJob calibration_job{o.backend, *std::max_element(ranks.begin(), ranks.end()), parse_size(o.max_bytes), 0.05};
  fmt::print(stderr, "collsim validate: calibrating on {} ranks\n", calibration_job.ranks);
  const Calibration c = fit_calibration(measure_calibration(calibration_job, o.launch));
  const MachineInfo machine = describe_machine(c.samples.library, c.samples.device);
  const std::string name = platform_name(machine, o.backend);
  std::vector<ValidationRow> rows;
  for (Rank p : ranks) {
    ExecutionJob job;
    job.backend = o.backend;
    job.request.algorithms = split_names(o.algo);
    job.request.sizes = parse_size_list(o.bytes);
    job.request.ranks = p;
    job.iterations = o.iterations;
    job.warmup = o.warmup;
    job.reference = false;
    const auto predicted = predict_on(c, name, job);
    fmt::print(stderr, "collsim validate: executing on {} ranks\n", p);
    for (const Measurement& m : execute(job, o.launch))
      rows.push_back({m.algorithm, p, m.bytes, predicted.at({m.algorithm, m.bytes}), m.median_s()});
  }
  const std::filesystem::path dir = o.out.empty() ? std::filesystem::path("validate/results") / name : std::filesystem::path(o.out);
  std::filesystem::create_directories(dir);
  write_text(dir / "calibrated.yaml", calibrated_config_yaml(c, name, calibration_job.ranks));
  write_text(dir / "results.csv", results_csv(rows));
  write_text(dir / "results.md", results_markdown(rows, preamble(o, c, name)));
  write_text(dir / "plot.svg", plot_svg(rows, fmt::format("{}: predicted vs measured", name)));
  write_text(dir / "machine.md", machine_markdown(machine));
  const ValidationSummary s = summarize(rows);
  fmt::print("collsim validate: {} cases, median |error| {:.1f}%, p90 |error| {:.1f}% -> {}\n", s.rows,
             s.median_abs_error_pct, s.p90_abs_error_pct, dir.string());
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto options = std::make_shared<ValidateOptions>();
  ValidateOptions& o = *options;
  CLI::App* cmd = app.add_subcommand("validate", "Calibrate, predict (flow engine), execute, and report predicted vs measured");
  cmd->add_option("--backend", o.backend, "mpi or cuda (calibrated backends)")->required();
  cmd->add_option("-p,--ranks", o.ranks, "Rank counts, e.g. 2,4")->capture_default_str();
  cmd->add_option("-b,--bytes", o.bytes, "Sizes per rank (multiples of 4)")->capture_default_str();
  cmd->add_option("-a,--algo", o.algo, "Algorithms or 'all'")->capture_default_str();
  cmd->add_option("--max-bytes", o.max_bytes, "Largest calibration message")->capture_default_str();
  cmd->add_option("--iters", o.iterations, "Timed iterations per case")->capture_default_str();
  cmd->add_option("--warmup", o.warmup, "Warm-up iterations per case")->capture_default_str();
  cmd->add_option("-o,--out", o.out, "Report folder (default: validate/results/<platform>)");
  o.launch.timeout_s = 600;  // per launch
  add_launch_options(*cmd, o.launch);
  cmd->callback([options] { run(*options); });
}

}  // namespace collsim::cli
