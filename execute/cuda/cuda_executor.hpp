// execute/cuda/cuda_executor.hpp — the `cuda` backend: ONE process drives P virtual ranks
// over the visible GPUs (rank r on device r % devices, several ranks per GPU allowed; NCCL
// refuses that, hence this backend, docs/design.md section 7). Each transfer is a copy engine
// transfer (cudaMemcpyPeerAsync, or cudaMemcpyAsync on one device) on the receiver's stream,
// after cudaStreamWaitEvent on its dependencies' events; a reduction copies into the
// receiver's staging buffer, then a kernel adds it in place. Every iteration is verified.
// Touches: the visible GPUs (memory, streams, events, peer access).
#pragma once

#include <vector>

#include "execute/measurement.hpp"

namespace collsim {

// Every algorithm x size of the job; no library reference (NCCL needs one rank per GPU).
// Throws Error for no GPU, a CUDA failure, or a result mismatch.
std::vector<Measurement> run_cuda_job(const ExecutionJob& job);

}  // namespace collsim
