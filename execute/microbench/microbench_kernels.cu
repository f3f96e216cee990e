// execute/microbench/microbench_kernels.cu — the kernels of collsim-gpu-microbench (see the
// header). Each launch is followed by cudaGetLastError, so a bad launch is reported where it
// happened, not at the next synchronization.
#include "execute/microbench/microbench_kernels.hpp"

#include "execute/device/cuda_check.hpp"

namespace collsim::microbench {
namespace {

__global__ void empty_kernel() {}

// Loads in flight per thread: NCCL 2.30's ncclCollUnroll() for sm_80 and later, except sm_12x
// (src/include/device.h), so that one block moves data as one channel's block does: each
// thread reads kUnroll float4 (a block's width apart, so warps stay coalesced) before it
// writes any of them. Grid-stride: `blocks` blocks cover any size, so the rate is theirs.
constexpr int kUnroll = 8;

template <bool Sum>
__global__ void move_kernel(float4* __restrict__ dst, const float4* __restrict__ src, std::uint64_t quads) {
  const std::uint64_t width = blockDim.x;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * width * kUnroll;
  for (std::uint64_t base = std::uint64_t(blockIdx.x) * width * kUnroll + threadIdx.x; base < quads; base += stride) {
    float4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (base + u * width < quads) v[u] = src[base + u * width];
    if constexpr (Sum) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        if (base + u * width < quads) {
          const float4 d = dst[base + u * width];
          v[u].x += d.x;
          v[u].y += d.y;
          v[u].z += d.z;
          v[u].w += d.w;
        }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (base + u * width < quads) dst[base + u * width] = v[u];
  }
}

}  // namespace

void launch_empty(cudaStream_t stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
  check_cuda(cudaGetLastError(), "the empty kernel's launch");
}

void launch_copy(float4* dst, const float4* src, std::uint64_t quads, int blocks, cudaStream_t stream) {
  move_kernel<false><<<blocks, kThreadsPerBlock, 0, stream>>>(dst, src, quads);
  check_cuda(cudaGetLastError(), "the copy kernel's launch");
}

void launch_sum(float4* dst, const float4* src, std::uint64_t quads, int blocks, cudaStream_t stream) {
  move_kernel<true><<<blocks, kThreadsPerBlock, 0, stream>>>(dst, src, quads);
  check_cuda(cudaGetLastError(), "the sum kernel's launch");
}

}  // namespace collsim::microbench
