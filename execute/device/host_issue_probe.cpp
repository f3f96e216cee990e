// execute/device/host_issue_probe.cpp — the host's issue of one transfer (see the header).
#include "execute/device/host_issue_probe.hpp"

#include <algorithm>
#include <chrono>

#include "execute/device/cuda_check.hpp"
#include "execute/device/reduce_kernel.hpp"
#include "execute/measurement.hpp"

namespace collsim {

VirtualRankStreams::VirtualRankStreams(Rank ranks, int devices) {
  for (Rank r = 0; r < std::max<Rank>(ranks, 2); ++r) {
    const int device = int(r % Rank(std::max(devices, 1)));
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    cudaStream_t stream = nullptr;
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    void* memory = nullptr;
    const cudaError_t allocated = cudaMalloc(&memory, kIssueBytes);
    if (allocated != cudaSuccess) cudaStreamDestroy(stream);
    check_cuda(allocated, "cudaMalloc (host issue probe)");
    devices_.push_back(device);
    streams_.push_back(stream);
    buffers_.push_back(static_cast<float*>(memory));
    check_cuda(cudaMemset(memory, 0, kIssueBytes), "cudaMemset");
  }
}

VirtualRankStreams::~VirtualRankStreams() {
  for (cudaStream_t s : streams_) cudaStreamDestroy(s);
  for (float* b : buffers_) cudaFree(b);
}

void VirtualRankStreams::synchronize(std::size_t count) const {
  for (std::size_t r = 0; r < std::min(count, streams_.size()); ++r)
    check_cuda(cudaStreamSynchronize(streams_[r]), "cudaStreamSynchronize");
}

double host_issue_per_transfer_s(const VirtualRankStreams& ranks, int rounds) {
  const std::size_t count = ranks.size();
  std::vector<cudaEvent_t> events(kIssueTransfers);
  for (std::size_t i = 0; i < events.size(); ++i) {
    check_cuda(cudaSetDevice(ranks.device(i % count)), "cudaSetDevice");
    check_cuda(cudaEventCreateWithFlags(&events[i], cudaEventDisableTiming), "cudaEventCreate");
  }
  auto issue_all = [&] {
    for (int i = 0; i < kIssueTransfers; ++i) {
      const std::size_t r = std::size_t(i) % count, from = (r + count - 1) % count;
      check_cuda(cudaSetDevice(ranks.device(r)), "cudaSetDevice");
      if (i > 0) check_cuda(cudaStreamWaitEvent(ranks.stream(r), events[i - 1], 0), "cudaStreamWaitEvent");
      launch_reduce_sum(ranks.buffer(r), ranks.buffer(from), kIssueBytes / sizeof(float), ranks.stream(r));
      check_cuda(cudaEventRecord(events[i], ranks.stream(r)), "cudaEventRecord");
    }
  };
  std::vector<double> per_transfer;
  for (int r = 0; r < rounds + 1; ++r) {  // the first warms up
    ranks.synchronize();
    const auto start = std::chrono::steady_clock::now();
    issue_all();
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ranks.synchronize();
    if (r > 0) per_transfer.push_back(took / kIssueTransfers);
  }
  for (cudaEvent_t e : events) cudaEventDestroy(e);
  return median_of(per_transfer);
}

}  // namespace collsim
