// collectives/algorithms/nvls_tree.cpp — NVLS inside each node, a tree across nodes (NCCL's
// NVLS_TREE), for P = M nodes x G ranks per node (ranks n G .. n G + G - 1 on node n) whose
// NVSwitches reduce. Reducer n (id P + n) is node n's switch.
//
//   1. reduce-scatter through the switch: every GPU of node n reduces part j (of G) into
//      switch n, which hands the sum of part j to GPU j;
//   2. rail j (GPU j of every node) allreduces part j over NCCL's double binary tree of the
//      M nodes (binary_tree.hpp): each half of part j over one of the two trees, reduce up
//      and broadcast down, pipelined, as NCCL's NVLS channels alternate between the trees
//      (src/graph/connect.cc, treeUp[c % 2]); a node interior in one tree is a leaf in the
//      other (even M), so its NIC carries at most 2 N/G each way, where one tree's interior
//      NICs carried 3 N/G;
//   3. multicast: GPU j writes part j into switch n, which copies it to the node's other GPUs.
//
//     node 0                     node 1
//     gpu0 gpu1 .. gpuG-1        gpu0 gpu1 .. gpuG-1      step 1: all -> switch, part j -> gpu j
//        \  |   /                   \  |   /              step 2: rail j's tree (gpu j of each node)
//        switch 0  ...rail j...     switch 1              step 3: gpu j -> switch -> the others
//
// Each part is cut into S segments and every phase runs segment by segment, so segment k+1
// of a phase travels while segment k moves on to the next phase. Only N/G bytes per GPU
// cross each way, as in hierarchical-ring, but in 2 ceil-ish lg M tree hops instead of
// 2(M-1) ring steps, and a node's reduction costs each GPU N + N/G up and N down through the
// switch (nvls.cpp).
#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/algorithms/binary_tree.hpp"
#include "collectives/algorithms/entries.hpp"
#include "collectives/algorithms/nvls_phases.hpp"

namespace collsim::algorithms {
namespace {

// Steps of the idealised pipeline: phase 1 of segment k at k and k + 1, the tree from k + 2
// (binary_tree.hpp's slots), phase 3 after the deepest broadcast of segment k.
constexpr std::uint32_t kTreeStart = 2;

// Rail j's trees: binary_tree.hpp's plan of half t of each segment of the part over trees[t],
// over M positions, position n being rank n G + j. Halves of each segment, not of the part, so
// that tree segment k carries only what the switch handed GPU j in segment k, in step with it
// (a child of height h sends segment k at kTreeStart + k + h, as one plan_tree of k segments).
void plan_rail_trees(const std::array<BinaryTree, 2>& trees, Rank g, Rank j, ByteRange part, std::uint32_t segments,
                     std::uint64_t data_bytes, ChunkTable& table, std::vector<PlannedTransfer>& plan) {
  std::vector<PlannedTransfer> rail;
  for (std::uint32_t k = 0; k < segments; ++k)
    for (int t = 0; t < 2; ++t) {
      const std::size_t first = rail.size();
      plan_tree(trees[t], part_of(part_of(part, segments, k), 2, t), 1, data_bytes, {}, table, rail);
      for (std::size_t i = first; i < rail.size(); ++i) rail[i].step += k;
    }
  for (PlannedTransfer& t : rail) {
    t.src = t.src * g + j;
    t.dst = t.dst * g + j;
    t.step += kTreeStart;
    plan.push_back(t);
  }
}

Schedule nvls_tree(const ScheduleRequest& request) {
  const Rank p = request.ranks, g = request.ranks_per_node;
  if (g == 0) throw Error("nvls-tree needs the number of ranks per node (--ranks-per-node)");
  if (p % g != 0) throw Error(fmt::format("nvls-tree: {} ranks are not a whole number of nodes of {}", p, g));
  const Rank m = p / g;
  const std::uint32_t segments = request.segments;
  const ByteRange data{0, request.bytes};

  ChunkTable table;
  const std::vector<std::vector<ChunkId>> segment = node_part_segments(data, g, segments, table);  // [part][segment]

  const std::array<BinaryTree, 2> trees = double_binary_tree(m);
  const std::uint32_t h = std::max(trees[0].height(), trees[1].height());
  const std::uint32_t multicast_start = kTreeStart + (m > 1 ? 2 * h : 0);
  std::vector<PlannedTransfer> plan;
  for (Rank n = 0; n < m; ++n) plan_node_reduce_scatter(n, g, p, segment, plan);
  for (Rank j = 0; j < g && m > 1; ++j)
    plan_rail_trees(trees, g, j, part_of(data, g, j), segments, request.bytes, table, plan);
  for (Rank n = 0; n < m; ++n) plan_node_multicast(n, g, p, multicast_start, segment, plan);

  ScheduleInfo info = info_for(request, "nvls-tree");
  info.reducers = m;
  // The trees' staging slots, one per child position (each tree's half at its own offset).
  info.scratch_bytes = m > 1 ? 2 * request.bytes : 0;
  ScheduleBuilder builder(info, table.ranges());
  if (p == 1) return std::move(builder).build();
  builder.add_in_step_order(std::move(plan));
  builder.add_phase("intra-node reduce-scatter (switch)", 0, segments + 1);
  if (m > 1) builder.add_phase("inter-node tree", kTreeStart, 2 * h + segments - 1);
  if (g > 1) builder.add_phase("intra-node multicast (switch)", multicast_start, segments + 1);
  return std::move(builder).build();
}

// Per node and segment: G parts reduced by G GPUs and handed to their owner, then written
// back and copied to the G - 1 others; each of the two trees across nodes sends its half's
// segments up to 3 times per rank. The trees' staging slots are cut like the data.
ScheduleSize nvls_tree_size(const ScheduleRequest& r) {
  const double g = std::max<Rank>(r.ranks_per_node, 1);
  return one_pass(r.ranks * r.segments * (2 * g + 10), 3 * cut(r, 2 * g * r.segments));
}

}  // namespace

AlgorithmEntry nvls_tree_entry() {
  return {.name = "nvls-tree",
          .summary = "NVLS reduce-scatter in each node, double binary tree across nodes per rail, NVLS multicast back (NCCL)",
          .collectives = {Collective::allreduce},
          .generate = nvls_tree,
          .size_bound = nvls_tree_size,
          .pipelined = true,
          .needs_ranks_per_node = true,
          .in_network = InNetwork::node_switch};
}

}  // namespace collsim::algorithms
