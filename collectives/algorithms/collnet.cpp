// collectives/algorithms/collnet.cpp — NCCL's CollNet "direct" allreduce on InfiniBand SHARP,
// for P = M nodes x G ranks per node (ranks n G .. n G + G - 1 on node n): the fabric's
// switches reduce across nodes, each node's NVSwitch inside it. Reducer n (id P + n) is node
// n's switch, reducer M (id P + M, ScheduleInfo::fabric_reducer) the fabric's SHARP tree.
//
//   1. reduce-scatter through the node's switch: every GPU of node n reduces part j (of G)
//      into switch n, which hands part j's node sum to GPU j (as nvls-tree);
//   2. rail j (GPU j of every node) reduces part j into the SHARP switch, which multicasts the
//      total back to rail j of every node;
//   3. multicast: GPU j writes part j into switch n, which copies it to the node's other GPUs.
//
//     node 0                 node 1                  step 1: all -> switch n, part j -> gpu j
//     gpu0 .. gpuG-1         gpu0 .. gpuG-1          step 2: gpu j of every node -> SHARP,
//        \     /                \     /                      SHARP -> gpu j of every node
//        switch 0               switch 1             step 3: gpu j -> switch n -> the others
//          gpu j \             / gpu j
//               SHARP switch (the fabric)
//
// Each part is cut into S segments and every phase runs segment by segment, so segment k+1 of
// a phase travels while segment k moves on. A GPU sends N + N/G into its node's switch and N/G
// into the fabric, and receives as much back: one hop across nodes each way, where a ring
// crosses 2(M-1) times. With G = 1 only phase 2 remains (no node switch is used); with M = 1
// phase 2 is left out (nvls-tree's one node). Nodes whose switch does not reduce are not
// covered: NCCL then reduce-scatters with peer copies inside the node (not modelled here).
#include <algorithm>

#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/algorithms/entries.hpp"
#include "collectives/algorithms/nvls_phases.hpp"

namespace collsim::algorithms {
namespace {

// Phase 2 for rail j: every node's GPU j reduces segment k of part j into the SHARP switch at
// step start + k; the switch copies the total to each of them at step start + k + 1.
void plan_rail_sharp(Rank m, Rank g, Rank j, Rank sharp, std::uint32_t start, const std::vector<ChunkId>& segments,
                     std::vector<PlannedTransfer>& plan) {
  for (std::uint32_t k = 0; k < segments.size(); ++k) {
    for (Rank n = 0; n < m; ++n) plan.push_back({start + k, n * g + j, segments[k], sharp, segments[k], Op::reduce});
    for (Rank n = 0; n < m; ++n) plan.push_back({start + k + 1, sharp, segments[k], n * g + j, segments[k], Op::copy});
  }
}

Schedule collnet(const ScheduleRequest& request) {
  const Rank p = request.ranks, g = std::max<Rank>(request.ranks_per_node, 1);
  if (p % g != 0) throw Error(fmt::format("collnet: {} ranks are not a whole number of nodes of {}", p, g));
  const Rank m = p / g;
  const std::uint32_t segments = request.segments;
  ChunkTable table;
  const std::vector<std::vector<ChunkId>> segment = node_part_segments({0, request.bytes}, g, segments, table);

  ScheduleInfo info = info_for(request, "collnet");
  info.ranks_per_node = g;
  info.reducers = m + 1;  // the node switches, then the fabric's (schedule.hpp's layout)
  const bool intra = g > 1, inter = m > 1;
  const std::uint32_t rail_start = intra ? 2 : 0, multicast_start = rail_start + (inter ? 2 : 0);
  std::vector<PlannedTransfer> plan;
  for (Rank n = 0; n < m && intra; ++n) plan_node_reduce_scatter(n, g, p, segment, plan);
  for (Rank j = 0; j < g && inter; ++j) plan_rail_sharp(m, g, j, info.fabric_reducer(), rail_start, segment[j], plan);
  for (Rank n = 0; n < m && intra; ++n) plan_node_multicast(n, g, p, multicast_start, segment, plan);

  ScheduleBuilder builder(info, table.ranges());
  if (p == 1) return std::move(builder).build();
  builder.add_in_step_order(std::move(plan));
  if (intra) builder.add_phase("intra-node reduce-scatter (switch)", 0, segments + 1);
  if (inter) builder.add_phase("inter-node SHARP reduce and multicast", rail_start, segments + 1);
  if (intra) builder.add_phase("intra-node multicast (switch)", multicast_start, segments + 1);
  return std::move(builder).build();
}

// Per rank and segment: G + 1 transfers of the node's reduce-scatter, one up to the SHARP
// switch and one back, G of the multicast (its write and G - 1 copies). Each of the M copies
// back from the SHARP switch depends on all M reductions into it: G S M^2 dependencies, which
// outgrow the transfers across thousands of nodes (2,048 nodes, 64 segments: 2e9).
ScheduleSize collnet_size(const ScheduleRequest& r) {
  const double g = std::max<Rank>(r.ranks_per_node, 1), m = double(r.ranks) / g;
  ScheduleSize size = one_pass(r.ranks * r.segments * (2 * g + 3), cut(r, g * r.segments));
  size.dependencies = g * r.segments * m * m;
  return size;
}

// G = 1 (M nodes of one rank): nvls's pipeline with the SHARP switch for the NVSwitch, on the
// route between nodes: (S + 1)(a + N/S b), a and b of that route standing for a GPU's route to
// the SHARP switch and back. One node (M = 1), one segment: each GPU sends its G parts up
// back to back, gets its own part's sum, writes it back, and receives the G - 1 other parts:
// max(2G, G + 3)(a + N/G b) on the node's link; with G = 2 the second part's write waits for
// its copy, one hop later than the first's (tested against the analytic engine); exact as
// nvls's. Otherwise the phases overlap in ways no short form captures: none.
std::optional<double> collnet_time(Collective, Rank ranks, double n, const CostModel& cost, std::uint32_t segments) {
  const Rank g = std::max<Rank>(cost.ranks_per_node, 1);
  if (ranks % g != 0) return std::nullopt;
  const double s = std::max<std::uint32_t>(segments, 1);
  if (g == 1) {
    const LinkCost& link = cost.inter_node;
    return (s + 1) * (link.alpha_s + n / s * link.beta_s_per_byte);
  }
  if (ranks != g || segments > 1) return std::nullopt;
  const LinkCost& link = cost.intra_node;
  const double hop = link.alpha_s + n / g * link.beta_s_per_byte;
  return std::max(2.0 * g, g + 3.0) * hop;
}

}  // namespace

AlgorithmEntry collnet_entry() {
  return {.name = "collnet",
          .summary = "NVLS reduce-scatter in each node, InfiniBand SHARP across nodes per rail, NVLS multicast back "
                     "(NCCL's CollNet direct)",
          .collectives = {Collective::allreduce},
          .generate = collnet,
          .size_bound = collnet_size,
          .pipelined = true,
          .needs_ranks_per_node = true,
          .closed_form = collnet_time,
          .in_network = InNetwork::fabric};
}

}  // namespace collsim::algorithms
