// execute/device/reduce_kernel.hpp — the GPU reduction every GPU executor uses: dst[i] += src[i]
// on a stream (vectorized, grid-stride; execute/device/reduce_kernel.cu), and the two small
// kernels beside it: fault injection's, and the calibration's hold. Host-callable from
// plain C++ so the executors stay .cpp files compiled by the host compiler.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace collsim {

// Enqueues dst[i] += src[i] for i < count on `stream` (the current device's); never waits.
void launch_reduce_sum(float* dst, const float* src, std::uint64_t count, cudaStream_t stream);

// Enqueues one thread that spins for `seconds` of the GPU's global timer: a stream held busy
// while the host queues what a calibration times behind it, so that the events around an
// operation time the GPU's work alone, not the host's issue of it.
void launch_hold(double seconds, cudaStream_t stream);

// Enqueues *at += 1 (fault injection: a corrupted reduction the verification must catch).
void launch_add_one(float* at, cudaStream_t stream);

}  // namespace collsim
