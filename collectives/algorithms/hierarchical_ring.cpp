// collectives/algorithms/hierarchical_ring.cpp — two-level ring allreduce for P = M nodes x
// G ranks per node (ranks n*G .. n*G+G-1 share node n), as Horovod and NCCL do across nodes:
//   1. reduce-scatter around each node's ring: local rank l owns chunk (l+1) mod G of the
//      node's sum (seed convention, ring.hpp);
//   2. allreduce around each rail (the M ranks with the same local rank l), on the chunk l
//      owns, cut into M pieces;
//   3. allgather around each node's ring.
// Only N/G bytes per rank cross the inter-node network, in 2(M-1) steps; seed 000's advice
// (keep a node's GPUs adjacent in the ring) taken to its conclusion. Every ring step is sent
// in S slices (ring.hpp), and slice k of each phase follows slice k of the phase
// before: the rails cut each node slice into their M pieces rather than the node's chunk.
#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/algorithms/entries.hpp"
#include "collectives/algorithms/ring.hpp"
#include "collectives/transfer_stream.hpp"

namespace collsim::algorithms {
namespace {

Schedule hierarchical_ring(const ScheduleRequest& request) {
  const Rank p = request.ranks, g = request.ranks_per_node;
  if (g == 0) throw Error("hierarchical-ring needs the number of ranks per node (--ranks-per-node)");
  if (p % g != 0) throw Error(fmt::format("hierarchical-ring: {} ranks are not a whole number of nodes of {}", p, g));
  const Rank m = p / g;
  const ByteRange data{0, request.bytes};

  ChunkTable table;
  const std::uint32_t segments = request.segments;
  const RingChunks node_chunks = ring_chunks(table, data, g, segments);
  std::vector<RingSpec> nodes(m), rails(g);
  for (Rank n = 0; n < m; ++n) {
    for (Rank l = 0; l < g; ++l) nodes[n].ranks.push_back(n * g + l);
    nodes[n].chunks = node_chunks;
  }
  // Rail slice k lies in node slice k: it leaves as soon as the node ring has reduced that slice.
  for (Rank l = 0; l < g; ++l) {
    for (Rank n = 0; n < m; ++n) rails[l].ranks.push_back(n * g + l);
    rails[l].chunks = ring_chunks_by_slice(table, part_of(data, g, (l + 1) % g), m, segments);
  }

  ScheduleBuilder builder(info_for(request, "hierarchical-ring"), table.ranges());
  // Reserved up front: growing 8 arrays of 67 M transfers (16,384 ranks) by doubling copied
  // them over and over, a fifth of the generation's time and half again its peak memory.
  // Deps: at most two per transfer (the slice it forwards, the read it overwrites).
  const std::size_t node_phase = std::size_t(m) * g * (g - 1) * segments;
  const std::size_t rail_phase = std::size_t(g) * m * (m - 1) * segments;
  builder.reserve(2 * (node_phase + rail_phase), 4 * (node_phase + rail_phase));
  std::uint32_t step = 0, next = 0;
  next = ring_reduce_scatter(builder, nodes, 0, step);
  builder.add_phase("intra-node reduce-scatter", step, next - step);
  step = next;
  next = ring_allgather(builder, rails, 0, ring_reduce_scatter(builder, rails, 0, step));
  builder.add_phase("inter-node allreduce", step, next - step);
  step = next;
  next = ring_allgather(builder, nodes, 0, step);
  builder.add_phase("intra-node allgather", step, next - step);
  return std::move(builder).build();
}

// Each ring sends each of its slices once per step: 2 P (G - 1 + M - 1) S transfers, bounded
// by 2 P (G + M) S; the rails cut the buffer into G chunks x S slices x M pieces.
ScheduleSize hierarchical_ring_size(const ScheduleRequest& r) {
  const double g = std::max<Rank>(r.ranks_per_node, 1);
  return one_pass(2.0 * r.ranks * (g + r.ranks / g) * r.segments, cut(r, double(r.ranks) * r.segments));
}

// Pipelined (S >= 2, G >= 2, M >= 2). One rank's port takes, in order, the node ring's
// reduce-scatter (X1 = (G-1) S slots), the rail's reduce-scatter and allgather (X2 = (M-1) S
// slots each) and the node's allgather (X1), and slice k of each phase waits for slice k of
// the phase before. The longest path either keeps to the ports (every slot a hop) or leaves
// them once to ride the reduction unit over a run of reduce slots and jumps on to the slot S
// later; of all runs, only these five can be the longest (the gains below are linear between
// the phases' edges; docs/algorithms.md). A detour adds its reductions and drops the hops it
// skips.
double pipelined_hierarchical_ring(const RingSlots& node, const RingSlots& rail) {
  const double x1 = node.slots, x2 = rail.slots, s = node.segments;
  const double hop1 = node.hop, red1 = node.reduce, hop2 = rail.hop, red2 = rail.reduce;
  const double ports = 2 * (x1 * hop1 + x2 * hop2);
  const double detours[] = {
      (x1 - s + 1) * red1 - (x1 - 1) * hop1,                          // node reductions to its last step's first slice
      x1 * red1 - (x1 - 1) * hop1 - (s - 1) * hop2,                    // every node reduction
      red1 - (s - 1) * hop2,                                           // the node's last reduction alone
      x1 * red1 + x2 * red2 - (x1 - 1) * hop1 - (x2 + s - 1) * hop2,  // every node and rail reduction
      red1 + x2 * red2 - (x2 + s - 1) * hop2,                          // the node's last, then every rail reduction
  };
  return ports + std::max(0.0, *std::max_element(std::begin(detours), std::end(detours)));
}

// Phases 1 and 3 on each node's ring (intra-node links), phase 2 on each rail (inter-node).
// Unsliced, the three phases one after another: (G-1)(a1 + N/G (b1 + g)), 2(M-1) rail steps
// of N/(G M), (G-1)(a1 + N/G b1).
std::optional<double> hierarchical_ring_time(Collective, Rank ranks, double n, const CostModel& cost,
                                             std::uint32_t segments) {
  const Rank g = cost.ranks_per_node;
  if (g == 0 || ranks % g != 0) return std::nullopt;
  const double m = ranks / g, node_chunk = n / g, rail_chunk = node_chunk / m;
  const LinkCost& in = cost.intra_node;
  const LinkCost& out = cost.inter_node;
  if (segments > 1 && g == 1)  // one rank per node: a flat ring over the rails
    return ring_slots({out.alpha_s, out.beta_s_per_byte, cost.gamma_s_per_byte, n, m}, segments).allreduce();
  if (segments > 1 && m == 1)  // one node: a flat ring inside it
    return ring_slots({in.alpha_s, in.beta_s_per_byte, cost.gamma_s_per_byte, n, double(g)}, segments).allreduce();
  if (segments > 1) {
    const double s = segments, node_slice = node_chunk / s, rail_slice = rail_chunk / s;
    return pipelined_hierarchical_ring({(g - 1) * s, s, in.alpha_s + node_slice * in.beta_s_per_byte, node_slice * cost.gamma_s_per_byte},
                                       {(m - 1) * s, s, out.alpha_s + rail_slice * out.beta_s_per_byte, rail_slice * cost.gamma_s_per_byte});
  }
  const double intra_rs = (g - 1) * (in.alpha_s + node_chunk * (in.beta_s_per_byte + cost.gamma_s_per_byte));
  const double inter_ar = (m - 1) * (2 * out.alpha_s + rail_chunk * (2 * out.beta_s_per_byte + cost.gamma_s_per_byte));
  const double intra_ag = (g - 1) * (in.alpha_s + node_chunk * in.beta_s_per_byte);
  return intra_rs + inter_ar + intra_ag;
}

}  // namespace

AlgorithmEntry hierarchical_ring_entry() {
  return {.name = "hierarchical-ring",
          .summary = "ring inside each node, ring across nodes, ring inside again, each step sent in slices",
          .collectives = {Collective::allreduce},
          .generate = hierarchical_ring,
          .size_bound = hierarchical_ring_size,
          .pipelined = true,
          .segment_rule = ring_segments,
          .needs_ranks_per_node = true,
          .sliced_steps = true,
          .closed_form = hierarchical_ring_time,
          .stream = stream_hierarchical_ring};
}

}  // namespace collsim::algorithms
