// collectives/algorithms/ring_phases.hpp — the two phases of a ring, for any set of rings
// running side by side (one flat ring, or one ring per node / per rail in hierarchical-ring).
//
//     position:  0 -> 1 -> 2 -> ... -> n-1 -> 0
//
// A ring of n ranks splits its byte range into n chunks. With shift 0 (the seeds'
// convention, seed 002):
//   reduce-scatter step s: position i sends chunk (i - s) mod n to i+1, which reduces it;
//                          afterwards position i owns the fully reduced chunk (i + 1) mod n.
//   allgather step s:      position i sends chunk (i + 1 - s) mod n to i+1, which copies it.
// shift = n-1 (that is, -1) moves ownership so position i owns chunk i, as MPI's
// reduce-scatter and allgather define it.
#pragma once

#include <cstdint>
#include <vector>

#include "collectives/schedule_builder.hpp"

namespace collsim::algorithms {

// The chunk position i of an n-rank ring sends in reduce-scatter step s, and in allgather
// step s (the rule above; the generated ring and the streamed ring both use these).
inline std::uint64_t reduce_scatter_chunk(std::uint64_t i, std::uint64_t s, std::uint64_t n, std::uint64_t shift) {
  return (i + n - s + shift) % n;
}
inline std::uint64_t allgather_chunk(std::uint64_t i, std::uint64_t s, std::uint64_t n, std::uint64_t shift) {
  return (i + 1 + n - s + shift) % n;
}

struct RingSpec {
  std::vector<Rank> ranks;      // ranks in ring order
  std::vector<ChunkId> chunks;  // chunk i of the ring's byte range
};

// Emits n-1 steps of all rings together, starting at `first_step`; returns the next step.
std::uint32_t ring_reduce_scatter(ScheduleBuilder& builder, const std::vector<RingSpec>& rings,
                                  std::uint32_t shift, std::uint32_t first_step);
std::uint32_t ring_allgather(ScheduleBuilder& builder, const std::vector<RingSpec>& rings,
                             std::uint32_t shift, std::uint32_t first_step);

// Interns the n near-equal chunks of `range`.
std::vector<ChunkId> ring_chunks(ChunkTable& table, ByteRange range, std::size_t n);

}  // namespace collsim::algorithms
