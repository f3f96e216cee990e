// execute/cuda/cuda_executor.cpp — one schedule as copies, kernels and events on P streams
// (see the header).
//
// Why the receiver's stream: every write to a rank's buffer and staging then happens on that
// rank's stream, so one staging buffer (the largest reduced receive) suffices, and the order
// of two transfers into one rank never depends on timing. Reads by other ranks' streams are
// ordered by the schedule's own dependencies (the checker proves each hazard has one), which
// this process sees whole: every transfer waits for the events of all its dependencies.
#include "execute/cuda/cuda_executor.hpp"

#include <algorithm>
#include <memory>
#include <utility>

#include "execute/device/cuda_check.hpp"
#include "execute/device/gpu_ranks.hpp"
#include "execute/device/host_issue_probe.hpp"
#include "execute/device/reduce_kernel.hpp"

namespace collsim {
namespace {

// Direct GPU-to-GPU copies where the hardware allows it; cudaMemcpyPeerAsync works without
// (staged through the host), only slower.
void enable_peer_access(int devices) {
  for (int from = 0; from < devices; ++from) {
    check_cuda(cudaSetDevice(from), "cudaSetDevice");
    for (int to = 0; to < devices; ++to) {
      int possible = 0;
      if (to == from || cudaDeviceCanAccessPeer(&possible, from, to) != cudaSuccess || !possible) continue;
      const cudaError_t status = cudaDeviceEnablePeerAccess(to, 0);
      if (status == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();  // harmless: take it out of the last-error slot
      else check_cuda(status, "cudaDeviceEnablePeerAccess");
    }
  }
}

// The staging a rank needs: reductions of chunks from another GPU (on one GPU they are fused).
std::uint64_t largest_reduced_receive(const Schedule& schedule, int devices) {
  std::uint64_t largest = 0;
  for (TransferId id = 0; id < schedule.size(); ++id) {
    const Transfer t = schedule.transfer(id);
    const bool across_gpus = t.src % Rank(devices) != t.dst % Rank(devices);
    if (t.op == Op::reduce && across_gpus) largest = std::max(largest, schedule.transfer_bytes(id));
  }
  return largest;
}

class CudaScheduleRun {
 public:
  CudaScheduleRun(const Schedule& schedule, GpuRanks& ranks, bool corrupt_first_reduction)
      : schedule_(schedule), ranks_(ranks), corrupt_(corrupt_first_reduction), events_(schedule.size()) {
    for (TransferId id = 0; id < schedule.size(); ++id) {
      check_cuda(cudaSetDevice(ranks_[schedule.transfer(id).dst].device), "cudaSetDevice");
      check_cuda(cudaEventCreateWithFlags(&events_[id], cudaEventDisableTiming), "cudaEventCreate");
    }
  }
  ~CudaScheduleRun() {
    for (cudaEvent_t event : events_)
      if (event) cudaEventDestroy(event);
  }
  CudaScheduleRun(const CudaScheduleRun&) = delete;
  CudaScheduleRun& operator=(const CudaScheduleRun&) = delete;

  // Enqueues one execution in list order (a topological order, so every event waited on has
  // already been recorded); returns at once.
  void enqueue() {
    corrupted_ = false;
    for (TransferId id = 0; id < schedule_.size(); ++id) enqueue_transfer(id);
  }

 private:
  void enqueue_transfer(TransferId id) {
    const Transfer t = schedule_.transfer(id);
    GpuRank& from = ranks_[t.src];
    GpuRank& to = ranks_[t.dst];
    check_cuda(cudaSetDevice(to.device), "cudaSetDevice");
    for (TransferId dep : t.deps)  // a dependency on this stream is already ordered by it
      if (schedule_.transfer(dep).dst != t.dst) check_cuda(cudaStreamWaitEvent(to.stream, events_[dep], 0), "cudaStreamWaitEvent");
    const float* source = from.buffer + schedule_.chunks()[t.src_chunk].offset;
    float* destination = to.buffer + schedule_.chunks()[t.dst_chunk].offset;
    const std::uint64_t count = schedule_.transfer_bytes(id);  // elements: see reference_data.hpp
    if (t.op == Op::copy) {
      copy(destination, to, source, from, count);
    } else if (t.is_local() || to.device == from.device) {
      // Fused receive-reduce: on one GPU the kernel reads the sender's chunk where it is,
      // as a copy would (the schedule orders the sender's later writes after this event).
      reduce(destination, source, count, t.dst);
    } else {
      copy(to.staging, to, source, from, count);
      reduce(destination, to.staging, count, t.dst);
    }
    check_cuda(cudaEventRecord(events_[id], to.stream), "cudaEventRecord");
  }

  static void copy(float* destination, const GpuRank& to, const float* source, const GpuRank& from, std::uint64_t count) {
    const std::size_t bytes = count * sizeof(float);
    if (to.device == from.device)
      check_cuda(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDeviceToDevice, to.stream), "cudaMemcpyAsync");
    else
      check_cuda(cudaMemcpyPeerAsync(destination, to.device, source, from.device, bytes, to.stream), "cudaMemcpyPeerAsync");
  }

  void reduce(float* destination, const float* source, std::uint64_t count, Rank rank) {
    launch_reduce_sum(destination, source, count, ranks_[rank].stream);
    // Fault injection mirrors the MPI worker's: rank 1 (or 0 alone) corrupts its first reduction.
    if (corrupt_ && !corrupted_ && rank == std::min<Rank>(1, ranks_.size() - 1)) {
      launch_add_one(destination, ranks_[rank].stream);
      corrupted_ = true;
    }
  }

  const Schedule& schedule_;
  GpuRanks& ranks_;
  bool corrupt_ = false;
  bool corrupted_ = false;
  std::vector<cudaEvent_t> events_;  // per transfer, recorded on its receiver's stream
};

Measurement run_schedule(const ExecutionJob& job, const std::string& algorithm, std::uint64_t bytes, int devices,
                         bool corrupt) {
  const Schedule schedule = executed_schedule(job.request, algorithm, bytes);
  GpuRanks ranks(job.request.ranks, devices, schedule.info().address_space(), largest_reduced_receive(schedule, devices));
  CudaScheduleRun run(schedule, ranks, corrupt);
  Measurement m = measurement_of(job, "cuda", algorithm, bytes, schedule);
  time_gpu_iterations(job, schedule.info(), ranks, [&] { run.enqueue(); }, m);
  return m;
}

// The host's speed just before and just after a case (ExecutionJob::probe_bytes, asked by
// `validate`): its issue per transfer (execute/device/host_issue_probe.hpp), once for each probe
// size; the one host thread is what the cuda backend's time depends on most.
constexpr int kProbeRounds = 3;

std::vector<double> probe_host(const VirtualRankStreams* probe, const ExecutionJob& job) {
  if (probe == nullptr) return {};
  return std::vector<double>(job.probe_bytes.size(), host_issue_per_transfer_s(*probe, kProbeRounds));
}

}  // namespace

std::vector<Measurement> run_cuda_job(const ExecutionJob& job) {
  const int devices = visible_device_count();
  const bool corrupt = apply_fault_injection();
  enable_peer_access(std::min<int>(devices, int(job.request.ranks)));
  std::unique_ptr<VirtualRankStreams> probe;
  if (!job.probe_bytes.empty()) probe = std::make_unique<VirtualRankStreams>(job.request.ranks, devices);
  std::vector<Measurement> measurements;
  const std::vector<std::string> algorithms = expand_algorithms(job.request);
  for (std::uint64_t bytes : job.request.sizes)
    for (const std::string& algorithm : algorithms) {
      const std::vector<double> before = probe_host(probe.get(), job);
      Measurement m = run_schedule(job, algorithm, bytes, devices, corrupt);
      m.probe_before_s = before;
      m.probe_after_s = probe_host(probe.get(), job);
      measurements.push_back(std::move(m));
    }
  return measurements;
}

}  // namespace collsim
