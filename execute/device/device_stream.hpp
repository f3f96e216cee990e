// execute/device/device_stream.hpp — the device memory of one mpi+cuda rank seen through one
// in-order stream: allocations, asynchronous copies between device and pinned host memory,
// reductions, and markers that say when everything asked for so far has run. Because every
// device read and write of a rank goes through its one stream, the stream's order is the
// order RankExecution issued them in, and the transport needs only markers to know when a
// chunk may be sent or a host staging buffer reused (execute/mpi/device_transport.hpp).
// Implementations: CudaDeviceStream (execute/device/cuda_device_stream.hpp) and
// EmulatedDeviceStream (below: host memory with deferred execution, for tests without a GPU).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "execute/rank_execution.hpp"

namespace collsim {

class DeviceStream : public RankMemory {
 public:
  using Marker = std::uint64_t;

  // Page-locked host memory (fast, asynchronous copies), valid as long as this stream.
  virtual float* allocate_host(std::uint64_t elements) = 0;
  virtual void to_host(float* host, const float* device, std::uint64_t count) = 0;    // asynchronous
  virtual void to_device(float* device, const float* host, std::uint64_t count) = 0;  // asynchronous
  // A marker after everything enqueued so far; reached() tells, without waiting, whether it ran.
  virtual Marker mark() = 0;
  virtual bool reached(Marker marker) = 0;
  virtual void synchronize() = 0;  // waits until everything enqueued has run
  // Whether MPI may read and write this memory itself (CUDA-aware MPI); otherwise the
  // transport stages every message through allocate_host() memory.
  virtual bool mpi_can_access() const = 0;
};

// Host memory standing in for a device (COLLSIM_DEVICE=emulated in the tests): operations
// are queued and run only when the stream is polled, a few per poll, so a transport that
// read a chunk before its marker was reached would see stale data and fail verification.
// `mpi_accessible` chooses which path the transport takes (staged, or direct as with a
// CUDA-aware MPI).
class EmulatedDeviceStream final : public DeviceStream {
 public:
  explicit EmulatedDeviceStream(bool mpi_accessible) : mpi_accessible_(mpi_accessible) {}

  float* allocate(std::uint64_t elements) override;
  float* allocate_host(std::uint64_t elements) override { return allocate(elements); }
  void copy(float* dst, const float* src, std::uint64_t count) override;
  void reduce(float* dst, const float* src, std::uint64_t count) override;
  void add_one(float* at) override;
  void to_host(float* host, const float* device, std::uint64_t count) override { copy(host, device, count); }
  void to_device(float* device, const float* host, std::uint64_t count) override { copy(device, host, count); }
  Marker mark() override { return enqueued_; }
  bool reached(Marker marker) override;
  void synchronize() override;
  bool mpi_can_access() const override { return mpi_accessible_; }

 private:
  void enqueue(std::function<void()> operation);
  void run_one();

  bool mpi_accessible_;
  std::vector<std::vector<float>> blocks_;
  std::deque<std::function<void()>> pending_;
  Marker enqueued_ = 0, ran_ = 0;
  std::uint64_t polls_ = 0;
};

}  // namespace collsim
