// validate/rank_execution.cpp — the per-rank state machine (see the header).
#include "validate/rank_execution.hpp"

#include <algorithm>

namespace collsim {

void reduce_sum(float* __restrict dst, const float* __restrict src, std::uint64_t count) {
  for (std::uint64_t i = 0; i < count; ++i) dst[i] += src[i];
}

float* HostMemory::allocate(std::uint64_t elements) { return blocks_.emplace_back(elements).data(); }

void HostMemory::copy(float* dst, const float* src, std::uint64_t count) { std::copy_n(src, count, dst); }

RankExecution::RankExecution(const RankProgram& program, std::span<float> buffer, Faults faults)
    : program_(program), buffer_(buffer), own_memory_(std::make_unique<HostMemory>()), memory_(own_memory_.get()),
      faults_(faults), staging_of_(program.ops.size(), 0) {}

RankExecution::RankExecution(const RankProgram& program, std::span<float> buffer, RankMemory& memory, Faults faults)
    : program_(program), buffer_(buffer), memory_(&memory), faults_(faults), staging_of_(program.ops.size(), 0) {}

void RankExecution::start(Transport& transport) {
  waiting_for_ = program_.local_dependencies;
  done_ = 0;
  for (std::uint32_t op = 0; op < program_.ops.size(); ++op)
    if (waiting_for_[op] == 0) ready_.push(op);
  issue_ready(transport);
}

void RankExecution::complete(std::uint32_t op, Transport& transport) {
  const RankOp& rank_op = program_.ops[op];
  if (rank_op.role == Role::receive && rank_op.op == Op::reduce) {
    const std::uint32_t slot = staging_of_[op];
    reduce_into(rank_op, staging_[slot]);
    free_staging_.push_back(slot);
  }
  finish(op);
  issue_ready(transport);
}

void RankExecution::issue_ready(Transport& transport) {
  while (!ready_.empty()) {
    const std::uint32_t op = ready_.top();
    ready_.pop();
    issue(op, transport);
  }
}

void RankExecution::issue(std::uint32_t op, Transport& transport) {
  const RankOp& rank_op = program_.ops[op];
  switch (rank_op.role) {
    case Role::local:  // a staged chunk of this rank reduced (or copied) into another
      if (rank_op.op == Op::reduce) {
        reduce_into(rank_op, chunk(rank_op.source).data());
      } else {
        memory_->copy(chunk(rank_op.destination).data(), chunk(rank_op.source).data(), rank_op.source.bytes);
      }
      finish(op);
      return;
    case Role::send: transport.post_send(op, rank_op, chunk(rank_op.source)); return;
    case Role::receive:
      if (rank_op.op == Op::copy) {
        transport.post_receive(op, rank_op, chunk(rank_op.destination));
        return;
      }
      staging_of_[op] = take_staging();
      transport.post_receive(op, rank_op, std::span(staging_[staging_of_[op]], rank_op.destination.bytes));
      return;
  }
}

void RankExecution::finish(std::uint32_t op) {
  ++done_;
  for (std::uint32_t i = program_.dependent_begin[op]; i < program_.dependent_begin[op + 1]; ++i) {
    const std::uint32_t dependent = program_.dependents[i];
    if (--waiting_for_[dependent] == 0) ready_.push(dependent);
  }
}

void RankExecution::reduce_into(const RankOp& op, const float* data) {
  std::span<float> into = chunk(op.destination);
  memory_->reduce(into.data(), data, into.size());
  if (faults_.corrupt_first_reduction && !corrupted_ && !into.empty()) {
    memory_->add_one(into.data());
    corrupted_ = true;
  }
}

std::uint32_t RankExecution::take_staging() {
  if (!free_staging_.empty()) {
    const std::uint32_t slot = free_staging_.back();
    free_staging_.pop_back();
    return slot;
  }
  staging_.push_back(memory_->allocate(program_.largest_reduced_receive()));
  return static_cast<std::uint32_t>(staging_.size() - 1);
}

}  // namespace collsim
