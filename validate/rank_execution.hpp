// validate/rank_execution.hpp — the state machine every executor runs per rank: issue each
// operation of a RankProgram as soon as its local dependencies are done, run local
// reductions at once, and reduce a received chunk into place when its message completes.
// The transport (MPI, CUDA, or the in-process loopback of the tests) only moves bytes and
// reports completions, so the ordering logic is one piece of code, tested without MPI.
// Touches: the rank's buffer and its own staging buffers; nothing global.
#pragma once

#include <cstdint>
#include <queue>
#include <span>
#include <vector>

#include "validate/rank_program.hpp"

namespace collsim {

// Moves bytes for one rank. A post returns at once; the executor later calls
// RankExecution::complete(op) when the send may reuse its buffer / the receive has its data.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual void post_send(std::uint32_t op, const RankOp& rank_op, std::span<const float> data) = 0;
  virtual void post_receive(std::uint32_t op, const RankOp& rank_op, std::span<float> into) = 0;
};

// Hidden fault injection (tests): add 1 to the first element of this rank's first reduction.
struct Faults {
  bool corrupt_first_reduction = false;
};

// dst[i] += src[i]: a plain loop the compiler vectorizes (gamma is measured on this loop).
void reduce_sum(float* __restrict dst, const float* __restrict src, std::uint64_t count);

class RankExecution {
 public:
  RankExecution(const RankProgram& program, std::span<float> buffer, Faults faults = {});

  // Starts one execution: issues every operation without local dependencies.
  void start(Transport& transport);
  // A posted send or receive has completed: reduce if needed, then issue what it released.
  void complete(std::uint32_t op, Transport& transport);
  bool finished() const { return done_ == program_.ops.size(); }
  std::size_t operations() const { return program_.ops.size(); }
  std::size_t completed() const { return done_; }

 private:
  void issue_ready(Transport& transport);
  void issue(std::uint32_t op, Transport& transport);
  void finish(std::uint32_t op);
  void reduce_into(const RankOp& op, const float* data);
  std::span<float> chunk(ByteRange range) { return buffer_.subspan(range.offset, range.bytes); }
  std::uint32_t take_staging();

  const RankProgram& program_;
  std::span<float> buffer_;
  Faults faults_;
  bool corrupted_ = false;
  std::vector<std::uint32_t> waiting_for_;  // per op: local dependencies not yet done
  std::size_t done_ = 0;
  // Ready ops, lowest index first: list order is the schedule's issue order.
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ready_;
  // Received chunks awaiting reduction; kept across executions so timed runs do not allocate.
  std::vector<std::vector<float>> staging_;
  std::vector<std::uint32_t> free_staging_;
  std::vector<std::uint32_t> staging_of_;  // per op
};

}  // namespace collsim
