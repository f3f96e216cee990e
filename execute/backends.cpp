// execute/backends.cpp — the table of backends. The configure step says which workers this
// build has (validate/CMakeLists.txt), so a missing one is explained, not just absent.
#include "execute/backends.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"

namespace collsim {
namespace {

#ifdef COLLSIM_MPI_WORKER_CONFIGURED
constexpr std::string_view kMpiMissing = "collsim-mpi-worker is missing next to collsim (run `make build`, or build the "
                                         "collsim-mpi-worker target)";
#else
constexpr std::string_view kMpiMissing = "collsim was configured without MPI (run `make deps` to install libopenmpi-dev, "
                                         "then reconfigure)";
#endif
#ifdef COLLSIM_GPU_WORKER_CONFIGURED
constexpr std::string_view kGpuMissing = "collsim-gpu-worker is missing next to collsim (run `make build`, or build the "
                                         "collsim-gpu-worker target)";
#else
constexpr std::string_view kGpuMissing = "collsim was configured without the CUDA toolkit (needs "
                                         "/usr/local/cuda/bin/nvcc; see COLLSIM_WITH_CUDA)";
#endif
constexpr std::string_view kMpiCudaMissing =
    "it needs both MPI (libopenmpi-dev) and the CUDA toolkit (/usr/local/cuda/bin/nvcc) at configure time";

}  // namespace

const std::vector<BackendEntry>& backend_table() {
  static const std::vector<BackendEntry> table{
      {.name = "mpi",
       .help = "one MPI process per rank, started by mpirun, buffers in host memory",
       .worker = "collsim-mpi-worker",
       .calibrates = true,
       .emulates_switches = true,
       .missing_because = kMpiMissing},
      {.name = "cuda",
       .help = "P virtual ranks in one process over the visible GPUs (streams, peer copies)",
       .worker = "collsim-gpu-worker",
       .one_process = true,
       .calibrates = true,
       .missing_because = kGpuMissing},
      {.name = "mpi+cuda",
       .help = "one MPI process per rank, each rank's buffer on a GPU",
       .worker = "collsim-mpi-cuda-worker",
       .emulates_switches = true,
       .missing_because = kMpiCudaMissing},
      {.name = "nccl",
       .help = "one rank per GPU with NCCL send/recv, beside ncclAllReduce",
       .worker = "collsim-gpu-worker",
       .one_process = true,
       .missing_because = kGpuMissing},
  };
  return table;
}

const BackendEntry& find_backend(std::string_view name) {
  std::vector<std::string_view> names;
  for (const BackendEntry& b : backend_table()) {
    if (b.name == name) return b;
    names.push_back(b.name);
  }
  throw Error(fmt::format("unknown backend '{}' (expected one of: {})", name, fmt::join(names, ", ")));
}

}  // namespace collsim
