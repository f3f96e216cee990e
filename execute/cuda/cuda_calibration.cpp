// execute/cuda/cuda_calibration.cpp — copy sweeps, concurrent copies, reduction kernel (see
// the header).
#include "execute/cuda/cuda_calibration.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "base/error.hpp"
#include "execute/device/cuda_check.hpp"
#include "execute/device/host_issue_probe.hpp"
#include "execute/device/reduce_kernel.hpp"
#include "execute/measurement.hpp"

namespace collsim {
namespace {

// Each point: the median of this many rounds. Three drop one preempted round; the launches
// repeat every point again (calibration.hpp), which is where its spread is taken.
constexpr int kRounds = 3;

// Device memory of one virtual rank, freed on scope exit.
struct DeviceFloats {
  DeviceFloats(int device_, std::uint64_t count) : device(device_) {
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    void* memory = nullptr;
    check_cuda(cudaMalloc(&memory, std::max<std::uint64_t>(count, 1) * sizeof(float)), "cudaMalloc (calibration)");
    data = static_cast<float*>(memory);
    check_cuda(cudaMemset(data, 0, std::max<std::uint64_t>(count, 1) * sizeof(float)), "cudaMemset");
  }
  ~DeviceFloats() { cudaFree(data); }
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;
  int device;
  float* data = nullptr;
};

struct Stream {
  explicit Stream(int device) {
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~Stream() { cudaStreamDestroy(stream); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t stream = nullptr;
};

std::vector<std::uint64_t> sweep(std::uint64_t first, std::uint64_t max_bytes) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t b = first; b < max_bytes; b *= 4) sizes.push_back(b);
  sizes.push_back(max_bytes);
  return sizes;
}

void copy(const DeviceFloats& to, const DeviceFloats& from, std::uint64_t bytes, cudaStream_t stream) {
  if (to.device == from.device)
    check_cuda(cudaMemcpyAsync(to.data, from.data, bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
  else
    check_cuda(cudaMemcpyPeerAsync(to.data, to.device, from.data, from.device, bytes, stream), "cudaMemcpyPeerAsync");
}

struct TimingEvents {
  TimingEvents() {
    check_cuda(cudaEventCreate(&start), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
  }
  ~TimingEvents() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  TimingEvents(const TimingEvents&) = delete;
  TimingEvents& operator=(const TimingEvents&) = delete;
  // The GPU's time for what `enqueue` puts on `stream`, between two events, waited for.
  double time(const std::function<void()>& enqueue, cudaStream_t stream) const {
    check_cuda(cudaEventRecord(start, stream), "cudaEventRecord");
    enqueue();
    check_cuda(cudaEventRecord(stop, stream), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    return double(ms) * 1e-3;
  }
  cudaEvent_t start = nullptr, stop = nullptr;
};

// One operation's time on the GPU's clock, the GPU's work alone: the stream is held busy
// (launch_hold) while the host queues the start event, the operation and the stop event, so
// that they run back to back once the hold ends; on an idle stream the start event would fire
// at once and the time would include the host's issue of the operation (about 5 us on an
// H100's host: a 4-byte copy would seem to take 7 us). The host's issue is measured apart
// (execute/device/host_issue_probe.hpp). The median of the repetitions, about plan.seconds_per_point of them.
constexpr double kHold_s = 50e-6;  // longer than the host's issue of the three calls behind it

double timed_point(const CalibrationPlan& plan, const std::function<void()>& enqueue, cudaStream_t stream) {
  const TimingEvents events;
  auto held = [&] {
    launch_hold(kHold_s, stream);
    return events.time(enqueue, stream);
  };
  const double estimate = held() + kHold_s + 20e-6;  // also warms up; each repetition waits
  const int reps = std::clamp(int(plan.seconds_per_point / estimate), 5, 500);
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) times.push_back(held());
  return median_of(times);
}

std::vector<SizeTime> measure_copies(const CalibrationPlan& plan, int devices) {
  const DeviceFloats from(0, plan.max_bytes / sizeof(float)), to(1 % devices, plan.max_bytes / sizeof(float));
  const Stream stream(to.device);
  std::vector<SizeTime> points;
  for (std::uint64_t bytes : sweep(sizeof(float), plan.max_bytes))
    points.push_back({bytes, timed_point(plan, [&] { copy(to, from, bytes, stream.stream); }, stream.stream), {}});
  return points;
}

// `flows` copies of `bytes` at once, each on its own stream (rank 2k+1 receives from 2k).
double concurrent_once(const std::vector<std::unique_ptr<DeviceFloats>>& buffers, const std::vector<std::unique_ptr<Stream>>& streams,
                       std::uint32_t flows, std::uint64_t bytes) {
  const auto start = std::chrono::steady_clock::now();
  for (std::uint32_t f = 0; f < flows; ++f) copy(*buffers[2 * f + 1], *buffers[2 * f], bytes, streams[f]->stream);
  for (std::uint32_t f = 0; f < flows; ++f) check_cuda(cudaStreamSynchronize(streams[f]->stream), "cudaStreamSynchronize");
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<ConcurrentSample> measure_concurrent(const CalibrationPlan& plan, Rank ranks, int devices) {
  const std::uint64_t bytes = std::min<std::uint64_t>(plan.max_bytes, 64ull << 20);
  const std::uint32_t most = std::max<std::uint32_t>(ranks, 2);
  std::vector<std::unique_ptr<DeviceFloats>> buffers;
  std::vector<std::unique_ptr<Stream>> streams;
  for (std::uint32_t f = 0; f < most; ++f) {
    buffers.push_back(std::make_unique<DeviceFloats>(int((2 * f) % Rank(devices)), bytes / sizeof(float)));
    buffers.push_back(std::make_unique<DeviceFloats>(int((2 * f + 1) % Rank(devices)), bytes / sizeof(float)));
    streams.push_back(std::make_unique<Stream>(buffers.back()->device));
  }
  std::vector<ConcurrentSample> samples;
  for (std::uint32_t flows = 2; flows <= most; flows *= 2) {
    concurrent_once(buffers, streams, flows, bytes);  // warm-up
    std::vector<double> rounds;
    for (int r = 0; r < kRounds; ++r) rounds.push_back(concurrent_once(buffers, streams, flows, bytes));
    samples.push_back({flows, bytes, median_of(rounds), {}});
  }
  return samples;
}

std::vector<SizeTime> measure_reduction(const CalibrationPlan& plan) {
  const std::uint64_t max_elements = std::max<std::uint64_t>(plan.max_bytes / sizeof(float), 1024);
  const DeviceFloats dst(0, max_elements), src(0, max_elements);
  const Stream stream(0);
  std::vector<SizeTime> points;
  for (std::uint64_t bytes : sweep(4096, max_elements * sizeof(float))) {
    const std::uint64_t n = bytes / sizeof(float);
    const auto reduce = [&] { launch_reduce_sum(dst.data, src.data, n, stream.stream); };
    points.push_back({bytes, timed_point(plan, reduce, stream.stream), {}});
  }
  return points;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// After the last transfer is issued, the host synchronizes every rank's stream (the cuda
// backend's end of an iteration): the time from the end of the issue to the return of the last
// of `count` synchronizations, less `gpu_s`, the transfer's own time on the GPU (the reduction
// sweep's first point, of the same size). One reduction of kIssueBytes on rank 0's stream, the
// median of many; the point's `bytes` is `count`, the streams synchronized (the executor
// synchronizes P, so the calibration measures 2 and all its ranks' and the model takes the
// line through them).
SizeTime measure_host_sync(const CalibrationPlan& plan, const VirtualRankStreams& ranks, double gpu_s,
                           std::size_t count) {
  const int reps = std::clamp(int(plan.seconds_per_point / 30e-6), 9, 500);
  std::vector<double> waits;
  for (int r = 0; r < reps + 1; ++r) {
    ranks.synchronize();
    check_cuda(cudaSetDevice(ranks.device(0)), "cudaSetDevice");
    launch_reduce_sum(ranks.buffer(0), ranks.buffer(1), kIssueBytes / sizeof(float), ranks.stream(0));
    const auto issued = std::chrono::steady_clock::now();
    ranks.synchronize(count);
    if (r > 0) waits.push_back(std::max(0.0, seconds_since(issued) - gpu_s));
  }
  return {count, median_of(waits), {}};
}

std::string versions() {
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  return fmt::format("CUDA runtime {}.{}, driver API {}.{}", runtime / 1000, runtime % 1000 / 10, driver / 1000,
                     driver % 1000 / 10);
}

}  // namespace

CalibrationSamples measure_cuda_calibration(const CalibrationPlan& plan, Rank ranks) {
  const int devices = visible_device_count();
  if (plan.max_bytes < 4096) throw Error("--max-bytes must be at least 4K");
  cudaDeviceProp properties{};
  check_cuda(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
  // The host thread spins in cudaStreamSynchronize (the default when there are more cores
  // than GPU contexts), so it runs all the time unless other processes take its core.
  const ThreadCpuShare clock;
  CalibrationSamples s;
  s.ping_pong = measure_copies(plan, devices);
  s.concurrent = measure_concurrent(plan, ranks, devices);
  s.reduction = measure_reduction(plan);
  const VirtualRankStreams rank_streams(ranks, devices);
  s.host_issue = {{kIssueBytes, host_issue_per_transfer_s(rank_streams, kRounds), {}}};
  const double reduction_4k_s = s.reduction.front().seconds;  // the sweep's first point: 4 KiB
  for (std::size_t count : {std::size_t(2), rank_streams.size()})
    if (s.host_sync.empty() || count > s.host_sync.back().bytes)
      s.host_sync.push_back(measure_host_sync(plan, rank_streams, reduction_4k_s, count));
  s.on_cpu_fraction = clock.fraction();
  s.library = versions();
  s.device = properties.name;
  return s;
}

}  // namespace collsim
