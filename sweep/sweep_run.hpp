// sweep/sweep_run.hpp — running a sweep's points on workers and keeping its results: the
// library behind `collsim sweep` and the Python module's collsim.sweep (the command line
// only parses options into SweepOptions). Workers are processes that price one point per
// line (sweep_worker.hpp): one per local core, or, with `mpi` ranks, the ranks of
// `mpirun collsim-sweep-mpi` (sweep/mpi_relay_main.cpp), whose rank 0 hands points to the
// others as they ask. Points go out largest cluster first, so the long ones do not trail.
// Each row is kept in DIR/results.csv as it arrives (atomically, sweep_results.hpp); a point
// whose worker dies is given again once, then marked failed; at the end the pictures and
// the summary are written (sweep_report.hpp).
// Touches: DIR and its files, the worker processes it starts (ended on Ctrl-C, base/interrupt.hpp).
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "execute/launcher.hpp"
#include "sweep/sweep_file.hpp"

namespace collsim {

struct SweepOptions {
  std::filesystem::path out;  // DIR
  unsigned workers = 0;       // local workers; 0: one per core
  Rank mpi_ranks = 0;         // > 0: run under mpirun with this many ranks (rank 0 hands out, the others price)
  LaunchOptions launch;       // --hostfile, --mpirun-arg; worker_dir: where collsim and collsim-sweep-mpi are
  bool resume = false;        // keep the rows of DIR/results.csv that still hold
  // How far along: points done (this run and reused), of all, and a line on the workers
  // ("12.5 points/s, 4 workers"; under MPI the points each rank priced).
  std::function<void(std::size_t done, std::size_t total, const std::string& now)> on_progress;
};

struct SweepOutcome {
  std::size_t points = 0, reused = 0, priced = 0, refused = 0, failed = 0;
  double wall_s = 0;
  std::string first_refusal;  // "nodes=0 taper=1 ring 64K: <why>", for the command's last line
};

// The file names a sweep writes in DIR.
inline constexpr const char* kResultsFile = "results.csv";
std::vector<std::string> sweep_files();

// Throws Error: DIR not writable, results there without --resume (or of another sweep), no
// worker could start, the MPI job ended with points left (rerun with --resume).
SweepOutcome run_sweep(const Sweep& sweep, const SweepOptions& options);

// "nodes=32 taper=0.5 allreduce analytic ring 1M": a point in words, for messages.
std::string describe_point(const Sweep& sweep, const SweepPoint& point);

}  // namespace collsim
