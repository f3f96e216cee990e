// execute/device/host_issue_probe.hpp — what the one host thread that drives P virtual ranks
// (the cuda backend, execute/cuda/cuda_executor.cpp) pays to issue one transfer, measured as
// the executor issues a ring's steps: kIssueTransfers reductions of kIssueBytes, the i-th on
// rank i mod P's stream, each waiting for the event of the one before; seconds per transfer of
// the issue loop alone (the GPU runs behind it). `calibrate --backend cuda` measures it for the
// YAML's host_issue, and the cuda executor before and after each case of `validate`, so that a
// case run while the host's speed had moved from the calibration's is told apart
// (validate/machine_drift.hpp). Touches device memory and streams it owns.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "collectives/schedule.hpp"

namespace collsim {

inline constexpr int kIssueTransfers = 256;
inline constexpr std::uint64_t kIssueBytes = 4096;

// Per rank (at least 2) a stream and a buffer of kIssueBytes on GPU r % devices, as the
// executor places its ranks.
class VirtualRankStreams {
 public:
  VirtualRankStreams(Rank ranks, int devices);
  ~VirtualRankStreams();
  VirtualRankStreams(const VirtualRankStreams&) = delete;
  VirtualRankStreams& operator=(const VirtualRankStreams&) = delete;

  std::size_t size() const { return streams_.size(); }
  int device(std::size_t r) const { return devices_[r]; }
  cudaStream_t stream(std::size_t r) const { return streams_[r]; }
  float* buffer(std::size_t r) const { return buffers_[r]; }
  // The first `count` ranks' streams (all by default), one after the other, as the executor
  // ends an iteration (execute/device/gpu_ranks.cpp).
  void synchronize(std::size_t count = SIZE_MAX) const;

 private:
  std::vector<int> devices_;
  std::vector<cudaStream_t> streams_;
  std::vector<float*> buffers_;
};

// Seconds per transfer of the issue loop (above), the median of `rounds` after one warm-up.
double host_issue_per_transfer_s(const VirtualRankStreams& ranks, int rounds);

}  // namespace collsim
