// execute/mpi/mpi_executor.hpp — executes a job on MPI_COMM_WORLD, one process per rank:
// every algorithm x size as the schedule's transfers, then the library's own MPI_Allreduce
// (on the ranks alone) as a reference; every iteration, warm-up included, is verified against
// reference_data.hpp. An in-network schedule's switch reducers are the processes after the
// ranks, each running its reducer's rank program (execution_plan.hpp); they count no time,
// as their host's time is not a switch's, so an iteration's time is the slowest rank's.
// Where the job names probe sizes, each case is bracketed by ping-pong probes at them
// (mpi_calibration.hpp; validate/machine_drift.hpp says why).
// Backend mpi keeps each rank's buffer in host memory (mpi_transport.hpp); backend mpi+cuda
// keeps it on a device (device_transport.hpp), given by a DeviceFactory. Touches host
// buffers, the devices the factory hands out, and MPI_COMM_WORLD.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

#include "execute/device/device_stream.hpp"
#include "execute/measurement.hpp"
#include "execute/progress.hpp"
#include "execute/rank_execution.hpp"

namespace collsim {

// All ranks agreed the run failed; the rank that found the problem has printed it.
struct AgreedFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A fresh stream on this rank's device, one per schedule (its memory goes with it).
using DeviceFactory = std::function<std::unique_ptr<DeviceStream>()>;

// Collective over MPI_COMM_WORLD. Returns the measurements on every rank (complete on rank 0).
// `device` is empty for host buffers (backend mpi). The rank beats `progress` after every
// iteration, outside the timed region.
std::vector<Measurement> run_mpi_job(const ExecutionJob& job, const Faults& faults, const DeviceFactory& device,
                                     ProgressBeacon& progress);

}  // namespace collsim
