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
#include "collectives/algorithms/entries.hpp"
#include "collectives/algorithms/nvls_phases.hpp"

namespace collsim::algorithms {
namespace {

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

// P parts cut into S segments: P S elements. Per segment each of the P parts is reduced by
// P GPUs, handed back, written back and copied to the P - 1 others: P (2P + 1) S transfers.
ScheduleSize nvls_size(const ScheduleRequest& r) {
  const double p = r.ranks;
  return one_pass(p * (2 * p + 1) * r.segments, cut(r, p * r.segments));
}

// max(2P, P + 3)(a + N/P b), one segment, in hops of a + N/P b: the switch reduces (no g).
// A GPU's send port carries the P parts it reduces into the switch, so the write-backs start
// after P hops, once the sums are back; the P - 1 multicasts a GPU then receives follow one
// another on its port: 2P hops. The last part's own chain (its sum back, its write-back, its
// multicast after the P hops up) takes P + 3, which is longer on 2 GPUs. a and b are those
// of a GPU's route to the switch and back, taken as the node's GPU-to-GPU link: exact when
// the switch adds no latency and reduces at least at the GPU link's rate. With S > 1 segments
// the two phases interleave on the ports step by step: no closed form, as for tree.
std::optional<double> nvls_time(Collective, Rank ranks, double n, const CostModel& cost, std::uint32_t segments) {
  if (segments > 1) return std::nullopt;
  const LinkCost& link = cost.link(0, ranks - 1);  // inside the node
  const double p = ranks;
  return std::max(2 * p, p + 3) * (link.alpha_s + n / p * link.beta_s_per_byte);
}

}  // namespace

AlgorithmEntry nvls_entry() {
  return {.name = "nvls",
          .summary = "NVLink SHARP inside one node: each part reduced in the NVSwitch, its owner writes the sum back, the "
                     "switch multicasts it (NCCL's NVLS)",
          .collectives = {Collective::allreduce},
          .generate = nvls,
          .size_bound = nvls_size,
          .pipelined = true,
          .closed_form = nvls_time,
          .in_network = InNetwork::node_switch,
          .within_one_node = true};
}

}  // namespace collsim::algorithms
