// validate/mpi/mpi_executor.cpp — timed, verified executions over MPI (see the header).
#include "validate/mpi/mpi_executor.hpp"

#include <mpi.h>

#include <cstdio>
#include <functional>
#include <optional>

#include "validate/mpi/mpi_transport.hpp"
#include "validate/rank_program.hpp"
#include "validate/reference_data.hpp"

namespace collsim {
namespace {

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// Every rank learns whether any found a mismatch; the lowest such rank prints it.
void agree_on_result(const ScheduleInfo& info, std::span<const float> buffer) {
  const Rank me = Rank(world_rank());
  const std::optional<Mismatch> mismatch = find_mismatch(info, me, buffer);
  int first_bad = mismatch ? int(me) : int(info.ranks);
  MPI_Allreduce(MPI_IN_PLACE, &first_bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first_bad == int(info.ranks)) return;
  if (first_bad == int(me)) {
    std::fprintf(stderr, "collsim-mpi-worker: error: %s\n", describe_mismatch(info, me, *mismatch).c_str());
    std::fflush(stderr);
  }
  throw AgreedFailure("result mismatch");
}

// Warm-up then timed iterations of `once` (which runs the collective on `buffer`), each
// started after a barrier; an iteration's time is the slowest rank's.
std::vector<double> timed_iterations(const ExecutionJob& job, const ScheduleInfo& info, std::vector<float>& buffer,
                                     const std::function<void()>& once) {
  std::vector<double> times;
  for (std::uint32_t i = 0; i < job.warmup + job.iterations; ++i) {
    fill_inputs(info, Rank(world_rank()), buffer);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    once();
    double elapsed = MPI_Wtime() - start;
    MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    agree_on_result(info, buffer);
    if (i >= job.warmup) times.push_back(elapsed);
  }
  return times;
}

Measurement run_schedule(const ExecutionJob& job, const std::string& algorithm, std::uint64_t bytes,
                         const Faults& faults) {
  const Schedule schedule = executed_schedule(job.request, algorithm, bytes);
  check_tag_range(schedule.size());
  const RankProgram program = build_rank_program(schedule, Rank(world_rank()));
  std::vector<float> buffer(program.address_space);
  RankExecution execution(program, buffer, faults);
  MpiTransport transport(MPI_COMM_WORLD);
  Measurement m = measurement_of(job, "mpi", algorithm, bytes, schedule);
  m.times_s = timed_iterations(job, schedule.info(), buffer, [&] {
    execution.start(transport);
    transport.run_to_completion(execution);
  });
  m.verified = true;
  return m;
}

Measurement run_mpi_allreduce(const ExecutionJob& job, std::uint64_t bytes) {
  ScheduleInfo info;
  info.collective = Collective::allreduce;
  info.algorithm = "MPI_Allreduce";
  info.ranks = job.request.ranks;
  info.bytes = bytes / kElementBytes;
  std::vector<float> buffer(info.bytes);
  Measurement m;
  m.algorithm = info.algorithm;
  m.backend = "mpi";
  m.ranks = info.ranks;
  m.bytes = bytes;
  m.times_s = timed_iterations(job, info, buffer, [&] {
    MPI_Allreduce(MPI_IN_PLACE, buffer.data(), int(buffer.size()), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  });
  m.verified = true;
  return m;
}

}  // namespace

std::vector<Measurement> run_mpi_job(const ExecutionJob& job, const Faults& faults) {
  std::vector<Measurement> measurements;
  const std::vector<std::string> algorithms = expand_algorithms(job.request);
  for (std::uint64_t bytes : job.request.sizes) {
    for (const std::string& algorithm : algorithms) measurements.push_back(run_schedule(job, algorithm, bytes, faults));
    if (job.reference && job.request.collective == Collective::allreduce)
      measurements.push_back(run_mpi_allreduce(job, bytes));
  }
  return measurements;
}

}  // namespace collsim
