// collectives/algorithms/hierarchical_ring.cpp — two-level ring allreduce for P = M nodes x
// G ranks per node (ranks n*G .. n*G+G-1 share node n), as Horovod and NCCL do across nodes:
//   1. reduce-scatter around each node's ring: local rank l owns chunk (l+1) mod G of the
//      node's sum (seed convention, ring_phases.hpp);
//   2. allreduce around each rail (the M ranks with the same local rank l), on the chunk l
//      owns, cut into M pieces;
//   3. allgather around each node's ring.
// Only N/G bytes per rank cross the inter-node network, in 2(M-1) steps; seed 000's advice
// (keep a node's GPUs adjacent in the ring) taken to its conclusion. Every ring step is sent
// in S slices (ring_phases.hpp), and slice k of each phase follows slice k of the phase
// before: the rails cut each node slice into their M pieces rather than the node's chunk.
#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/algorithms/generators.hpp"
#include "collectives/algorithms/ring_phases.hpp"

namespace collsim::algorithms {

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

}  // namespace collsim::algorithms
