// validate/launcher.hpp — starts a backend's worker and collects its answer: for mpi,
// `mpirun -np P collsim-mpi-worker JOB OUT` (the worker is a separate binary next to collsim,
// so collsim itself never links MPI or CUDA); for mpi+cuda the same through
// collsim-mpi-cuda-worker; for cuda and nccl, collsim-gpu-worker (one process).
// The job and answer are JSON files in a private temporary folder. Each run has a deadline:
// past it the whole process group is terminated, so a rank that hangs or dies ends the run
// with one line, never a hang. Touches: a temporary folder, child processes it starts.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectives/schedule.hpp"

namespace collsim {

const std::vector<std::string>& backend_names();  // mpi, cuda, mpi+cuda, nccl
void check_backend(const std::string& backend);    // throws Error naming the valid ones

struct LaunchRequest {
  std::string backend;
  Rank ranks = 1;
  nlohmann::json job;
  double timeout_s = 60;
};

// Throws Error with the worker's one-line error, or what killed it.
nlohmann::json launch_worker(const LaunchRequest& request);

// The mpirun command line for `ranks` processes of `program` (exposed for tests and docs).
std::vector<std::string> mpirun_command(Rank ranks, const std::vector<std::string>& program);

}  // namespace collsim
