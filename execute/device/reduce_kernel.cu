// execute/device/reduce_kernel.cu — dst += src on the GPU, and the fault-injection and hold
// kernels (see reduce_kernel.hpp). The only
// device code of the project, kept small so nvcc's compile time stays short.
#include "execute/device/reduce_kernel.hpp"

#include <algorithm>

#include "execute/device/cuda_check.hpp"

namespace collsim {
namespace {

constexpr int kThreads = 256;
constexpr std::uint64_t kMaxBlocks = 4096;  // grid-stride beyond: enough to fill any GPU

// float4 loads and stores where both pointers are 16-byte aligned (chunks usually are),
// then the tail (or everything, when unaligned) one float at a time.
__global__ void reduce_sum_kernel(float* __restrict__ dst, const float* __restrict__ src, std::uint64_t count,
                                  bool vectorized) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  const std::uint64_t first = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  std::uint64_t scalar_begin = 0;
  if (vectorized) {
    const std::uint64_t quads = count / 4;
    auto* dst4 = reinterpret_cast<float4*>(dst);
    const auto* src4 = reinterpret_cast<const float4*>(src);
    for (std::uint64_t i = first; i < quads; i += stride) {
      float4 d = dst4[i];
      const float4 s = src4[i];
      d.x += s.x;
      d.y += s.y;
      d.z += s.z;
      d.w += s.w;
      dst4[i] = d;
    }
    scalar_begin = quads * 4;
  }
  for (std::uint64_t i = scalar_begin + first; i < count; i += stride) dst[i] += src[i];
}

__global__ void add_one_kernel(float* at) { *at += 1.0f; }

__device__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void hold_kernel(std::uint64_t nanoseconds) {
  const std::uint64_t until = global_timer_ns() + nanoseconds;
  while (global_timer_ns() < until) {
  }
}

}  // namespace

void launch_reduce_sum(float* dst, const float* src, std::uint64_t count, cudaStream_t stream) {
  if (count == 0) return;
  const bool vectorized = reinterpret_cast<std::uintptr_t>(dst) % 16 == 0 && reinterpret_cast<std::uintptr_t>(src) % 16 == 0;
  const std::uint64_t work = vectorized ? (count + 3) / 4 : count;
  const auto blocks = static_cast<unsigned>(std::min(kMaxBlocks, (work + kThreads - 1) / kThreads));
  reduce_sum_kernel<<<blocks, kThreads, 0, stream>>>(dst, src, count, vectorized);
  check_cuda(cudaGetLastError(), "the reduction kernel launch");
}

void launch_hold(double seconds, cudaStream_t stream) {
  hold_kernel<<<1, 1, 0, stream>>>(static_cast<std::uint64_t>(seconds * 1e9));
  check_cuda(cudaGetLastError(), "the hold kernel launch");
}

void launch_add_one(float* at, cudaStream_t stream) {
  add_one_kernel<<<1, 1, 0, stream>>>(at);
  check_cuda(cudaGetLastError(), "the fault-injection kernel launch");
}

}  // namespace collsim
