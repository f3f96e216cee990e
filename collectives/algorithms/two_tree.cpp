// collectives/algorithms/two_tree.cpp — double binary tree allreduce (Sanders, Speck &
// Träff 2009; NCCL 2.4). Two complementary binary trees (binary_tree.hpp) each reduce and
// broadcast half of the buffer, pipelined in k segments per half. A rank interior in one
// tree is a leaf in the other (for even P), so every rank both sends and receives in
// every pipeline stage, where a single tree leaves its leaves idle half the time.
#include "collectives/algorithms/binary_tree.hpp"
#include "collectives/algorithms/entries.hpp"

namespace collsim::algorithms {
namespace {

Schedule two_tree(const ScheduleRequest& request) {
  const auto trees = double_binary_tree(request.ranks);
  const ByteRange data{0, request.bytes};

  ChunkTable table;
  std::vector<PlannedTransfer> plan;
  for (int t = 0; t < 2; ++t)
    plan_tree(trees[t], part_of(data, 2, t), request.segments, request.bytes, {}, table, plan);

  ScheduleInfo info = info_for(request, "two-tree");
  info.scratch_bytes = 2 * request.bytes;
  ScheduleBuilder builder(info, table.ranges());
  builder.add_in_step_order(std::move(plan));  // interleaves the two trees step by step
  const std::uint32_t h = std::max(trees[0].height(), trees[1].height()), k = request.segments;
  if (request.ranks > 1) {
    builder.add_phase("reduce", 0, h + k - 1);
    builder.add_phase("broadcast", h, h + k - 1);
  }
  return std::move(builder).build();
}

// Two trees of half the data each, each cutting a staging area (scratch) beside the data.
ScheduleSize two_tree_size(const ScheduleRequest& r) {
  return one_pass(6.0 * r.ranks * r.segments, 3 * cut(r, 2.0 * r.segments));
}

std::vector<BinaryTree> two_tree_trees(const ScheduleInfo& info) {
  const auto both = double_binary_tree(info.ranks);
  return {both[0], both[1]};
}

}  // namespace

AlgorithmEntry two_tree_entry() {
  return {.name = "two-tree",
          .summary = "double binary tree: two complementary trees carry half the data each (NCCL)",
          .collectives = {Collective::allreduce},
          .generate = two_tree,
          .size_bound = two_tree_size,
          .pipelined = true,
          .takes_channels = true,
          .trees = two_tree_trees};
}

}  // namespace collsim::algorithms
