// execute/device/gpu_ranks.hpp — the device side of P ranks driven from one process, shared by
// the cuda and nccl executors: per rank a GPU (rank r on device r % devices), its buffer (data
// then scratch, in float elements), a staging buffer for received chunks that are reduced,
// and a stream. Also the timed, verified iteration loop both executors run.
// Touches: device memory and streams it owns (freed in the destructor).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "execute/measurement.hpp"

namespace collsim {

struct GpuRank {
  int device = 0;
  float* buffer = nullptr;   // address_space elements
  float* staging = nullptr;  // staging_elements elements (null when none is needed)
  cudaStream_t stream = nullptr;
};

class GpuRanks {
 public:
  GpuRanks(Rank ranks, int devices, std::uint64_t address_space, std::uint64_t staging_elements);
  ~GpuRanks();
  GpuRanks(const GpuRanks&) = delete;
  GpuRanks& operator=(const GpuRanks&) = delete;

  GpuRank& operator[](Rank r) { return ranks_[r]; }
  Rank size() const { return Rank(ranks_.size()); }

  // Copies every rank's reference inputs (fill_inputs) into its buffer and waits.
  void upload_inputs(const ScheduleInfo& info);
  // Waits until every rank's stream has drained.
  void synchronize();
  // Copies every buffer back and checks it; throws Error with the first mismatch.
  void verify(const ScheduleInfo& info);

 private:
  std::vector<GpuRank> ranks_;
  std::uint64_t address_space_ = 0;
  std::vector<std::vector<float>> inputs_;  // per rank, built once: iterations only copy
  std::vector<float> readback_;
};

// Warm-up + timed iterations of `once` (which enqueues one execution on the ranks' streams):
// each starts from fresh inputs with every GPU idle, is timed on the host clock from the
// first enqueue until every stream has drained, and is verified, warm-up included. Records
// into `m` the timed iterations' times (Measurement::times_s), the host's issue in each
// (Measurement::issue_s: `once` alone, until it returns), and that every one was verified.
void time_gpu_iterations(const ExecutionJob& job, const ScheduleInfo& info, GpuRanks& ranks,
                         const std::function<void()>& once, Measurement& m);

// COLLSIM_FAULT (tests, hidden): rank-exit and rank-hang act at once (the worker exits or
// hangs); returns true for corrupt-reduction. Throws Error for an unknown fault.
bool apply_fault_injection();

}  // namespace collsim
