// execute/mpi/mpi_calibration.hpp — the microbenchmarks behind `collsim calibrate --backend
// mpi`, collective over MPI_COMM_WORLD (at least 2 ranks): ping-pong between ranks 0 and 1,
// the same two exchanging (both sending at once) at the ping-pong's sizes, concurrent
// pairwise exchanges among 2, 4, ... ranks, the reduction loop and a large memcpy on rank 0,
// and the two ranks' reductions into the buffers they have just sent.
// Touches host buffers and MPI_COMM_WORLD.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/huge_page_allocator.hpp"
#include "execute/calibration_samples.hpp"

namespace collsim {

// A collective's data footprint: the point-to-point sweeps take each message's buffers in turn
// from this many per rank, each as large as the message (a two-rank ring holds its buffer of
// two chunks and a staging chunk: three messages' worth). On this project's node (Open MPI
// 4.1.4, shared memory, 2 ranks) one buffer bounced back and forth kept 8 and 16 MiB messages
// in the last-level cache and ran 1.35-1.4x faster than three in turn, while a 16 MiB ring's
// 8 MiB exchanges took 1.5-1.8 ms, not 1.0 (validate/README.md). A sweep sends through every
// byte of them once before its clock runs: the first message through a page here took 2-6x
// the later ones (8 MiB: 2.5-5.6 ms, then 0.9-1.4), which a collective's buffers, warmed by its
// warm-up iterations, never pay (a sweep on unwarmed 64 MiB buffers timed 8 MiB at 6 ms).
// Those figures are from 4 KiB pages; the buffers now lie on huge pages, as the executed
// schedules' do (base/huge_page_allocator.hpp).
constexpr std::size_t kFootprintBuffers = 3;

class FootprintBuffers {
 public:
  explicit FootprintBuffers(std::uint64_t bytes) : buffers_(kFootprintBuffers, HostVector<char>(bytes, 1)) {}
  // The next buffer in turn (aligned for floats: each is its own allocation).
  char* next() { return buffers_[next_++ % buffers_.size()].data(); }
  std::uint64_t bytes() const { return buffers_.front().size(); }

 private:
  std::vector<HostVector<char>> buffers_;
  std::size_t next_ = 0;
};

// Complete on rank 0.
CalibrationSamples measure_mpi_calibration(const CalibrationPlan& plan);

// The ping-pong one-way time between ranks 0 and 1 at each of `sizes`, measured as the
// calibration measures it (its median of rounds), about `seconds` per size; on every rank.
std::vector<double> probe_ping_pong(const std::vector<std::uint64_t>& sizes, double seconds);

}  // namespace collsim
