// execute/nccl/nccl_executor.cpp — schedules as NCCL point-to-point waves (see the header).
//
// Why waves are enough: every access to a rank's memory is enqueued on that rank's stream
// (its sends read it, its receives, reductions and local transfers write it), and a hazard
// between two transfers is a dependency (the checker proves it), so they fall in different
// waves, which that stream runs in order. Within a wave transfers are independent; several
// reduced receives of one rank get disjoint staging ranges.
#include "execute/nccl/nccl_executor.hpp"

#include <nccl.h>

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "base/error.hpp"
#include "execute/device/cuda_check.hpp"
#include "execute/device/gpu_ranks.hpp"
#include "execute/device/reduce_kernel.hpp"

namespace collsim {
namespace {

void check_nccl(ncclResult_t status, const char* what) {
  if (status != ncclSuccess) throw Error(fmt::format("NCCL error in {}: {}", what, ncclGetErrorString(status)));
}

// One communicator per GPU, rank r on device r.
class NcclComms {
 public:
  explicit NcclComms(Rank ranks) : comms_(ranks) {
    std::vector<int> devices(ranks);
    std::iota(devices.begin(), devices.end(), 0);
    check_nccl(ncclCommInitAll(comms_.data(), int(ranks), devices.data()), "ncclCommInitAll");
  }
  ~NcclComms() {
    for (ncclComm_t comm : comms_)
      if (comm) ncclCommDestroy(comm);
  }
  NcclComms(const NcclComms&) = delete;
  NcclComms& operator=(const NcclComms&) = delete;
  ncclComm_t operator[](Rank r) const { return comms_[r]; }

 private:
  std::vector<ncclComm_t> comms_;
};

// The transfers of each wave, in list order (so the k-th send from a to b in a wave meets
// the k-th receive at b from a, as NCCL matches them).
std::vector<std::vector<TransferId>> dependency_waves(const Schedule& schedule) {
  std::vector<std::uint32_t> wave_of(schedule.size(), 0);
  std::vector<std::vector<TransferId>> waves;
  for (TransferId id = 0; id < schedule.size(); ++id) {
    for (TransferId dep : schedule.transfer(id).deps) wave_of[id] = std::max(wave_of[id], wave_of[dep] + 1);
    if (waves.size() <= wave_of[id]) waves.resize(wave_of[id] + 1);
    waves[wave_of[id]].push_back(id);
  }
  return waves;
}

class NcclScheduleRun {
 public:
  NcclScheduleRun(const Schedule& schedule, const NcclComms& comms, bool corrupt_first_reduction)
      : schedule_(schedule), comms_(comms), corrupt_(corrupt_first_reduction), waves_(dependency_waves(schedule)),
        staging_offset_(schedule.size(), 0) {
    assign_staging();
  }

  std::uint64_t staging_elements() const { return staging_elements_; }

  // Enqueues one execution, wave after wave; returns at once.
  void enqueue(GpuRanks& ranks) {
    corrupted_ = false;
    for (const std::vector<TransferId>& wave : waves_) {
      check_nccl(ncclGroupStart(), "ncclGroupStart");
      for (TransferId id : wave)
        if (!schedule_.transfer(id).is_local()) post_send_receive(id, ranks);
      check_nccl(ncclGroupEnd(), "ncclGroupEnd");
      for (TransferId id : wave) finish_on_receiver(id, ranks);
    }
  }

 private:
  // Reduced receives of one rank in one wave land side by side in its staging buffer.
  void assign_staging() {
    std::vector<std::uint64_t> used(schedule_.info().ranks, 0);
    for (const std::vector<TransferId>& wave : waves_) {
      std::fill(used.begin(), used.end(), 0);
      for (TransferId id : wave) {
        const Transfer t = schedule_.transfer(id);
        if (t.op != Op::reduce || t.is_local()) continue;
        staging_offset_[id] = used[t.dst];
        used[t.dst] += schedule_.transfer_bytes(id);
        staging_elements_ = std::max(staging_elements_, used[t.dst]);
      }
    }
  }

