// collectives/algorithms/nccl_tree.cpp — NCCL's tree allreduce: a chain through the GPUs of
// each node and a double binary tree across the nodes (NCCL's src/graph/trees.cc builds the
// trees over node indices, src/graph/connect.cc chains each node's GPUs and hangs the chain
// off them: the chain's first GPU talks to the parent node and the child nodes, with all of
// the node's network traffic on that GPU, NCCL's "tree" pattern). Two trees, the node tree
// and its mirror (even node counts) or shift (odd), each reduce and broadcast half of the
// buffer, pipelined in k segments per half, as two-tree does over single ranks.
//
// M = 4 nodes of G = 2 GPUs (ranks 2n, 2n+1 on node n); tree 1 over the nodes is 0 - 2 - {1, 3}:
//
//     0                 node 0's head, the root
//     ├── 1             node 0's chain
//     └── 4             node 2's head
//         ├── 2         node 1's head
//         │   └── 3
//         ├── 5         node 2's chain
//         └── 6         node 3's head
//             └── 7
//
// A head has up to three children (its chain's next GPU and two child nodes' heads), each
// staging into its own scratch slot. Without nodes (ranks_per_node 0) every rank is its own
// node and this is two-tree.
#include <algorithm>
#include <array>

#include "collectives/algorithms/binary_tree.hpp"
#include "collectives/algorithms/entries.hpp"

namespace collsim::algorithms {
namespace {

Rank gpus_per_node(Rank ranks, std::uint32_t ranks_per_node) {
  return ranks_per_node == 0 ? 1 : std::min<Rank>(ranks_per_node, std::max<Rank>(ranks, 1));
}

// The tree over ranks: node n's ranks n G .. n G + G - 1 (fewer on a last, partial node) in a
// chain from the first, whose parent is the first rank of n's parent in `nodes`.
BinaryTree chained(const BinaryTree& nodes, Rank ranks, Rank g) {
  std::vector<Rank> parent(ranks, kNoRank);
  for (Rank r = 0; r < ranks; ++r) {
    const Rank node = r / g;
    if (r % g != 0) parent[r] = r - 1;
    else if (nodes.parent[node] != kNoRank) parent[r] = nodes.parent[node] * g;
  }
  return from_parents(nodes.root * g, std::move(parent));
}

std::array<BinaryTree, 2> nccl_trees(Rank ranks, std::uint32_t ranks_per_node) {
  if (ranks == 0) return {};
  const Rank g = gpus_per_node(ranks, ranks_per_node), nodes = (ranks + g - 1) / g;
  const auto across = double_binary_tree(nodes);
  return {chained(across[0], ranks, g), chained(across[1], ranks, g)};
}

std::size_t most_children(const std::array<BinaryTree, 2>& trees) {
  std::size_t most = 0;
  for (const BinaryTree& t : trees)
    for (const auto& kids : t.children) most = std::max(most, kids.size());
  return most;
}

Schedule nccl_tree(const ScheduleRequest& request) {
  const auto trees = nccl_trees(request.ranks, request.ranks_per_node);
  const ByteRange data{0, request.bytes};

  ChunkTable table;
  std::vector<PlannedTransfer> plan;
  for (int t = 0; t < 2; ++t)
    plan_tree(trees[t], part_of(data, 2, t), request.segments, request.bytes, {}, table, plan);

  ScheduleInfo info = info_for(request, "nccl-tree");
  // One staging slot per child; always three, so every channel's instance has the same.
  info.scratch_bytes = 3 * request.bytes;
  ScheduleBuilder builder(info, table.ranges());
  builder.add_in_step_order(std::move(plan));
  const std::uint32_t h = std::max(trees[0].height(), trees[1].height()), k = request.segments;
  if (request.ranks > 1) {
    builder.add_phase("reduce", 0, h + k - 1);
    builder.add_phase("broadcast", h, h + k - 1);
  }
  return std::move(builder).build();
}

// As two-tree: every edge carries each segment up (a copy and a reduction) and down.
ScheduleSize nccl_tree_size(const ScheduleRequest& r) {
  return one_pass(6.0 * r.ranks * r.segments, 4 * cut(r, 2.0 * r.segments));
}

std::vector<BinaryTree> nccl_tree_trees(const ScheduleInfo& info) {
  const auto both = nccl_trees(info.ranks, info.ranks_per_node);
  return {both[0], both[1]};
}

}  // namespace

AlgorithmEntry nccl_tree_entry() {
  return {.name = "nccl-tree",
          .summary = "NCCL's tree: a chain through each node's GPUs, a double binary tree across the nodes",
          .collectives = {Collective::allreduce},
          .generate = nccl_tree,
          .size_bound = nccl_tree_size,
          .pipelined = true,
          .takes_channels = true,
          .trees = nccl_tree_trees};
}

}  // namespace collsim::algorithms
