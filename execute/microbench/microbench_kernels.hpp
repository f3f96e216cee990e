// execute/microbench/microbench_kernels.hpp — the device code of collsim-gpu-microbench: an
// empty kernel (launch latency), and a copy and a sum (dst += src) over float4 with a block
// count the caller chooses, so that one block's rate (one NCCL channel's) can be measured
// apart from the whole GPU's. Launches only; timing and checks are the caller's.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace collsim::microbench {

// Threads per block of the copy and sum kernels: NCCL 2.30's NCCL_SIMPLE_MAX_NTHREADS
// (src/include/device.h), the threads one channel's block runs with the Simple protocol.
inline constexpr int kThreadsPerBlock = 512;

void launch_empty(cudaStream_t stream);
// dst[i] = src[i] for i < quads (float4 elements), on `blocks` blocks striding over the buffer.
void launch_copy(float4* dst, const float4* src, std::uint64_t quads, int blocks, cudaStream_t stream);
// dst[i] += src[i] for i < quads, likewise.
void launch_sum(float4* dst, const float4* src, std::uint64_t quads, int blocks, cudaStream_t stream);

}  // namespace collsim::microbench