  void post_send_receive(TransferId id, GpuRanks& ranks) {
    const Transfer t = schedule_.transfer(id);
    const std::size_t count = schedule_.transfer_bytes(id);
    const float* source = ranks[t.src].buffer + schedule_.chunks()[t.src_chunk].offset;
    float* into = t.op == Op::copy ? ranks[t.dst].buffer + schedule_.chunks()[t.dst_chunk].offset
                                   : ranks[t.dst].staging + staging_offset_[id];
    check_nccl(ncclSend(source, count, ncclFloat, int(t.dst), comms_[t.src], ranks[t.src].stream), "ncclSend");
    check_nccl(ncclRecv(into, count, ncclFloat, int(t.src), comms_[t.dst], ranks[t.dst].stream), "ncclRecv");
  }

  // After the wave's messages: reductions of received chunks, and local transfers.
  void finish_on_receiver(TransferId id, GpuRanks& ranks) {
    const Transfer t = schedule_.transfer(id);
    if (!t.is_local() && t.op == Op::copy) return;  // the receive wrote its destination
    GpuRank& rank = ranks[t.dst];
    check_cuda(cudaSetDevice(rank.device), "cudaSetDevice");
    float* destination = rank.buffer + schedule_.chunks()[t.dst_chunk].offset;
    const float* source = t.is_local() ? rank.buffer + schedule_.chunks()[t.src_chunk].offset
                                       : rank.staging + staging_offset_[id];
    const std::uint64_t count = schedule_.transfer_bytes(id);
    if (t.op == Op::copy) {
      check_cuda(cudaMemcpyAsync(destination, source, count * sizeof(float), cudaMemcpyDeviceToDevice, rank.stream),
                 "cudaMemcpyAsync");
      return;
    }
    launch_reduce_sum(destination, source, count, rank.stream);
    if (corrupt_ && !corrupted_ && t.dst == std::min<Rank>(1, ranks.size() - 1)) {
      launch_add_one(destination, rank.stream);
      corrupted_ = true;
    }
  }

  const Schedule& schedule_;
  const NcclComms& comms_;
  bool corrupt_ = false;
  bool corrupted_ = false;
  std::vector<std::vector<TransferId>> waves_;
  std::vector<std::uint64_t> staging_offset_;  // per reduced receive, in its wave's range
  std::uint64_t staging_elements_ = 0;
};

Measurement run_schedule(const ExecutionJob& job, const std::string& algorithm, std::uint64_t bytes,
                         const NcclComms& comms, bool corrupt) {
  const Schedule schedule = executed_schedule(job.request, algorithm, bytes);
  NcclScheduleRun run(schedule, comms, corrupt);
  GpuRanks ranks(job.request.ranks, int(job.request.ranks), schedule.info().address_space(), run.staging_elements());
  Measurement m = measurement_of(job, "nccl", algorithm, bytes, schedule);
  time_gpu_iterations(job, schedule.info(), ranks, [&] { run.enqueue(ranks); }, m);
  return m;
}

Measurement run_nccl_allreduce(const ExecutionJob& job, std::uint64_t bytes, const NcclComms& comms) {
  const ScheduleInfo info = library_allreduce_info(job, "ncclAllReduce", bytes);
  GpuRanks ranks(info.ranks, int(info.ranks), info.bytes, 0);
  Measurement m = measurement_of(job, "nccl", info, bytes);
  time_gpu_iterations(job, info, ranks, [&] {
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (Rank r = 0; r < info.ranks; ++r)
      check_nccl(ncclAllReduce(ranks[r].buffer, ranks[r].buffer, info.bytes, ncclFloat, ncclSum, comms[r], ranks[r].stream),
                 "ncclAllReduce");
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  }, m);
  return m;
}

}  // namespace

std::vector<Measurement> run_nccl_job(const ExecutionJob& job) {
  const int devices = visible_device_count();
  if (job.request.ranks != Rank(devices))
    throw Error(fmt::format("the nccl backend runs one rank per GPU: asked for {} ranks, {} GPU(s) visible "
                            "(use --backend cuda for several ranks per GPU)",
                            job.request.ranks, devices));
  const bool corrupt = apply_fault_injection();
  const NcclComms comms(job.request.ranks);
  std::vector<Measurement> measurements;
  const std::vector<std::string> algorithms = expand_algorithms(job.request);
  for (std::uint64_t bytes : job.request.sizes) {
    for (const std::string& algorithm : algorithms) measurements.push_back(run_schedule(job, algorithm, bytes, comms, corrupt));
    if (job.reference && job.request.collective == Collective::allreduce)
      measurements.push_back(run_nccl_allreduce(job, bytes, comms));
  }
  return measurements;
}

}  // namespace collsim
