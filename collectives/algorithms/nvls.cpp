// collectives/algorithms/nvls.cpp — NVLink SHARP allreduce inside one NVSwitch node, the
// data path NCCL's NVLS runs there (src/device/all_reduce.h, NVLS, one node): GPU j owns
// part j of G, and
//   1. reduce-scatter through the switch: every GPU reduces part j into the switch, which
//      hands the sum to GPU j (NCCL: GPU j's multimem.ld_reduce reads part j from all G);
//   2. multicast: GPU j writes the sum into the switch, which copies it to the other GPUs
//      (NCCL: multimem.st).
//
//     gpu0   gpu1  ...  gpuG-1        step k, k+1:    all -> switch, part j's sum -> gpu j
//        \    |         /             step k+2, k+3:  gpu j -> switch -> the G - 1 others
//         switch 0 (id P)
//
// So each GPU sends N + N/G bytes and receives N, where a ring sends and receives
// 2(G-1)/G N each: the switch, not the GPUs, does the reductions. The buffer's parts are cut
// into S segments that pipeline (nvls_phases.hpp, shared with nvls-tree and collnet); the
// switch is reducer 0 (id P: collectives/schedule.hpp, the switch accumulates the reductions
// into it in any order and its copies wait for all of them).
#include "collectives/algorithms/generators.hpp"
#include "collectives/algorithms/nvls_phases.hpp"

namespace collsim::algorithms {

// The multicast of segment k starts two steps after its reduce-scatter (nvls_phases.hpp).
constexpr std::uint32_t kMulticastStart = 2;

Schedule nvls(const ScheduleRequest& request) {
  const Rank p = request.ranks;
  const std::uint32_t segments = request.segments;
  ChunkTable table;
  const std::vector<std::vector<ChunkId>> segment = node_part_segments({0, request.bytes}, p, segments, table);
  std::vector<PlannedTransfer> plan;
  plan_node_reduce_scatter(0, p, p, segment, plan);
  plan_node_multicast(0, p, p, kMulticastStart, segment, plan);

  ScheduleInfo info = info_for(request, "nvls");
  info.reducers = 1;
  ScheduleBuilder builder(info, table.ranges());
  if (p == 1) return std::move(builder).build();  // one rank already holds the sum
  builder.add_in_step_order(std::move(plan));
  builder.add_phase("reduce-scatter through the switch", 0, segments + 1);
  builder.add_phase("multicast", kMulticastStart, segments + 1);
  return std::move(builder).build();
}

}  // namespace collsim::algorithms
