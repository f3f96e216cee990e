// collectives/algorithms/nvls_phases.hpp — the two phases a node's reducing NVSwitch runs for
// the in-network algorithms (nvls, nvls-tree, collnet), for P = M nodes x G ranks per node
// (ranks n G .. n G + G - 1 on node n), reducer n (id P + n) node n's switch. The buffer is
// cut into G parts, part j into S segments: segment[j][k].
#pragma once

#include <vector>

#include "collectives/schedule_builder.hpp"

namespace collsim::algorithms {

// segment[j][k]: segment k of part j (of g) of `data`, interned in `table`.
std::vector<std::vector<ChunkId>> node_part_segments(ByteRange data, Rank g, std::uint32_t segments, ChunkTable& table);

// Segments a GPU may reduce into its switch ahead of the sums it has got back: NCCL's NVLS
// stages chunks in buffers of a few slots (NCCL_STEPS), so its reduce-scatter cannot run the
// whole buffer ahead of the rest; without this bound the reductions would queue ahead of every
// write-back of the multicast phase on the GPU's way to the switch.
inline constexpr std::uint32_t kSegmentsAhead = 2;

// Reduce-scatter through the switch: every GPU of `node` reduces segment k of part j into
// switch n at step k, which hands the sum to GPU j at step k + 1. From segment kSegmentsAhead
// on, a GPU's reductions follow the sum it got kSegmentsAhead segments before
// (PlannedTransfer::after).
void plan_node_reduce_scatter(Rank node, Rank g, Rank p, const std::vector<std::vector<ChunkId>>& segment,
                              std::vector<PlannedTransfer>& plan);

// Multicast: GPU j writes segment k of part j into switch n at step start + k, which copies it
// to the node's G - 1 other GPUs at step start + k + 1 (nothing when g = 1).
void plan_node_multicast(Rank node, Rank g, Rank p, std::uint32_t start, const std::vector<std::vector<ChunkId>>& segment,
                         std::vector<PlannedTransfer>& plan);

}  // namespace collsim::algorithms
