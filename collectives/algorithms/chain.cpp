// collectives/algorithms/chain.cpp — broadcast or reduce along a chain, pipelined in k
// segments: what NCCL runs for both (its ring algorithm, as a chain from the root around the
// ring). Rank root sends to root+1, which forwards to root+2, ... (broadcast); for reduce the
// chain runs the other way, each rank adding its contribution before it forwards, and root
// receives last. Segment j+1 follows segment j one hop behind, so a collective takes
// P + k - 2 steps of N/k bytes. It is the pipelined tree of binary_tree.hpp on a tree in which
// every rank has one child, so the two share their planning (and their proof).
#include "collectives/algorithms/binary_tree.hpp"
#include "collectives/algorithms/entries.hpp"

namespace collsim::algorithms {
namespace {

// root -> root+1 -> ... -> root+P-1 (mod P): rank root + i has the child root + i + 1.
BinaryTree chain_from(Rank ranks, Rank root) {
  BinaryTree chain;
  chain.parent.assign(ranks, kNoRank);
  chain.children.assign(ranks, {});
  for (Rank i = 1; i < ranks; ++i) {
    chain.parent[i] = i - 1;
    chain.children[i - 1].push_back(i);
  }
  return rotate(chain, root);
}

Schedule chain(const ScheduleRequest& request) {
  const BinaryTree c = chain_from(request.ranks, request.root);
  const bool reduce = request.collective == Collective::reduce;
  const TreePhases phases{reduce, !reduce};

  ChunkTable table;
  std::vector<PlannedTransfer> plan;
  plan_tree(c, {0, request.bytes}, request.segments, request.bytes, phases, table, plan);

  ScheduleInfo info = info_for(request, "chain");
  if (reduce) info.scratch_bytes = 2 * request.bytes;  // plan_tree's staging slots
  ScheduleBuilder builder(info, table.ranges());
  builder.add_in_step_order(std::move(plan));
  const std::uint32_t steps = request.ranks > 1 ? c.height() + request.segments - 1 : 0;
  builder.add_phase(reduce ? "reduce" : "broadcast", 0, steps);
  return std::move(builder).build();
}

// A chain also cuts a staging area (scratch) beside the data.
ScheduleSize chain_size(const ScheduleRequest& r) { return one_pass(2.0 * r.ranks * r.segments, 3 * cut(r, r.segments)); }

std::vector<BinaryTree> chain_trees(const ScheduleInfo& info) { return {chain_from(info.ranks, info.root)}; }

}  // namespace

AlgorithmEntry chain_entry() {
  return {.name = "chain",
          .summary = "broadcast or reduce along a chain from the root, pipelined in segments (NCCL's ring for both)",
          .collectives = {Collective::reduce, Collective::broadcast},
          .generate = chain,
          .size_bound = chain_size,
          .pipelined = true,
          .takes_channels = true,
          .trees = chain_trees};
}

}  // namespace collsim::algorithms
