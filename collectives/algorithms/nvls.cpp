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
// into S segments that pipeline. It is nvls-tree (nvls_tree.cpp) on a single node; the
// switch is reducer 0 (id P: collectives/schedule.hpp, the switch accumulates the reductions
// into it in any order and its copies wait for all of them).
#include "collectives/algorithms/generators.hpp"

namespace collsim::algorithms {

Schedule nvls(const ScheduleRequest& request) { return through_node_switches(request, request.ranks, "nvls"); }

}  // namespace collsim::algorithms
