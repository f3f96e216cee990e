// execute/device/gpu_ranks.cpp — device buffers, streams, and the timed verified loop (see
// the header).
#include "execute/device/gpu_ranks.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>

#include "base/error.hpp"
#include "execute/device/cuda_check.hpp"
#include "execute/reference_data.hpp"

namespace collsim {
namespace {

float* allocate_floats(std::uint64_t count, const char* what) {
  void* memory = nullptr;
  check_cuda(cudaMalloc(&memory, std::max<std::uint64_t>(count, 1) * sizeof(float)), what);
  return static_cast<float*>(memory);
}

}  // namespace

GpuRanks::GpuRanks(Rank ranks, int devices, std::uint64_t address_space, std::uint64_t staging_elements)
    : ranks_(ranks), address_space_(address_space) {
  for (Rank r = 0; r < ranks; ++r) {
    GpuRank& rank = ranks_[r];
    rank.device = int(r % Rank(devices));
    check_cuda(cudaSetDevice(rank.device), "cudaSetDevice");
    rank.buffer = allocate_floats(address_space, "cudaMalloc (buffer)");
    if (staging_elements > 0) rank.staging = allocate_floats(staging_elements, "cudaMalloc (staging)");
    check_cuda(cudaStreamCreateWithFlags(&rank.stream, cudaStreamNonBlocking), "cudaStreamCreate");
  }
}

GpuRanks::~GpuRanks() {
  // Errors are ignored here: the destructor may run while an earlier CUDA error unwinds.
  for (GpuRank& rank : ranks_) {
    cudaSetDevice(rank.device);
    if (rank.stream) cudaStreamDestroy(rank.stream);
    cudaFree(rank.buffer);
    cudaFree(rank.staging);
  }
}

void GpuRanks::upload_inputs(const ScheduleInfo& info) {
  if (inputs_.empty()) {
    inputs_.resize(ranks_.size(), std::vector<float>(address_space_));
    for (Rank r = 0; r < size(); ++r) fill_inputs(info, r, inputs_[r]);
  }
  for (Rank r = 0; r < size(); ++r) {
    check_cuda(cudaSetDevice(ranks_[r].device), "cudaSetDevice");
    check_cuda(cudaMemcpyAsync(ranks_[r].buffer, inputs_[r].data(), address_space_ * sizeof(float),
                               cudaMemcpyHostToDevice, ranks_[r].stream),
               "cudaMemcpyAsync (inputs)");
  }
  synchronize();
}

void GpuRanks::synchronize() {
  for (GpuRank& rank : ranks_) check_cuda(cudaStreamSynchronize(rank.stream), "cudaStreamSynchronize");
}

void GpuRanks::verify(const ScheduleInfo& info) {
  readback_.resize(address_space_);
  for (Rank r = 0; r < size(); ++r) {
    check_cuda(cudaSetDevice(ranks_[r].device), "cudaSetDevice");
    check_cuda(cudaMemcpy(readback_.data(), ranks_[r].buffer, address_space_ * sizeof(float), cudaMemcpyDeviceToHost),
               "cudaMemcpy (results)");
    if (const std::optional<Mismatch> mismatch = find_mismatch(info, r, readback_))
      throw Error(describe_mismatch(info, r, *mismatch));
  }
}

void time_gpu_iterations(const ExecutionJob& job, const ScheduleInfo& info, GpuRanks& ranks,
                         const std::function<void()>& once, Measurement& m) {
  for (std::uint32_t i = 0; i < job.warmup + job.iterations; ++i) {
    ranks.upload_inputs(info);  // also leaves every stream idle
    const auto start = std::chrono::steady_clock::now();
    once();
    const auto issued = std::chrono::steady_clock::now();
    ranks.synchronize();
    const auto end = std::chrono::steady_clock::now();
    ranks.verify(info);
    if (i < job.warmup) continue;
    m.times_s.push_back(std::chrono::duration<double>(end - start).count());
    m.issue_s.push_back(std::chrono::duration<double>(issued - start).count());
  }
  m.verified = true;
}

bool apply_fault_injection() {
  const char* fault = std::getenv("COLLSIM_FAULT");
  if (!fault) return false;
  const std::string what = fault;
  if (what == "rank-exit") _exit(3);  // as a crashed worker would: no answer, no error line
  if (what == "rank-hang")
    for (;;) pause();
  if (what == "corrupt-reduction") return true;
  throw Error("unknown COLLSIM_FAULT '" + what + "'");
}

}  // namespace collsim
