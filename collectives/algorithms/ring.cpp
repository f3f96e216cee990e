// collectives/algorithms/ring.cpp — ring allreduce, reduce-scatter and allgather
// (Patarasuk & Yuan 2009; seeds 000, 002, 003). Bandwidth-optimal: each rank sends
// 2(P-1)/P N bytes for allreduce, in 2(P-1) steps of N/P bytes, each step's message sent
// as S slices so that slice k+1 travels while slice k is reduced (ring.hpp).
#include "collectives/algorithms/ring.hpp"

#include "collectives/algorithms/entries.hpp"
#include "collectives/transfer_stream.hpp"

namespace collsim::algorithms {
namespace {

std::uint32_t ring_steps(const std::vector<RingSpec>& rings) {
  return rings.empty() || rings[0].ranks.size() < 2 ? 0 : std::uint32_t(rings[0].ranks.size() - 1);
}

std::uint32_t slices_of(const std::vector<RingSpec>& rings) {
  return rings.empty() || rings[0].chunks.empty() ? 1 : std::uint32_t(rings[0].chunks[0].size());
}

// One phase of n-1 steps: in step s, position i sends the chunk `chunk_of(i, s, n)`, slice
// by slice, to position i+1. Slot by slot, so that each rank issues step s's slices in order.
template <class ChunkOf>
std::uint32_t ring_phase(ScheduleBuilder& builder, const std::vector<RingSpec>& rings, Op op,
                         std::uint32_t first_step, ChunkOf chunk_of) {
  const std::uint32_t steps = ring_steps(rings), segments = slices_of(rings);
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

// Each of the P chunks is cut into S slices, and each slice is sent once per step.
ScheduleSize ring_size(const ScheduleRequest& r) {
  return one_pass(2.0 * r.ranks * (r.ranks - 1.0) * r.segments, cut(r, double(r.ranks) * r.segments));
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

// Rings slice each step's message, N/P bytes (hierarchical-ring's rail steps carry N/P too,
// its node steps N/G, cut as many times), into slices of about 1 MiB: the size of a tree's
// segments, a tree edge carrying the whole buffer. Cutting the whole buffer instead would
// send a 64 MiB ring on 64 ranks as 16 KiB slices, paying an alpha per 16 KiB; by the step
// message, a ring stays unsliced while its steps are 1 MiB or less (a 4K allreduce, any
// ring of 16,384 ranks below 16 GiB), where a step's reduction is short anyway.
std::uint32_t ring_segments(const ScheduleRequest& r) { return default_segments(r.bytes / std::max<Rank>(r.ranks, 1)); }

AlgorithmEntry ring_entry() {
  return {.name = "ring",
          .summary = "reduce-scatter then allgather around a ring, 2(P-1) steps, each sent in slices (seeds 000, 002)",
          .collectives = {Collective::allreduce, Collective::reduce_scatter, Collective::allgather},
          .generate = ring,
          .size_bound = ring_size,
          .pipelined = true,
          .segment_rule = ring_segments,
          .sliced_steps = true,
          .takes_channels = true,
          .closed_form = closed_forms::ring,
          .stream = stream_ring};
}

}  // namespace collsim::algorithms

namespace collsim::closed_forms {

// 2(P-1) a + 2(P-1)/P N b + (P-1)/P N g unsliced (Thakur et al.); sliced, the longest path
// through the pipeline (RingSlots, ring.hpp).
std::optional<double> ring(Collective c, Rank ranks, double n, const CostModel& cost, std::uint32_t segments) {
  const auto t = uniform(cost, ranks, n);
  if (!t) return std::nullopt;
  const algorithms::RingSlots ring = algorithms::ring_slots(*t, segments);
  if (c == Collective::reduce_scatter) return ring.reduce_scatter();
  if (c == Collective::allgather) return ring.allgather();
  return ring.allreduce();
}

}  // namespace collsim::closed_forms
