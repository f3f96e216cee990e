// execute/microbench/microbench_kernels.cu — the kernels of collsim-gpu-microbench (see the
// header). Each launch is followed by cudaGetLastError, so a bad launch is reported where it
// happened, not at the next synchronization.
#include "execute/microbench/microbench_kernels.hpp"

#include "execute/device/cuda_check.hpp"

namespace collsim::microbench {
namespace {

__global__ void empty_kernel() {}

// Grid-stride loops: `blocks` blocks cover any size, so the rate is that of the blocks asked for.
__global__ void copy_kernel(float4* __restrict__ dst, const float4* __restrict__ src, std::uint64_t quads) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < quads; i += stride) dst[i] = src[i];
}

__global__ void sum_kernel(float4* __restrict__ dst, const float4* __restrict__ src, std::uint64_t quads) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < quads; i += stride) {
    float4 d = dst[i];
    const float4 s = src[i];
    d.x += s.x;
    d.y += s.y;
    d.z += s.z;
    d.w += s.w;
    dst[i] = d;
  }
}

}  // namespace

void launch_empty(cudaStream_t stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
  check_cuda(cudaGetLastError(), "the empty kernel's launch");
}

void launch_copy(float4* dst, const float4* src, std::uint64_t quads, int blocks, cudaStream_t stream) {
  copy_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(dst, src, quads);
  check_cuda(cudaGetLastError(), "the copy kernel's launch");
}

void launch_sum(float4* dst, const float4* src, std::uint64_t quads, int blocks, cudaStream_t stream) {
  sum_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(dst, src, quads);
  check_cuda(cudaGetLastError(), "the sum kernel's launch");
}

}  // namespace collsim::microbench
