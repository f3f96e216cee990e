// execute/mpi/mpi_calibration.cpp — ping-pong, one pair's exchanges, concurrent exchanges, reduction
// loop, memcpy, and how much of the time the ranks had a CPU.
#include "execute/mpi/mpi_calibration.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "base/error.hpp"
#include "execute/measurement.hpp"
#include "execute/rank_execution.hpp"

namespace collsim {
namespace {

// Each point: the median of this many rounds. Three drop one preempted round; the launches
// repeat every point again (calibration.hpp), which is where its spread is taken.
constexpr int kRounds = 3;

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// Sizes from `first` to `max_bytes` by `step` (the last is max_bytes).
std::vector<std::uint64_t> sweep(std::uint64_t first, std::uint64_t max_bytes, std::uint64_t step) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t b = first; b < max_bytes; b *= step) sizes.push_back(b);
  sizes.push_back(max_bytes);
  return sizes;
}

// Messages of 1 B before a sweep, about 0.5 ms: the first points of a sweep otherwise pay for
// what came before it (allocations, the previous sweep's largest messages).
constexpr int kSmallWarmUp = 200;

// The ping-pong sweeps double the size each point: Open MPI switches protocol at 4 KiB (its
// shared-memory eager limit), and a x4 sweep left 2 KiB messages to a line drawn across it.
constexpr std::uint64_t kPingPongStep = 2;
// Ranks 0 and 1 bounce `bytes` back and forth `reps` times, through the rank's footprint of
// buffers; returns the one-way time.
double ping_pong_once(FootprintBuffers& buffers, std::uint64_t bytes, int reps) {
  const int me = world_rank(), count = int(bytes);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < reps && me < 2; ++i) {
    if (me == 0) {
      MPI_Send(buffers.next(), count, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buffers.next(), count, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buffers.next(), count, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffers.next(), count, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  double one_way = (MPI_Wtime() - start) / (2.0 * reps);
  MPI_Bcast(&one_way, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return one_way;
}

// A sweep's buffers, every byte of each sent once at full size (the first message through a
// page is slow: FootprintBuffers), then small messages: the sweep's first sizes otherwise came
// out at up to 3x their time.
template <class Once>
FootprintBuffers warmed_buffers(std::uint64_t bytes, Once once) {
  FootprintBuffers buffers(bytes);
  once(buffers, bytes, int(kFootprintBuffers));
  once(buffers, 1, kSmallWarmUp);
  return buffers;
}

// Repetitions so one round takes about `seconds`, agreed by every rank.
int repetitions_for(double one_estimate, double seconds) {
  return std::clamp(int(seconds / std::max(one_estimate, 1e-9)), 1, 2000);
}

// One ping-pong point: the median of kRounds rounds of about `seconds` / kRounds each.
double ping_pong_point(FootprintBuffers& buffers, std::uint64_t bytes, double seconds) {
  const int reps = repetitions_for(2 * ping_pong_once(buffers, bytes, 1), seconds / kRounds);
  std::vector<double> rounds;
  for (int r = 0; r < kRounds; ++r) rounds.push_back(ping_pong_once(buffers, bytes, reps));
  return median_of(rounds);
}

std::vector<SizeTime> measure_ping_pong(const CalibrationPlan& plan) {
  std::vector<SizeTime> points;
  FootprintBuffers buffers = warmed_buffers(plan.max_bytes, ping_pong_once);
  for (std::uint64_t bytes : sweep(1, plan.max_bytes, kPingPongStep))
    points.push_back({bytes, ping_pong_point(buffers, bytes, plan.seconds_per_point), {}});
  return points;
}

// This rank and its partner (rank ^ 1) send `count` bytes to each other at once.
void exchange_with_partner(const char* out, char* in, int count, int tag) {
  const int partner = world_rank() ^ 1;
  MPI_Request requests[2];
  MPI_Irecv(in, count, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(out, count, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &requests[1]);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
}

// The slower rank's mean of `busy` seconds over `reps` repetitions, on every rank.
double slower_rank_mean(double busy, int reps) {
  double slower = busy / reps;
  MPI_Allreduce(MPI_IN_PLACE, &slower, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slower;
}

// One point of a sweep timed by `once(buffers, bytes, reps)` (the slower rank's mean): the
// median of kRounds rounds after a warm-up, repetitions chosen so a round, writes and barriers
// included, takes about `seconds` / kRounds.
template <class Once>
double timed_point(FootprintBuffers& buffers, std::uint64_t bytes, double seconds, Once once) {
  once(buffers, bytes, 1);  // warm-up
  const double start = MPI_Wtime();
  once(buffers, bytes, 1);
  double one = MPI_Wtime() - start;
  MPI_Bcast(&one, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  const int reps = repetitions_for(one, seconds / kRounds);
  std::vector<double> rounds;
  for (int r = 0; r < kRounds; ++r) rounds.push_back(once(buffers, bytes, reps));
  return median_of(rounds);
}

// Ranks 0 and 1 send `bytes` to each other at once, `reps` times; returns the slower rank's
// mean time of an exchange. Each exchange's send buffer is written first, outside the clock:
// a collective sends data it has just written (the fill, a reduction), and with a shared-memory
// transport an exchange of a written buffer costs more than one of a buffer left unwritten (as
// measure_concurrent sends), most for small messages (validate/README.md, "Exchanges").
double exchange_pair_once(FootprintBuffers& buffers, std::uint64_t bytes, int reps) {
  const int me = world_rank(), count = int(bytes);
  double busy = 0;
  for (int i = 0; i < reps; ++i) {
    char* out = buffers.next();
    char* in = buffers.next();
    if (me < 2) std::memset(out, 'a' + i % 26, bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me >= 2) continue;
    const double start = MPI_Wtime();
    exchange_with_partner(out, in, count, 2);
    busy += MPI_Wtime() - start;
  }
  return slower_rank_mean(busy, reps);
}

// The exchange sweep's time per point, as a share of the ping-pong's: it adds to every
// calibration and every validation, five launches each. A third still runs about a thousand
// small exchanges per round, and large ones stay one per round, so each point stays measured
// while the sweep adds a fraction of the ping-pong's time to a launch.
constexpr double kExchangeBudgetShare = 0.3;

// At the ping-pong's sizes, so that each exchange row lines up with a size factor.
std::vector<SizeTime> measure_exchange(const CalibrationPlan& plan) {
  std::vector<SizeTime> points;
  const double seconds = kExchangeBudgetShare * plan.seconds_per_point;
  // The sweep starts right after the ping-pong's 64 MiB messages: without a warm-up of small
  // exchanges, 1 B came out at x2 the one-way time (2 B: x1.3) in most launches.
  FootprintBuffers buffers = warmed_buffers(plan.max_bytes, exchange_pair_once);
  for (std::uint64_t bytes : sweep(1, plan.max_bytes, kPingPongStep))
    points.push_back({bytes, timed_point(buffers, bytes, seconds, exchange_pair_once), {}});
  return points;
}

// Ranks [0, 2 pairs) exchange `bytes` with their partner (rank ^ 1), both ways at once:
// 2 x pairs flows. Returns the time until the last rank finished.
double exchange_once(HostVector<char>& out, HostVector<char>& in, std::uint64_t bytes, int pairs) {
  const int me = world_rank();
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  if (me < 2 * pairs) exchange_with_partner(out.data(), in.data(), int(bytes), 1);
  double elapsed = MPI_Wtime() - start;
  MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return elapsed;
}

// Exchanges in cache and out of it (256 KiB, 1 MiB, 16 MiB), each compared with the same size
// alone (calibration.cpp): a node shares its memory bus only where the data leaves the caches.
std::vector<ConcurrentSample> measure_concurrent(const CalibrationPlan& plan) {
  std::vector<ConcurrentSample> samples;
  for (std::uint64_t size : {256ull << 10, 1ull << 20, 16ull << 20}) {
    const std::uint64_t bytes = std::min<std::uint64_t>(plan.max_bytes, size);
    if (!samples.empty() && samples.back().bytes == bytes) break;
    HostVector<char> out(bytes, 2), in(bytes);
    for (int pairs = 1; 2 * pairs <= world_size(); pairs *= 2) {
      exchange_once(out, in, bytes, pairs);  // warm-up
      const int reps = repetitions_for(exchange_once(out, in, bytes, pairs), plan.seconds_per_point / kRounds);
      std::vector<double> rounds;
      for (int r = 0; r < kRounds; ++r) {
        double total = 0;
        for (int i = 0; i < reps; ++i) total += exchange_once(out, in, bytes, pairs);
        rounds.push_back(total / reps);
      }
      samples.push_back({std::uint32_t(2 * pairs), bytes, median_of(rounds), {}});
    }
  }
  return samples;
}

// The reduction sweep doubles like the ping-pong, so every power of two a collective reduces
// is a measured point (its per-byte pace changes 3x between in cache and out: validate/
// reduction_factor_fit.hpp). Each repetition reduces one buffer of the footprint into another.
std::vector<SizeTime> measure_reduction(const CalibrationPlan& plan) {
  std::vector<SizeTime> points;
  if (world_rank() != 0) return points;
  for (std::uint64_t bytes : sweep(4096, std::max<std::uint64_t>(plan.max_bytes, 4096), kPingPongStep)) {
    const std::uint64_t n = bytes / sizeof(float);
    FootprintBuffers buffers(n * sizeof(float));
    const auto once = [&] {
      float* dst = reinterpret_cast<float*>(buffers.next());
      reduce_sum(dst, reinterpret_cast<const float*>(buffers.next()), n);
    };
    const double start = MPI_Wtime();
    once();
    const int reps = repetitions_for(MPI_Wtime() - start, plan.seconds_per_point / kRounds);
    std::vector<double> rounds;
    for (int r = 0; r < kRounds; ++r) {
      const double t0 = MPI_Wtime();
      for (int i = 0; i < reps; ++i) once();
      rounds.push_back((MPI_Wtime() - t0) / reps);
    }
    points.push_back({n * sizeof(float), median_of(rounds), {}});
  }
  return points;
}

// Ranks 0 and 1 exchange `bytes`, then each reduces what it received into the buffer it has
// just sent, as recursive doubling does; returns the slower rank's mean time of the reduction
// alone. The partner's cache then holds the lines the reduction writes, which each write first
// takes back: such a reduction is slower than one alone, most where the data fits the caches
// (validate/README.md).
double reduction_into_sent_once(FootprintBuffers& buffers, std::uint64_t bytes, int reps) {
  const int me = world_rank(), count = int(bytes);
  double busy = 0;
  for (int i = 0; i < reps; ++i) {
    char* sent = buffers.next();
    char* received = buffers.next();
    MPI_Barrier(MPI_COMM_WORLD);
    if (me >= 2) continue;
    exchange_with_partner(sent, received, count, 3);
    const double start = MPI_Wtime();
    reduce_sum(reinterpret_cast<float*>(sent), reinterpret_cast<const float*>(received), bytes / sizeof(float));
    busy += MPI_Wtime() - start;
  }
  return slower_rank_mean(busy, reps);
}

// At the reduction sweep's sizes, a third of its time per point (each repetition is an
// exchange, which the clock leaves out, and a reduction).
std::vector<SizeTime> measure_reduction_into_sent(const CalibrationPlan& plan) {
  std::vector<SizeTime> points;
  const double seconds = kExchangeBudgetShare * plan.seconds_per_point;
  const std::uint64_t max_bytes = std::max<std::uint64_t>(plan.max_bytes, 4096);
  FootprintBuffers buffers = warmed_buffers(max_bytes, reduction_into_sent_once);
  for (std::uint64_t bytes : sweep(4096, max_bytes, kPingPongStep))
    points.push_back({bytes, timed_point(buffers, bytes, seconds, reduction_into_sent_once), {}});
  return points;
}

// One memcpy of the largest size (out of the caches, as the large reductions are), on rank 0:
// what a rank's memory gives a copy, which reads and writes every byte.
std::vector<SizeTime> measure_memory_copy(const CalibrationPlan& plan) {
  if (world_rank() != 0) return {};
  const std::uint64_t bytes = std::max<std::uint64_t>(plan.max_bytes, 4096);
  HostVector<char> src(bytes, 3), dst(bytes, 0);  // both written: their pages exist before the clock runs
  const double start = MPI_Wtime();
  std::memcpy(dst.data(), src.data(), bytes);
  const int reps = repetitions_for(MPI_Wtime() - start, plan.seconds_per_point / kRounds);
  std::vector<double> rounds;
  for (int r = 0; r < kRounds; ++r) {
    const double t0 = MPI_Wtime();
    for (int i = 0; i < reps; ++i) std::memcpy(dst.data(), src.data(), bytes);
    rounds.push_back((MPI_Wtime() - t0) / reps);
  }
  if (dst[bytes - 1] != src[bytes - 1]) throw Error("memory copy calibration: the copy did not arrive");
  return {{bytes, median_of(rounds), {}}};
}

// The least share of the time any rank had a CPU, on every rank. Waiting ranks spin (Open
// MPI polls shared memory), so less than all of it means other processes took the cores.
double least_on_cpu_fraction(const ThreadCpuShare& clock) {
  double fraction = clock.fraction();
  MPI_Allreduce(MPI_IN_PLACE, &fraction, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  return fraction;
}

}  // namespace

std::vector<double> probe_ping_pong(const std::vector<std::uint64_t>& sizes, double seconds) {
  if (world_size() < 2 || sizes.empty()) return {};
  // Made and warmed as the calibration's (a probe must time what the calibration timed).
  FootprintBuffers buffers = warmed_buffers(*std::max_element(sizes.begin(), sizes.end()), ping_pong_once);
  std::vector<double> times;
  for (std::uint64_t bytes : sizes) times.push_back(ping_pong_point(buffers, bytes, seconds));
  return times;
}

CalibrationSamples measure_mpi_calibration(const CalibrationPlan& plan) {
  if (world_size() < 2) throw Error("calibration needs at least 2 ranks");
  if (plan.max_bytes > std::uint64_t(std::numeric_limits<int>::max())) throw Error("--max-bytes must be below 2G");
  const ThreadCpuShare clock;
  CalibrationSamples s;
  s.ping_pong = measure_ping_pong(plan);
  s.exchange = measure_exchange(plan);
  s.concurrent = measure_concurrent(plan);
  s.reduction = measure_reduction(plan);
  s.reduction_into_sent = measure_reduction_into_sent(plan);
  s.memory_copy = measure_memory_copy(plan);
  s.receiver_copies = true;  // host buffers: Open MPI's shared memory has the receiver copy
  MPI_Barrier(MPI_COMM_WORLD);
  s.on_cpu_fraction = least_on_cpu_fraction(clock);
  return s;
}

}  // namespace collsim
