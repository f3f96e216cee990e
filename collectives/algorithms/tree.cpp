// collectives/algorithms/tree.cpp — binary-tree reduce and/or broadcast (NCCL's tree 1,
// drawn in binary_tree.hpp), pipelined in k segments: while segment j climbs the tree,
// segment j+1 follows one level behind. Root = the request's root (the tree is rotated).
// Allreduce takes 2H + k - 1 steps of N/k bytes, H the tree height (1 + floor(lg(P-1))).
#include "collectives/algorithms/binary_tree.hpp"
#include "collectives/algorithms/entries.hpp"

namespace collsim::algorithms {
namespace {

Schedule tree(const ScheduleRequest& request) {
  const BinaryTree t = rotate(nccl_binary_tree(request.ranks), request.root);
  const TreePhases phases{request.collective != Collective::broadcast, request.collective != Collective::reduce};

  ChunkTable table;
  std::vector<PlannedTransfer> plan;
  plan_tree(t, {0, request.bytes}, request.segments, request.bytes, phases, table, plan);

  ScheduleInfo info = info_for(request, "tree");
  if (phases.reduce) info.scratch_bytes = 2 * request.bytes;  // one staging slot per child
  ScheduleBuilder builder(info, table.ranges());
  builder.add_in_step_order(std::move(plan));
  const std::uint32_t h = t.height(), k = request.segments;
  if (phases.reduce) builder.add_phase("reduce", 0, request.ranks > 1 ? h + k - 1 : 0);
  if (phases.broadcast) builder.add_phase("broadcast", phases.reduce ? h : 0, request.ranks > 1 ? h + k - 1 : 0);
  return std::move(builder).build();
}

// Trees also cut a staging area (scratch) beside the data.
ScheduleSize tree_size(const ScheduleRequest& r) { return one_pass(3.0 * r.ranks * r.segments, 3 * cut(r, r.segments)); }

std::vector<BinaryTree> tree_trees(const ScheduleInfo& info) { return {rotate(nccl_binary_tree(info.ranks), info.root)}; }

}  // namespace

AlgorithmEntry tree_entry() {
  return {.name = "tree",
          .summary = "binary tree (NCCL's) reduce then broadcast, pipelined in segments",
          .collectives = {Collective::allreduce, Collective::reduce, Collective::broadcast},
          .generate = tree,
          .size_bound = tree_size,
          .pipelined = true,
          .takes_channels = true,
          .trees = tree_trees};
}

}  // namespace collsim::algorithms
