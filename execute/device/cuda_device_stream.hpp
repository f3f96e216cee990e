// execute/device/cuda_device_stream.hpp — DeviceStream on one GPU (the mpi+cuda backend):
// cudaMalloc'd buffers, cudaMallocHost'd staging, cudaMemcpyAsync and the reduction kernel on
// one non-blocking stream, and markers as CUDA events queried with cudaEventQuery.
// Touches: the device it is given (made current in the constructor) and what it allocates.
#pragma once

#include <cuda_runtime_api.h>

#include <deque>
#include <vector>

#include "execute/device/device_stream.hpp"

namespace collsim {

class CudaDeviceStream final : public DeviceStream {
 public:
  // `mpi_can_access`: the MPI library is CUDA-aware (it may read and write device memory).
  CudaDeviceStream(int device, bool mpi_can_access);
  ~CudaDeviceStream() override;
  CudaDeviceStream(const CudaDeviceStream&) = delete;
  CudaDeviceStream& operator=(const CudaDeviceStream&) = delete;

  float* allocate(std::uint64_t elements) override;
  float* allocate_host(std::uint64_t elements) override;
  void copy(float* dst, const float* src, std::uint64_t count) override;
  void reduce(float* dst, const float* src, std::uint64_t count) override;
  void add_one(float* at) override;
  void to_host(float* host, const float* device, std::uint64_t count) override;
  void to_device(float* device, const float* host, std::uint64_t count) override;
  Marker mark() override;
  bool reached(Marker marker) override;
  void synchronize() override;
  bool mpi_can_access() const override { return mpi_can_access_; }

 private:
  void copy_async(void* dst, const void* src, std::uint64_t count, cudaMemcpyKind kind);

  int device_;
  bool mpi_can_access_;
  cudaStream_t stream_ = nullptr;
  std::vector<void*> device_blocks_, host_blocks_;
  // Recorded events not yet seen complete, oldest first; event k of the queue is marker
  // reached_ + k + 1. Completed events go back to the free list.
  std::deque<cudaEvent_t> recorded_;
  std::vector<cudaEvent_t> free_events_;
  Marker marks_ = 0, reached_ = 0;
  // Whether anything was enqueued since the last mark (a mark with nothing new reuses it).
  bool enqueued_since_mark_ = false;
};

}  // namespace collsim
