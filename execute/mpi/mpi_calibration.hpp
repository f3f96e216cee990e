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
// two chunks and a staging chunk: three messages' worth). One buffer bounced back and forth
// stays in the last-level cache, which a collective's buffers do not, so a sweep on one buffer
// times large messages faster than the collective meets them. A sweep also sends through every
// byte of its buffers once before its clock runs: the first message through a page is several
// times slower than later ones, which a collective's buffers, warmed by its warm-up
// iterations, never pay. The buffers lie on huge pages, as the executed schedules' do
// (base/huge_page_allocator.hpp). validate/README.md has the measurements behind each choice.
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
