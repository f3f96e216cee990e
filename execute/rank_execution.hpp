// execute/rank_execution.hpp — the state machine every executor runs per rank: issue each
// operation of a RankProgram as soon as its local dependencies are done, run local
// reductions at once, and reduce a received chunk into place when its message completes.
// The transport (MPI, CUDA, or the in-process loopback of the tests) only moves bytes and
// reports completions, so the ordering logic is one piece of code, tested without MPI.
// Where the buffer lives (host memory, or a GPU for mpi+cuda) is the RankMemory's business:
// it allocates the staging buffers and runs the local copies and reductions.
// Touches: the rank's buffer and its own staging buffers; nothing global.
#pragma once

#include <cstdint>
#include <memory>
#include <queue>
#include <span>
#include <vector>

#include "base/huge_page_allocator.hpp"
#include "execute/rank_program.hpp"

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

// The memory a rank's buffer lives in. Copies and reductions may be asynchronous (a GPU
// stream): they then run in the order they were asked for, and the transport orders its
// own reads and writes of that memory after them (execute/mpi/device_transport.hpp).
class RankMemory {
 public:
  virtual ~RankMemory() = default;
  // Room for `elements` floats, valid as long as this memory object.
  virtual float* allocate(std::uint64_t elements) = 0;
  virtual void copy(float* dst, const float* src, std::uint64_t count) = 0;
  virtual void reduce(float* dst, const float* src, std::uint64_t count) = 0;  // dst += src
  virtual void add_one(float* at) = 0;  // fault injection: *at += 1
};

// Host memory: everything happens at once, on the calling thread; large blocks on huge pages.
class HostMemory final : public RankMemory {
 public:
  float* allocate(std::uint64_t elements) override;
  void copy(float* dst, const float* src, std::uint64_t count) override;
  void reduce(float* dst, const float* src, std::uint64_t count) override { reduce_sum(dst, src, count); }
  void add_one(float* at) override { *at += 1.0f; }

 private:
  std::vector<HostVector<float>> blocks_;
};

class RankExecution {
 public:
  // `buffer` lives in host memory.
  RankExecution(const RankProgram& program, std::span<float> buffer, Faults faults = {});
  // `buffer` lives in `memory`, which outlives the execution.
  RankExecution(const RankProgram& program, std::span<float> buffer, RankMemory& memory, Faults faults = {});

  // Starts one execution: issues every operation without local dependencies.
  void start(Transport& transport);
  // A posted send or receive has completed: reduce if needed, then issue what it released.
  void complete(std::uint32_t op, Transport& transport);
  bool finished() const { return done_ == program_.ops.size(); }
  std::size_t operations() const { return program_.ops.size(); }
  std::size_t completed() const { return done_; }

 private:
  void index_receives();
  bool receive_waits_its_turn(std::uint32_t op);
  void pass_turn(std::uint32_t receive);
  void issue_ready(Transport& transport);
  void issue(std::uint32_t op, Transport& transport);
  void finish(std::uint32_t op);
  void reduce_into(const RankOp& op, const float* data);
  std::span<float> chunk(ByteRange range) { return buffer_.subspan(range.offset, range.bytes); }
  std::uint32_t take_staging();

  const RankProgram& program_;
  std::span<float> buffer_;
  std::unique_ptr<HostMemory> own_memory_;  // when no memory is given (on the heap: moves keep it)
  RankMemory* memory_;
  Faults faults_;
  bool corrupted_ = false;
  std::vector<std::uint32_t> waiting_for_;  // per op: local dependencies not yet done
  std::size_t done_ = 0;
  // Ready ops, lowest index first: list order is the schedule's issue order.
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ready_;
  // Received chunks awaiting reduction (largest_reduced_receive() elements each, in memory_);
  // kept across executions so timed runs do not allocate.
  std::vector<float*> staging_;
  std::vector<std::uint32_t> free_staging_;
  std::vector<std::uint32_t> staging_of_;  // per op
  // One receive posted per peer at a time, in list order (a pipelined collective's window:
  // see issue_ready). Per peer: its receives in list order and the next one's position;
  // per receive: its peer's slot, and whether it is ready and waiting for its turn.
  std::vector<std::vector<std::uint32_t>> receives_of_peer_;
  std::vector<std::uint32_t> next_receive_of_peer_;
  std::vector<std::uint32_t> peer_slot_;
  std::vector<bool> waits_turn_;
};

}  // namespace collsim
