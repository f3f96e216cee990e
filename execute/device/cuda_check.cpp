// execute/device/cuda_check.cpp — CUDA errors as one-line collsim::Error (see the header).
#include "execute/device/cuda_check.hpp"

#include <fmt/format.h>

#include "base/error.hpp"

namespace collsim {

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw Error(fmt::format("CUDA error in {}: {}", what, cudaGetErrorString(status)));
}

int visible_device_count() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  // Without a driver or a GPU the runtime says why (no driver, no device, driver too old).
  if (status != cudaSuccess) throw Error(fmt::format("no CUDA device: {}", cudaGetErrorString(status)));
  if (count == 0) throw Error("no CUDA device: cudaGetDeviceCount found 0 devices");
  return count;
}

}  // namespace collsim
