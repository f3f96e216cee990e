// execute/measurement.hpp — what an execution reports: per algorithm and size, the time of
// every timed iteration (the slowest rank's, after a barrier), summarized as min / median /
// max with nccl-tests algbw and busbw (docs/design.md section 3); and the job a worker process
// is given. Both travel between collsim and its workers as JSON files. Pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "execute/execution_plan.hpp"

namespace collsim {

struct Measurement {
  Collective collective = Collective::allreduce;
  std::string algorithm;   // a schedule's, or the library's own (MPI_Allreduce, ncclAllReduce)
  std::string backend;
  Rank ranks = 0;
  std::uint64_t bytes = 0;
  std::uint32_t segments = 1;
  std::size_t transfers = 0;     // 0 for a library reference
  // Switch reducers of an in-network schedule, each emulated by a process of its own
  // (execution_plan.hpp); their time is not counted: times_s is the ranks'. 0: none.
  Rank emulated_switches = 0;
  std::vector<double> times_s;   // per timed iteration
  bool verified = false;         // every iteration, warm-up included, matched the reference
  // The machine as the case met it (ExecutionJob::probe_bytes): the ping-pong one-way time of
  // ranks 0 and 1 at each probe size, just before the case and just after it.
  std::vector<double> probe_before_s, probe_after_s;
  // The host's time to issue one execution, per timed iteration (the GPU backends: the enqueue
  // loop alone, from its first call until it returns, before the wait for the streams); empty
  // where the backend does not time it. Beside times_s it says whether a case was bound by the
  // host's issue (issue close to the whole) or by the GPU's work.
  std::vector<double> issue_s;

  double min_s() const;
  double median_s() const;
  double max_s() const;
  double issue_median_s() const;  // 0 where the issue was not timed
  double algbw_GBps() const;  // bytes / median
  double busbw_GBps() const;
};

double median_of(std::vector<double> values);
double percentile_of(std::vector<double> values, double fraction);  // nearest rank

struct ExecutionJob {
  ExecutionRequest request;
  std::string backend = "mpi";
  std::uint32_t iterations = 10;
  std::uint32_t warmup = 2;
  bool reference = true;  // also time the library's collective (allreduce)
  // Ping-pong sizes timed before and after every case (empty: none), so that validate can
  // tell a case measured on the machine it calibrated from one measured after the machine
  // changed speed (a virtual machine's cores moved, a neighbour's load came or went).
  std::vector<std::uint64_t> probe_bytes;
};

// A measurement of `schedule` (algorithm, bytes per rank) as `backend` runs it for the job,
// its times still to come.
Measurement measurement_of(const ExecutionJob& job, const std::string& backend, const std::string& algorithm,
                           std::uint64_t bytes, const Schedule& schedule);

// The library's own allreduce (`name`: MPI_Allreduce, ncclAllReduce) on the job's ranks, as
// verification sees it: in float elements, checked against the allreduce reference.
ScheduleInfo library_allreduce_info(const ExecutionJob& job, const std::string& name, std::uint64_t bytes);
// A measurement of it as `backend` runs it, its times still to come.
Measurement measurement_of(const ExecutionJob& job, const std::string& backend, const ScheduleInfo& library,
                           std::uint64_t bytes);

nlohmann::json to_json(const Measurement& m);
Measurement measurement_from_json(const nlohmann::json& j);
nlohmann::json to_json(const ExecutionJob& job);
ExecutionJob job_from_json(const nlohmann::json& j);

}  // namespace collsim
