// execute/calibration_samples.hpp — what a backend's worker measures for `collsim calibrate`
// (ping-pong, exchanges, concurrent pairs, reductions, memory copies), how it is asked (the
// plan), and the JSON the samples travel in from the worker to collsim. The fits that turn
// samples into a cluster config are validate/calibration.hpp's. Pure, but for ThreadCpuShare
// (the workers' clock).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace collsim {

struct SizeTime {
  std::uint64_t bytes = 0;
  double seconds = 0;            // the median of the repeats
  std::vector<double> repeats;   // each repeat's time, in the order they ran (empty: one run)
};

struct ConcurrentSample {
  std::uint32_t flows = 0;  // transfers in flight at once, each of `bytes`
  std::uint64_t bytes = 0;
  double seconds = 0;       // until the last one finished (median of the repeats)
  std::vector<double> repeats;
  double aggregate_Bps() const { return seconds > 0 ? double(flows) * double(bytes) / seconds : 0; }
};

// What a worker measures. mpi: ping-pong between two processes, pairwise exchanges, the
// host reduction loop. cuda: device-to-device copies between two virtual ranks' buffers on
// one stream, copies on several streams at once (the GPU's memory and copy engines shared),
// the reduction kernel; `device` then names the GPU.
struct CalibrationSamples {
  std::vector<SizeTime> ping_pong;   // one-way time per message size
  std::vector<ConcurrentSample> concurrent;
  std::vector<SizeTime> reduction;   // bytes reduced (dst += src), time
  // bytes copied by one memcpy (out of cache), time; empty where the worker does not measure it
  // (cuda; samples written before it was measured)
  std::vector<SizeTime> memory_copy;
  // Ranks 0 and 1 sending `bytes` to each other at once, the time of the slower one, at the
  // ping-pong's sizes; empty where the worker does not measure it (cuda; samples written
  // before it was measured): no exchange factors then.
  std::vector<SizeTime> exchange;
  // Ranks 0 and 1 each reducing what they received into the buffer they have just sent (after
  // an exchange, as recursive doubling does), the slower one's time, at the reduction sweep's
  // sizes; empty where the worker does not measure it: no reduction_into_sent_factors then.
  std::vector<SizeTime> reduction_into_sent;
  // cuda: what the one host thread that drives the virtual ranks pays per transfer, issued as
  // the cuda backend issues it (execute/cuda/cuda_executor.cpp: a wait for the event of the
  // transfer before it on another rank's stream, a reduction kernel of `bytes`, an event record),
  // one point {bytes, seconds per transfer}; and host_sync: after the last transfer is issued,
  // how much longer than that transfer's own GPU time the host waits until its synchronization
  // of every stream returns, one point. Empty elsewhere (mpi) and in samples written before
  // they were measured: the calibrated YAML then has no host_issue.
  std::vector<SizeTime> host_issue;
  std::vector<SizeTime> host_sync;
  std::string library;               // MPI library / CUDA runtime and driver version line
  std::string device;                // the GPU's name (cuda); empty for mpi
  // The ranks copy what they receive, on the core that reduces (mpi on host buffers: Open
  // MPI's shared memory has the receiver copy): the model gives each rank a core
  // (core_copy_Bps), not a memory link.
  bool receiver_copies = false;
  // The least share of the measuring time that any measuring process spent on a CPU. Below
  // 1, other processes took the cores, and the times include waiting for the scheduler.
  double on_cpu_fraction = 1;
};

struct CalibrationPlan {
  std::uint64_t max_bytes = 64ull << 20;
  double seconds_per_point = 0.05;  // repetitions are chosen to take about this long
};

// The calling thread's CPU time over wall time since construction (capped at 1): how much
// of a measurement the measuring thread really ran. For the workers.
class ThreadCpuShare {
 public:
  ThreadCpuShare();
  double fraction() const;

 private:
  double cpu_start_s_;
  std::chrono::steady_clock::time_point wall_start_;
};

nlohmann::json to_json(const CalibrationSamples& s);
CalibrationSamples calibration_samples_from_json(const nlohmann::json& j);

}  // namespace collsim
