// execute/device/cuda_device_stream.cpp — one GPU stream as a DeviceStream (see the header).
#include "execute/device/cuda_device_stream.hpp"

#include <algorithm>

#include "execute/device/cuda_check.hpp"
#include "execute/device/reduce_kernel.hpp"

namespace collsim {

CudaDeviceStream::CudaDeviceStream(int device, bool mpi_can_access) : device_(device), mpi_can_access_(mpi_can_access) {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
}

CudaDeviceStream::~CudaDeviceStream() {
  // Errors are ignored here: the destructor may run while an earlier CUDA error unwinds.
  cudaStreamSynchronize(stream_);
  for (cudaEvent_t event : recorded_) cudaEventDestroy(event);
  for (cudaEvent_t event : free_events_) cudaEventDestroy(event);
  for (void* block : device_blocks_) cudaFree(block);
  for (void* block : host_blocks_) cudaFreeHost(block);
  cudaStreamDestroy(stream_);
}

float* CudaDeviceStream::allocate(std::uint64_t elements) {
  void* memory = nullptr;
  check_cuda(cudaMalloc(&memory, std::max<std::uint64_t>(elements, 1) * sizeof(float)), "cudaMalloc");
  device_blocks_.push_back(memory);
  return static_cast<float*>(memory);
}

float* CudaDeviceStream::allocate_host(std::uint64_t elements) {
  void* memory = nullptr;
  check_cuda(cudaMallocHost(&memory, std::max<std::uint64_t>(elements, 1) * sizeof(float)), "cudaMallocHost");
  host_blocks_.push_back(memory);
  return static_cast<float*>(memory);
}

void CudaDeviceStream::copy_async(void* dst, const void* src, std::uint64_t count, cudaMemcpyKind kind) {
  if (count == 0) return;
  check_cuda(cudaMemcpyAsync(dst, src, count * sizeof(float), kind, stream_), "cudaMemcpyAsync");
  enqueued_since_mark_ = true;
}

void CudaDeviceStream::copy(float* dst, const float* src, std::uint64_t count) {
  copy_async(dst, src, count, cudaMemcpyDeviceToDevice);
}

void CudaDeviceStream::to_host(float* host, const float* device, std::uint64_t count) {
  copy_async(host, device, count, cudaMemcpyDeviceToHost);
}

void CudaDeviceStream::to_device(float* device, const float* host, std::uint64_t count) {
  copy_async(device, host, count, cudaMemcpyHostToDevice);
}

void CudaDeviceStream::reduce(float* dst, const float* src, std::uint64_t count) {
  launch_reduce_sum(dst, src, count, stream_);
  enqueued_since_mark_ = true;
}

void CudaDeviceStream::add_one(float* at) {
  launch_add_one(at, stream_);
  enqueued_since_mark_ = true;
}

DeviceStream::Marker CudaDeviceStream::mark() {
  if (!enqueued_since_mark_) return marks_;  // nothing new: the last marker says the same
  cudaEvent_t event = nullptr;
  if (free_events_.empty()) {
    check_cuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate");
  } else {
    event = free_events_.back();
    free_events_.pop_back();
  }
  check_cuda(cudaEventRecord(event, stream_), "cudaEventRecord");
  recorded_.push_back(event);
  enqueued_since_mark_ = false;
  return ++marks_;
}

bool CudaDeviceStream::reached(Marker marker) {
  while (reached_ < marker && !recorded_.empty()) {
    const cudaError_t status = cudaEventQuery(recorded_.front());
    if (status == cudaErrorNotReady) return false;
    check_cuda(status, "cudaEventQuery");
    free_events_.push_back(recorded_.front());
    recorded_.pop_front();
    ++reached_;
  }
  return reached_ >= marker;
}

void CudaDeviceStream::synchronize() {
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  reached(marks_);
}

}  // namespace collsim
