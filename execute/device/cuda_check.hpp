// execute/device/cuda_check.hpp — CUDA runtime calls that fail become collsim::Error with one
// line naming the call and cudaGetErrorString, so the GPU worker reports them as the MPI
// worker does (one line, exit 2). Touches nothing but the CUDA runtime's error state.
#pragma once

#include <cuda_runtime_api.h>

namespace collsim {

// Throws Error("CUDA error in <what>: <cudaGetErrorString>") unless status is cudaSuccess.
void check_cuda(cudaError_t status, const char* what);

// The number of visible GPUs; throws Error("no CUDA device: ...") when there is none.
int visible_device_count();

}  // namespace collsim
