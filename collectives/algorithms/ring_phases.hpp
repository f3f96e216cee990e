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
//
// Pipelining: each chunk is cut into S slices, and a step sends its chunk slice by slice.
// Slice k of step s+1 reads only what slice k of step s delivered, so it may leave while
// slice k+1 of step s is still on the wire and slice k is reduced. Steps are numbered as
// the slots of that pipeline, step s slice k in slot s S + k (for S = 1, the ring's steps).
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

// The chunks of a ring, each as its slices: slices[i][k] is slice k of chunk i.
using RingChunks = std::vector<std::vector<ChunkId>>;

struct RingSpec {
  std::vector<Rank> ranks;  // ranks in ring order
  RingChunks chunks;        // chunk i of the ring's byte range, in S slices
};

// Emits the n-1 steps of all rings together (all rings have the same n and S), slot by slot
// from `first_step`; returns the slot after the last.
std::uint32_t ring_reduce_scatter(ScheduleBuilder& builder, const std::vector<RingSpec>& rings,
                                  std::uint32_t shift, std::uint32_t first_step);
std::uint32_t ring_allgather(ScheduleBuilder& builder, const std::vector<RingSpec>& rings,
                             std::uint32_t shift, std::uint32_t first_step);

// Interns `range` as n near-equal chunks, each cut into `segments` near-equal slices.
RingChunks ring_chunks(ChunkTable& table, ByteRange range, std::size_t n, std::size_t segments);
// Interns `range` cut into `segments` slices first and each slice into n parts; chunk i is
// part i of every slice. A ring that carries on another ring's result slice by slice (a
// rail after its node's ring) cuts this way, so that its slice k lies in the other ring's
// slice k and waits for that slice alone.
RingChunks ring_chunks_by_slice(ChunkTable& table, ByteRange range, std::size_t n, std::size_t segments);

// Slice k of the ring's chunk at `chunk`, in bytes of `range` (the rule of ring_chunks).
inline ByteRange ring_slice(ByteRange range, std::uint64_t n, std::uint64_t segments, std::uint64_t chunk,
                            std::uint64_t k) {
  return part_of(part_of(range, n, chunk), segments, k);
}

}  // namespace collsim::algorithms
