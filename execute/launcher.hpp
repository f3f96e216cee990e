// execute/launcher.hpp — starts a backend's worker and collects its answer: for mpi,
// `mpirun -np P collsim-mpi-worker JOB OUT` (the worker is a separate binary next to collsim,
// so collsim itself never links MPI or CUDA); for mpi+cuda the same through
// collsim-mpi-cuda-worker; for cuda and nccl, collsim-gpu-worker (one process).
// The job and answer are JSON files in a private temporary folder (TMPDIR); only MPI rank 0
// reads and writes them, so across nodes rank 0 must run where they are: on this node (the
// first host of the hostfile) or with TMPDIR on a shared file system. Each run has a deadline:
// past it the whole process group is terminated, so a rank that hangs or dies ends the run
// with one line, never a hang. Touches: a temporary folder, child processes it starts.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectives/schedule.hpp"

namespace collsim {

// The most ranks an execution may start (processes or virtual ranks on this machine).
inline constexpr Rank kMaxExecutedRanks = 4096;


// How the workers are started, from the command line (--timeout, --hostfile, --mpirun-arg).
struct LaunchOptions {
  // Seconds without progress before the run is ended as hung (progress.hpp); 0: a minute
  // plus a second per 50 MB a rank moves in one iteration of the largest case.
  double timeout_s = 0;
  // mpi, mpi+cuda: an Open MPI hostfile to spread the ranks over nodes. Without one, every
  // rank runs on this node and messages use shared memory only (btl self,vader).
  std::string hostfile;
  std::vector<std::string> mpirun_args;  // passed to mpirun before the worker, in order
  // The folder of the worker binaries; empty: the running program's (collsim's, beside which
  // the build puts them). The Python module, run by python, gives its build's bin/.
  std::string worker_dir;
};

struct LaunchRequest {
  std::string backend;
  Rank ranks = 1;  // processes: the schedule's ranks, then any emulated switch reducers
  nlohmann::json job;
  LaunchOptions launch;
  // The processes from this one on emulate switch reducers (execution_plan.hpp), so a dead
  // one is named as such; 0: none do.
  Rank first_switch = 0;
};

// Throws Error with the worker's one-line error, or what killed it.
nlohmann::json launch_worker(const LaunchRequest& request);

// The mpirun command line for `ranks` processes of `program` (exposed for tests and docs).
std::vector<std::string> mpirun_command(Rank ranks, const std::vector<std::string>& program,
                                        const LaunchOptions& launch = {});

}  // namespace collsim
