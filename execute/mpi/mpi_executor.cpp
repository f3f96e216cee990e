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

// The rank's buffer on a device, when it is not the host buffer itself (mpi+cuda).
struct DeviceBuffer {
  DeviceStream& stream;
  float* data;
};

// Warm-up then timed iterations of `once` (which runs the collective on the rank's buffer),
// each started after a barrier; an iteration's time is the slowest rank's. Inputs are made
// in `host` and, for a device buffer, copied there and back outside the timed region.
std::vector<double> timed_iterations(const ExecutionJob& job, const ScheduleInfo& info, std::span<float> host,
                                     const std::optional<DeviceBuffer>& device, ProgressBeacon& progress,
                                     const std::function<void()>& once) {
  std::vector<double> times;
  const std::uint32_t total = job.warmup + job.iterations;
  for (std::uint32_t i = 0; i < total; ++i) {
    progress.beat(fmt::format("{} {} iteration {} of {}", info.algorithm, format_size(info.bytes * kElementBytes), i + 1,
                              total));
    fill_inputs(info, Rank(world_rank()), host);
    if (device) {
      device->stream.to_device(device->data, host.data(), host.size());
      device->stream.synchronize();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    once();
    double elapsed = MPI_Wtime() - start;
    MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (device) {
      device->stream.to_host(host.data(), device->data, host.size());
      device->stream.synchronize();
    }
    agree_on_result(info, host);
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
    m.times_s = timed_iterations(job, schedule.info(), host, std::nullopt, progress, [&] {
      execution.start(transport);
      transport.run_to_completion(execution);
    });
  } else {
    const std::unique_ptr<DeviceStream> stream = make_device();
    float* buffer = stream->allocate(program.address_space);
    RankExecution execution(program, std::span(buffer, program.address_space), *stream, faults);
    MpiDeviceTransport transport(MPI_COMM_WORLD, *stream, largest_message(program));
    m.times_s = timed_iterations(job, schedule.info(), host, DeviceBuffer{*stream, buffer}, progress, [&] {
      execution.start(transport);
      transport.run_to_completion(execution);
    });
  }
  m.verified = true;
  return m;
}

// MPI_Allreduce on the rank's buffer: in place on the host; on a device, in place there
// with a CUDA-aware MPI, else staged (to the host, MPI_Allreduce, back), all of it timed.
Measurement run_mpi_allreduce(const ExecutionJob& job, std::uint64_t bytes, const DeviceFactory& make_device,
                              ProgressBeacon& progress) {
  const ScheduleInfo info = library_allreduce_info(job, "MPI_Allreduce", bytes);
  HostVector<float> host(info.bytes);
  Measurement m = measurement_of(job, job.backend, info, bytes);
  const int count = int(host.size());
  if (!make_device) {
    m.times_s = timed_iterations(job, info, host, std::nullopt, progress, [&] {
      MPI_Allreduce(MPI_IN_PLACE, host.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    });
  } else {
    const std::unique_ptr<DeviceStream> stream = make_device();
    float* buffer = stream->allocate(host.size());
    float* staging = stream->allocate_host(host.size());
    m.times_s = timed_iterations(job, info, host, DeviceBuffer{*stream, buffer}, progress, [&] {
      if (stream->mpi_can_access()) {
        MPI_Allreduce(MPI_IN_PLACE, buffer, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        return;
      }
      stream->to_host(staging, buffer, host.size());
      stream->synchronize();
      MPI_Allreduce(MPI_IN_PLACE, staging, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      stream->to_device(buffer, staging, host.size());
      stream->synchronize();
    });
  }
  m.verified = true;
  return m;
}

}  // namespace

std::vector<Measurement> run_mpi_job(const ExecutionJob& job, const Faults& faults, const DeviceFactory& device,
                                     ProgressBeacon& progress) {
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
    if (job.reference && job.request.collective == Collective::allreduce)
      measurements.push_back(run_mpi_allreduce(job, bytes, device, progress));
  }
  return measurements;
}

}  // namespace collsim
