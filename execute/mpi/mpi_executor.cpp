// execute/mpi/mpi_executor.cpp — timed, verified executions over MPI (see the header).
#include "execute/mpi/mpi_executor.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include <fmt/format.h>

#include "base/huge_page_allocator.hpp"
#include "base/units.hpp"
#include "execute/mpi/device_transport.hpp"
#include "execute/mpi/mpi_calibration.hpp"
#include "execute/mpi/mpi_transport.hpp"
#include "execute/rank_program.hpp"
#include "execute/reference_data.hpp"

namespace collsim {
namespace {

// Each probe size's time: long enough for the calibration's three rounds to repeat the
// small sizes hundreds of times, short beside a case (20 iterations of a 64 MiB allreduce).
constexpr double kProbeSeconds = 0.015;

int rank_in(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}
int world_rank() { return rank_in(MPI_COMM_WORLD); }

// Every rank learns whether any found a mismatch; the lowest such rank prints it. A process
// emulating a switch reducer has no postcondition (find_mismatch finds nothing there).
void agree_on_result(const ScheduleInfo& info, std::span<const float> buffer, MPI_Comm comm) {
  const Rank me = Rank(rank_in(comm));
  const std::optional<Mismatch> mismatch = find_mismatch(info, me, buffer);
  int first_bad = mismatch ? int(me) : int(info.ranks);
  MPI_Allreduce(MPI_IN_PLACE, &first_bad, 1, MPI_INT, MPI_MIN, comm);
  if (first_bad == int(info.ranks)) return;
  if (first_bad == int(me)) {
    std::fprintf(stderr, "collsim-mpi-worker: error: %s\n", describe_mismatch(info, me, *mismatch).c_str());
    std::fflush(stderr);
  }
  throw AgreedFailure("result mismatch");
}

// The rank's buffer on a device, when it is not the host buffer itself (mpi+cuda).
struct DeviceBuffer {
  DeviceStream& stream;
  float* data;
};

// Warm-up then timed iterations of `once` (which runs the collective on the rank's buffer)
// on the processes of `comm`, each started after a barrier; an iteration's time is the
// slowest rank's. The processes that emulate switch reducers (ids from info.ranks on) take
// part but count no time: they stand in for switches, and their host's time is not a
// switch's. Inputs are made in `host` and, for a device buffer, copied there and back
// outside the timed region.
std::vector<double> timed_iterations(const ExecutionJob& job, const ScheduleInfo& info, std::span<float> host,
                                     const std::optional<DeviceBuffer>& device, ProgressBeacon& progress,
                                     MPI_Comm comm, const std::function<void()>& once) {
  const Rank me = Rank(rank_in(comm));
  std::vector<double> times;
  const std::uint32_t total = job.warmup + job.iterations;
  for (std::uint32_t i = 0; i < total; ++i) {
    progress.beat(fmt::format("{} {} iteration {} of {}", info.algorithm, format_size(info.bytes * kElementBytes), i + 1,
                              total));
    fill_inputs(info, me, host);
    if (device) {
      device->stream.to_device(device->data, host.data(), host.size());
      device->stream.synchronize();
    }
    MPI_Barrier(comm);
    const double start = MPI_Wtime();
    once();
    double elapsed = info.is_reducer(me) ? 0.0 : MPI_Wtime() - start;
    MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (device) {
      device->stream.to_host(host.data(), device->data, host.size());
      device->stream.synchronize();
    }
    agree_on_result(info, host, comm);
    if (i >= job.warmup) times.push_back(elapsed);
  }
  return times;
}

// The largest message of a rank's program, in elements (the device transport's host buffers).
std::uint64_t largest_message(const RankProgram& program) {
  std::uint64_t largest = 0;
  for (const RankOp& op : program.ops)
    if (op.role == Role::send) largest = std::max(largest, op.source.bytes);
    else if (op.role == Role::receive) largest = std::max(largest, op.destination.bytes);
  return largest;
}

Measurement run_schedule(const ExecutionJob& job, const std::string& algorithm, std::uint64_t bytes,
                         const Faults& faults, const DeviceFactory& make_device, ProgressBeacon& progress) {
  const Schedule schedule = executed_schedule(job.request, algorithm, bytes);
  check_tag_range(schedule.size());
  const RankProgram program = build_rank_program(schedule, Rank(world_rank()));
  HostVector<float> host(program.address_space);
  Measurement m = measurement_of(job, job.backend, algorithm, bytes, schedule);
  if (!make_device) {
    RankExecution execution(program, host, faults);
    MpiTransport transport(MPI_COMM_WORLD);
    m.times_s = timed_iterations(job, schedule.info(), host, std::nullopt, progress, MPI_COMM_WORLD, [&] {
      execution.start(transport);
      transport.run_to_completion(execution);
    });
  } else {
    const std::unique_ptr<DeviceStream> stream = make_device();
    float* buffer = stream->allocate(program.address_space);
    RankExecution execution(program, std::span(buffer, program.address_space), *stream, faults);
    MpiDeviceTransport transport(MPI_COMM_WORLD, *stream, largest_message(program));
    m.times_s = timed_iterations(job, schedule.info(), host, DeviceBuffer{*stream, buffer}, progress, MPI_COMM_WORLD, [&] {
      execution.start(transport);
      transport.run_to_completion(execution);
    });
  }
  m.verified = true;
  return m;
}

// MPI_Allreduce on the rank's buffer, over `ranks` (the job's ranks, without the processes
// that emulate switches): in place on the host; on a device, in place there with a
// CUDA-aware MPI, else staged (to the host, MPI_Allreduce, back), all of it timed.
Measurement run_mpi_allreduce(const ExecutionJob& job, std::uint64_t bytes, const DeviceFactory& make_device,
                              ProgressBeacon& progress, MPI_Comm ranks) {
  const ScheduleInfo info = library_allreduce_info(job, "MPI_Allreduce", bytes);
  HostVector<float> host(info.bytes);
  Measurement m = measurement_of(job, job.backend, info, bytes);
  const int count = int(host.size());
  if (!make_device) {
    m.times_s = timed_iterations(job, info, host, std::nullopt, progress, ranks, [&] {
      MPI_Allreduce(MPI_IN_PLACE, host.data(), count, MPI_FLOAT, MPI_SUM, ranks);
    });
  } else {
    const std::unique_ptr<DeviceStream> stream = make_device();
    float* buffer = stream->allocate(host.size());
    float* staging = stream->allocate_host(host.size());
    m.times_s = timed_iterations(job, info, host, DeviceBuffer{*stream, buffer}, progress, ranks, [&] {
      if (stream->mpi_can_access()) {
        MPI_Allreduce(MPI_IN_PLACE, buffer, count, MPI_FLOAT, MPI_SUM, ranks);
        return;
      }
      stream->to_host(staging, buffer, host.size());
      stream->synchronize();
      MPI_Allreduce(MPI_IN_PLACE, staging, count, MPI_FLOAT, MPI_SUM, ranks);
      stream->to_device(buffer, staging, host.size());
      stream->synchronize();
    });
  }
  m.verified = true;
  return m;
}

// The job's ranks without the processes that emulate switch reducers (null on those): the
// world itself where there are none, else split from it the first time it is asked for, by
// every process at the same point of the job (a split is collective, and made at the start
// it would keep the ranks from reporting progress when one of them hangs).
class RanksOnly {
 public:
  explicit RanksOnly(Rank ranks) : ranks_(ranks) {}
  ~RanksOnly() {
    if (split_ && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  RanksOnly(const RanksOnly&) = delete;
  RanksOnly& operator=(const RanksOnly&) = delete;

  MPI_Comm comm() {
    if (split_) return comm_;
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (Rank(size) == ranks_) return MPI_COMM_WORLD;
    const int me = world_rank();
    MPI_Comm_split(MPI_COMM_WORLD, Rank(me) < ranks_ ? 0 : MPI_UNDEFINED, me, &comm_);
    split_ = true;
    return comm_;
  }

 private:
  Rank ranks_;
  bool split_ = false;
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace

std::vector<Measurement> run_mpi_job(const ExecutionJob& job, const Faults& faults, const DeviceFactory& device,
                                     ProgressBeacon& progress) {
  RanksOnly ranks(job.request.ranks);
  std::vector<Measurement> measurements;
  const std::vector<std::string> algorithms = expand_algorithms(job.request);
  for (std::uint64_t bytes : job.request.sizes) {
    for (const std::string& algorithm : algorithms) {
      const std::vector<double> before = probe_ping_pong(job.probe_bytes, kProbeSeconds);
      Measurement m = run_schedule(job, algorithm, bytes, faults, device, progress);
      m.probe_before_s = before;
      m.probe_after_s = probe_ping_pong(job.probe_bytes, kProbeSeconds);
      measurements.push_back(std::move(m));
    }
    if (job.reference && job.request.collective == Collective::allreduce && ranks.comm() != MPI_COMM_NULL)
      measurements.push_back(run_mpi_allreduce(job, bytes, device, progress, ranks.comm()));
  }
  return measurements;
}

}  // namespace collsim
