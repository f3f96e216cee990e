// collectives/algorithms/ring.hpp — what of the ring other files build on (hierarchical-ring
// runs rings side by side: one per node, one per rail): its phases, its chunks, its default
// slicing and its closed form's slot model. The rest of the ring is in ring.cpp.
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

#include <algorithm>
#include <cstdint>
#include <vector>

#include "collectives/algorithm.hpp"
#include "collectives/closed_forms.hpp"
#include "collectives/schedule_builder.hpp"

namespace collsim::algorithms {

// The two phases of a ring.
enum class RingPhase : std::uint8_t { reduce_scatter, allgather };

// What one position sends in one step: to which position, which of the ring's chunks, and
// whether the receiver reduces it into its own (reduce-scatter) or copies it (allgather).
struct RingSend {
  std::uint64_t to;
  std::uint64_t chunk;
  Op op;
};

// The ring's step rule (above), the one place it is written: what position i of an n-position
// ring sends in step s of `phase`. The held ring (ring.cpp's generator, and hierarchical-ring's
// node and rail rings) and the streamed ones (stream_ring, stream_hierarchical_ring) all ask it.
inline RingSend ring_send(RingPhase phase, std::uint64_t i, std::uint64_t s, std::uint64_t n, std::uint64_t shift) {
  if (phase == RingPhase::reduce_scatter) return {(i + 1) % n, (i + n - s + shift) % n, Op::reduce};
  return {(i + 1) % n, (i + 1 + n - s + shift) % n, Op::copy};
}

// The chunks of a ring, each as its slices: slices[i][k] is slice k of chunk i.
using RingChunks = std::vector<std::vector<ChunkId>>;

struct RingSpec {
  std::vector<Rank> ranks;  // ranks in ring order
  RingChunks chunks;        // chunk i of the ring's byte range, in S slices
};

// Emits the n-1 steps of one phase of all rings together (all rings have the same n and S),
// slot by slot from `first_step`; returns the slot after the last.
std::uint32_t add_ring_phase(ScheduleBuilder& builder, const std::vector<RingSpec>& rings, RingPhase phase,
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

// The ring's segment rule (its entry's, and hierarchical-ring's): each step's N/P bytes in
// slices of about 1 MiB (ring.cpp says why).
std::uint32_t ring_segments(const ScheduleRequest& r);

// A ring's phases on a uniform model, each step's N/P bytes sent as S slices of m = N/(P S):
// a slice holds a rank's ports for `hop` = a + m b, then the receiver's reduction unit for
// `reduce` = m g; each phase has n-1 steps, so `slots` = (P-1) S slices pass each port.
// The time is the longest path through the schedule (docs/algorithms.md derives it):
//   S = 1: each step waits for the reduction before it (Thakur et al.).
//   S >= 2: either the ports never idle (every slot a hop), or the path rides the reduction
//   unit from the first slice to the last and jumps on to the allgather: whichever is longer.
struct RingSlots {
  double slots, segments, hop, reduce;

  double reduce_scatter() const {
    if (segments == 1) return slots * (hop + reduce);
    return slots * std::max(hop, reduce) + std::min(hop, reduce);
  }
  double allgather() const { return slots * hop; }
  double allreduce() const {
    if (segments == 1) return slots * (2 * hop + reduce);
    // Reduction-bound: the first hop, every reduction, one hop into the allgather (its first
    // step rides the last reduce-scatter step), then its other (P-2) S slots.
    return std::max(2 * slots * hop, 2 * hop + slots * reduce + (slots - segments) * hop);
  }
};

inline RingSlots ring_slots(const closed_forms::Terms& t, std::uint32_t segments) {
  const double s = std::max<std::uint32_t>(segments, 1), slice = t.n / (t.p * s);
  return {(t.p - 1) * s, s, t.a + slice * t.b, slice * t.g};
}

}  // namespace collsim::algorithms
