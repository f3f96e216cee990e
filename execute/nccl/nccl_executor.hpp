// execute/nccl/nccl_executor.hpp — the `nccl` backend: one rank per visible GPU, all driven
// from one process (ncclCommInitAll). A schedule runs in dependency waves (a transfer's wave
// is one more than its latest dependency's): each wave's transfers are ncclSend / ncclRecv
// pairs inside one ncclGroupStart / ncclGroupEnd, then its reductions (the kernel of
// execute/device/reduce_kernel.hpp) on the receivers' streams. ncclAllReduce is the library
// reference, timed and verified the same way. Touches: the visible GPUs.
#pragma once

#include <vector>

#include "execute/measurement.hpp"

namespace collsim {

// Throws Error for no GPU, P != the number of visible GPUs, an NCCL or CUDA failure, or a
// result mismatch.
std::vector<Measurement> run_nccl_job(const ExecutionJob& job);

}  // namespace collsim
