// collectives/algorithms/nvls_phases.cpp — a node's NVSwitch reduce-scatter and multicast
// (nvls_phases.hpp), shared by nvls-tree and collnet.
#include "collectives/algorithms/nvls_phases.hpp"

namespace collsim::algorithms {

std::vector<std::vector<ChunkId>> node_part_segments(ByteRange data, Rank g, std::uint32_t segments, ChunkTable& table) {
  std::vector<std::vector<ChunkId>> segment(g, std::vector<ChunkId>(segments));
  for (Rank j = 0; j < g; ++j)
    for (std::uint32_t k = 0; k < segments; ++k) segment[j][k] = table.intern(part_of(part_of(data, g, j), segments, k));
  return segment;
}

void plan_node_reduce_scatter(Rank node, Rank g, Rank p, const std::vector<std::vector<ChunkId>>& segment,
                              std::vector<PlannedTransfer>& plan) {
  const Rank first = node * g, node_switch = p + node;
  const std::uint32_t segments = std::uint32_t(segment.front().size());
  std::vector<std::uint32_t> sum_back(std::size_t(g) * segments);  // plan index of part j's sum of segment k
  for (std::uint32_t k = 0; k < segments; ++k)
    for (Rank j = 0; j < g; ++j) {
      for (Rank l = 0; l < g; ++l) {
        PlannedTransfer up{k, first + l, segment[j][k], node_switch, segment[j][k], Op::reduce};
        if (k >= kSegmentsAhead) up.after = sum_back[l * segments + k - kSegmentsAhead];
        plan.push_back(up);
      }
      sum_back[j * segments + k] = std::uint32_t(plan.size());
      plan.push_back({k + 1, node_switch, segment[j][k], first + j, segment[j][k], Op::copy});
    }
}

void plan_node_multicast(Rank node, Rank g, Rank p, std::uint32_t start, const std::vector<std::vector<ChunkId>>& segment,
                         std::vector<PlannedTransfer>& plan) {
  if (g == 1) return;  // the rank already holds the sum
  const Rank first = node * g, node_switch = p + node;
  for (std::uint32_t k = 0; k < segment.front().size(); ++k)
    for (Rank j = 0; j < g; ++j) {
      plan.push_back({start + k, first + j, segment[j][k], node_switch, segment[j][k], Op::copy});
      for (Rank l = 0; l < g; ++l)
        if (l != j) plan.push_back({start + k + 1, node_switch, segment[j][k], first + l, segment[j][k], Op::copy});
    }
}

}  // namespace collsim::algorithms
