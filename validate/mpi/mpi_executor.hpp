// validate/mpi/mpi_executor.hpp — executes a job on MPI_COMM_WORLD, one process per rank:
// every algorithm x size as the schedule's transfers (mpi_transport.hpp), then the library's
// own MPI_Allreduce as a reference; every iteration, warm-up included, is verified against
// reference_data.hpp. Touches host buffers and MPI_COMM_WORLD.
#pragma once

#include <stdexcept>
#include <vector>

#include "validate/measurement.hpp"
#include "validate/rank_execution.hpp"

namespace collsim {

// All ranks agreed the run failed; the rank that found the problem has printed it.
struct AgreedFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Collective over MPI_COMM_WORLD. Returns the measurements on every rank (complete on rank 0).
std::vector<Measurement> run_mpi_job(const ExecutionJob& job, const Faults& faults);

}  // namespace collsim
