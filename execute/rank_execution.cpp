// execute/rank_execution.cpp — the per-rank state machine (see the header).
#include "execute/rank_execution.hpp"

#include <algorithm>
#include <unordered_map>

namespace collsim {

void reduce_sum(float* __restrict dst, const float* __restrict src, std::uint64_t count) {
  for (std::uint64_t i = 0; i < count; ++i) dst[i] += src[i];
}

float* HostMemory::allocate(std::uint64_t elements) { return blocks_.emplace_back(elements).data(); }

void HostMemory::copy(float* dst, const float* src, std::uint64_t count) { std::copy_n(src, count, dst); }

RankExecution::RankExecution(const RankProgram& program, std::span<float> buffer, Faults faults)
    : program_(program), buffer_(buffer), own_memory_(std::make_unique<HostMemory>()), memory_(own_memory_.get()),
      faults_(faults), staging_of_(program.ops.size(), 0) {
  index_receives();
}

RankExecution::RankExecution(const RankProgram& program, std::span<float> buffer, RankMemory& memory, Faults faults)
    : program_(program), buffer_(buffer), memory_(&memory), faults_(faults), staging_of_(program.ops.size(), 0) {
  index_receives();
}

void RankExecution::index_receives() {
  constexpr std::uint32_t kNoPeer = ~std::uint32_t(0);
  std::unordered_map<Rank, std::uint32_t> slot_of;
  peer_slot_.assign(program_.ops.size(), kNoPeer);
  for (std::uint32_t op = 0; op < program_.ops.size(); ++op) {
    const RankOp& rank_op = program_.ops[op];
    if (rank_op.role != Role::receive) continue;
    const auto [it, added] = slot_of.try_emplace(rank_op.peer, std::uint32_t(receives_of_peer_.size()));
    if (added) receives_of_peer_.emplace_back();
    peer_slot_[op] = it->second;
    receives_of_peer_[it->second].push_back(op);
  }
}

void RankExecution::start(Transport& transport) {
  waiting_for_ = program_.local_dependencies;
  done_ = 0;
  next_receive_of_peer_.assign(receives_of_peer_.size(), 0);
  waits_turn_.assign(program_.ops.size(), false);
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
  if (rank_op.role == Role::receive) pass_turn(op);
  finish(op);
  issue_ready(transport);
}

// A rank posts its receives from one peer one at a time, in list order. Posted all at once,
// the receives of a pipelined step are all copied inside one progress call of Open MPI (its
// single-copy shared memory: the receiver copies), so a tree's root received every segment
// before it reduced or forwarded one, and a ring's slices did not overlap its reductions:
// the schedule's pipeline never ran. One at a time per peer is also the order the simulation
// gives a pair's messages. It cannot deadlock: the earliest incomplete transfer of the
// schedule has every dependency done, so its send is posted, and it is the earliest
// incomplete receive from its peer, so its receive is too.
bool RankExecution::receive_waits_its_turn(std::uint32_t op) {
  const std::uint32_t peer = peer_slot_[op];
  if (receives_of_peer_[peer][next_receive_of_peer_[peer]] == op) return false;
  waits_turn_[op] = true;
  return true;
}

void RankExecution::pass_turn(std::uint32_t receive) {
  const std::uint32_t peer = peer_slot_[receive];
  const std::vector<std::uint32_t>& queue = receives_of_peer_[peer];
  if (++next_receive_of_peer_[peer] == queue.size()) return;
  const std::uint32_t next = queue[next_receive_of_peer_[peer]];
  if (!waits_turn_[next]) return;  // not ready yet: it is posted when it is
  waits_turn_[next] = false;
  ready_.push(next);
}

void RankExecution::issue_ready(Transport& transport) {
  while (!ready_.empty()) {
    const std::uint32_t op = ready_.top();
    ready_.pop();
    if (program_.ops[op].role == Role::receive && receive_waits_its_turn(op)) continue;
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
