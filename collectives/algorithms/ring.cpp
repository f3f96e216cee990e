// collectives/algorithms/ring.cpp — ring allreduce, reduce-scatter and allgather
// (Patarasuk & Yuan 2009; seeds 000, 002, 003). Bandwidth-optimal: each rank sends
// 2(P-1)/P N bytes for allreduce, in 2(P-1) steps of N/P bytes.
#include "collectives/algorithms/generators.hpp"
#include "collectives/algorithms/ring_phases.hpp"

namespace collsim::algorithms {
namespace {

std::uint32_t ring_steps(const std::vector<RingSpec>& rings) {
  return rings.empty() || rings[0].ranks.size() < 2 ? 0 : std::uint32_t(rings[0].ranks.size() - 1);
}

}  // namespace

std::vector<ChunkId> ring_chunks(ChunkTable& table, ByteRange range, std::size_t n) {
  std::vector<ChunkId> ids;
  ids.reserve(n);
  for (std::size_t i = 0; i < n; ++i) ids.push_back(table.intern(part_of(range, n, i)));
  return ids;
}

std::uint32_t ring_reduce_scatter(ScheduleBuilder& builder, const std::vector<RingSpec>& rings,
                                  std::uint32_t shift, std::uint32_t first_step) {
  const std::uint32_t steps = ring_steps(rings);
  for (std::uint32_t s = 0; s < steps; ++s)
    for (const RingSpec& ring : rings) {
      const std::size_t n = ring.ranks.size();
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t chunk = reduce_scatter_chunk(i, s, n, shift);
        builder.send(ring.ranks[i], ring.ranks[(i + 1) % n], ring.chunks[chunk], Op::reduce, first_step + s);
      }
    }
  return first_step + steps;
}

std::uint32_t ring_allgather(ScheduleBuilder& builder, const std::vector<RingSpec>& rings,
                             std::uint32_t shift, std::uint32_t first_step) {
  const std::uint32_t steps = ring_steps(rings);
  for (std::uint32_t s = 0; s < steps; ++s)
    for (const RingSpec& ring : rings) {
      const std::size_t n = ring.ranks.size();
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t chunk = allgather_chunk(i, s, n, shift);
        builder.send(ring.ranks[i], ring.ranks[(i + 1) % n], ring.chunks[chunk], Op::copy, first_step + s);
      }
    }
  return first_step + steps;
}

Schedule ring(const ScheduleRequest& request) {
  const Rank p = request.ranks;
  ChunkTable table;
  RingSpec flat;
  for (Rank r = 0; r < p; ++r) flat.ranks.push_back(r);
  flat.chunks = ring_chunks(table, {0, request.bytes}, p);

  ScheduleBuilder builder(info_for(request, "ring"), table.ranges());
  const bool reduce_scatter = request.collective != Collective::allgather;
  const bool allgather = request.collective != Collective::reduce_scatter;
  const std::size_t per_phase = std::size_t(p) * (p - 1);
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
