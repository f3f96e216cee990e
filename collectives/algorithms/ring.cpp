// collectives/algorithms/ring.cpp — ring allreduce, reduce-scatter and allgather
// (Patarasuk & Yuan 2009; seeds 000, 002, 003). Bandwidth-optimal: each rank sends
// 2(P-1)/P N bytes for allreduce, in 2(P-1) steps of N/P bytes, each step's message sent
// as S slices so that slice k+1 travels while slice k is reduced (ring_phases.hpp).
#include "collectives/algorithms/generators.hpp"
#include "collectives/algorithms/ring_phases.hpp"

namespace collsim::algorithms {
namespace {

std::uint32_t ring_steps(const std::vector<RingSpec>& rings) {
  return rings.empty() || rings[0].ranks.size() < 2 ? 0 : std::uint32_t(rings[0].ranks.size() - 1);
}

std::uint32_t ring_segments(const std::vector<RingSpec>& rings) {
  return rings.empty() || rings[0].chunks.empty() ? 1 : std::uint32_t(rings[0].chunks[0].size());
}

// One phase of n-1 steps: in step s, position i sends the chunk `chunk_of(i, s, n)`, slice
// by slice, to position i+1. Slot by slot, so that each rank issues step s's slices in order.
template <class ChunkOf>
std::uint32_t ring_phase(ScheduleBuilder& builder, const std::vector<RingSpec>& rings, Op op,
                         std::uint32_t first_step, ChunkOf chunk_of) {
  const std::uint32_t steps = ring_steps(rings), segments = ring_segments(rings);
  for (std::uint32_t s = 0; s < steps; ++s)
    for (std::uint32_t k = 0; k < segments; ++k)
      for (const RingSpec& ring : rings) {
        const std::size_t n = ring.ranks.size();
        for (std::size_t i = 0; i < n; ++i)
          builder.send(ring.ranks[i], ring.ranks[(i + 1) % n], ring.chunks[chunk_of(i, s, n)][k], op,
                       first_step + s * segments + k);
      }
  return first_step + steps * segments;
}

}  // namespace

RingChunks ring_chunks(ChunkTable& table, ByteRange range, std::size_t n, std::size_t segments) {
  RingChunks chunks(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < segments; ++k) chunks[i].push_back(table.intern(ring_slice(range, n, segments, i, k)));
  return chunks;
}

RingChunks ring_chunks_by_slice(ChunkTable& table, ByteRange range, std::size_t n, std::size_t segments) {
  RingChunks chunks(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < segments; ++k) chunks[i].push_back(table.intern(part_of(part_of(range, segments, k), n, i)));
  return chunks;
}

std::uint32_t ring_reduce_scatter(ScheduleBuilder& builder, const std::vector<RingSpec>& rings,
                                  std::uint32_t shift, std::uint32_t first_step) {
  return ring_phase(builder, rings, Op::reduce, first_step,
                    [shift](std::size_t i, std::uint32_t s, std::size_t n) { return reduce_scatter_chunk(i, s, n, shift); });
}

std::uint32_t ring_allgather(ScheduleBuilder& builder, const std::vector<RingSpec>& rings,
                             std::uint32_t shift, std::uint32_t first_step) {
  return ring_phase(builder, rings, Op::copy, first_step,
                    [shift](std::size_t i, std::uint32_t s, std::size_t n) { return allgather_chunk(i, s, n, shift); });
}

Schedule ring(const ScheduleRequest& request) {
  const Rank p = request.ranks;
  ChunkTable table;
  RingSpec flat;
  for (Rank r = 0; r < p; ++r) flat.ranks.push_back(r);
  flat.chunks = ring_chunks(table, {0, request.bytes}, p, request.segments);

  ScheduleBuilder builder(info_for(request, "ring"), table.ranges());
  const bool reduce_scatter = request.collective != Collective::allgather;
  const bool allgather = request.collective != Collective::reduce_scatter;
  const std::size_t per_phase = std::size_t(p) * (p - 1) * request.segments;
  // Deps: one per reduce-scatter transfer after the first step, two per allgather transfer.
  builder.reserve(per_phase * (reduce_scatter + allgather), per_phase * (reduce_scatter + 2 * allgather));

  // Allreduce keeps the seeds' chunk convention; standalone collectives use MPI's (rank r owns block r).
  const std::uint32_t shift = request.collective == Collective::allreduce ? 0 : p - 1;
  const std::vector<RingSpec> rings{flat};
  std::uint32_t step = 0;
  if (reduce_scatter) {
    const std::uint32_t next = ring_reduce_scatter(builder, rings, shift, step);
    builder.add_phase("reduce-scatter", step, next - step);
    step = next;
  }
  if (allgather) {
    const std::uint32_t next = ring_allgather(builder, rings, shift, step);
    builder.add_phase("allgather", step, next - step);
  }
  return std::move(builder).build();
}

}  // namespace collsim::algorithms
