// cli/cmd_sweep.cpp — `collsim sweep FILE -o DIR`: a design-space sweep (sweep/sweep_run.hpp)
// on every local core, or across nodes with --mpi K [--hostfile H]; and `collsim
// sweep-worker`, the process that prices the points (one point line in, one row line out:
// sweep/sweep_worker.hpp), started by the sweep itself and hidden from --help.
#include <iostream>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/progress_line.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "sweep/sweep_run.hpp"
#include "sweep/sweep_worker.hpp"

namespace collsim::cli {
namespace {

struct SweepCommandOptions {
  std::string file, out;
  SweepOptions run;
};

void run(SweepCommandOptions& o) {
  const Sweep sweep = load_sweep(o.file);
  o.run.out = o.out;
  ProgressLine progress("sweep");
  o.run.on_progress = [&](std::size_t done, std::size_t total, const std::string& now) {
    progress.update(now, double(done), total);
  };
  const SweepOutcome outcome = run_sweep(sweep, o.run);
  progress.clear();
  fmt::print("collsim sweep: {} points of {} in {}: {} priced now, {} from the results before, {} refused, {} failed\n"
             "wrote {}/{{results.csv, winners.svg, scaling.svg, summary.md}}\n",
             outcome.points, sweep.name, format_duration(outcome.wall_s), outcome.priced, outcome.reused, outcome.refused,
             outcome.failed, o.out);
  if (outcome.refused + outcome.failed > 0)
    throw Error(fmt::format("{} of {} points have no time (the others ran; {}/results.csv, column error), the first: {}",
                            outcome.refused + outcome.failed, outcome.points, o.out, outcome.first_refusal));
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto options = std::make_shared<SweepCommandOptions>();
  auto& o = *options;
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Run a design-space sweep (configs/sweeps/): every point on all local cores, or under mpirun with --mpi K");
  cmd->add_option("file", o.file, "Sweep file (YAML; configs/sweeps/README.md)")->required();
  cmd->add_option("-o,--out", o.out, "Folder for results.csv, winners.svg, scaling.svg and summary.md")->required();
  cmd->add_option("--workers", o.run.workers, "Local workers (default: one per core)")
      ->check(whole_number(1, 4096));
  cmd->add_option("--mpi", o.run.mpi_ranks,
                  "Run under mpirun with K ranks: rank 0 hands out the points, ranks 1..K-1 price them (K >= 2)")
      ->check(whole_number(2, kMaxExecutedRanks));
  cmd->add_flag("--resume", o.run.resume, "Keep the rows of DIR/results.csv that still hold; price the rest");
  cmd->add_option("--hostfile", o.run.launch.hostfile,
                  "With --mpi: Open MPI hostfile spreading the ranks over nodes (default: all on this node)");
  cmd->add_option("--mpirun-arg", o.run.launch.mpirun_args,
                  "With --mpi: one more argument for mpirun (repeat it: --mpirun-arg=--mca --mpirun-arg=btl ...)")
      ->allow_extra_args(false);
  cmd->callback([options, cmd] {
    if (options->run.mpi_ranks == 0 && (!options->run.launch.hostfile.empty() || !options->run.launch.mpirun_args.empty()))
      throw Error("--hostfile and --mpirun-arg go with --mpi K");
    if (options->run.mpi_ranks > 0 && cmd->count("--workers") > 0)
      throw Error("--workers counts local workers; with --mpi K the ranks are the workers (give one or the other)");
    run(*options);
  });

  CLI::App* worker = app.add_subcommand("sweep-worker", "");  // no description: hidden from --help
  worker->group("");
  worker->callback([] { serve_points(std::cin, std::cout); });
}

}  // namespace collsim::cli
