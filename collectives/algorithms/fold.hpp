// collectives/algorithms/fold.hpp — making a power of two out of any P (MPICH's scheme for
// recursive doubling and Rabenseifner). With P' the largest power of two <= P and
// rem = P - P', the first 2 rem ranks pair up: each even rank r < 2 rem sends its buffer to
// r+1, which reduces it, and sits out. The P' survivors get ids 0..P'-1:
//   odd r < 2 rem -> r / 2,   r >= 2 rem -> r - rem.
// At the end each odd r < 2 rem copies the result back to r-1.
#pragma once

#include "collectives/schedule_builder.hpp"

namespace collsim::algorithms {

struct Fold {
  explicit Fold(Rank p) : ranks(p), pof2(Rank(1) << floor_log2(p)), rem(p - pof2) {}

  Rank ranks, pof2, rem;

  Rank rank_of(Rank id) const { return id < rem ? 2 * id + 1 : id + rem; }
  bool folded() const { return rem > 0; }

  // One step each; return the next step.
  std::uint32_t fold_in(ScheduleBuilder& b, ChunkId all, std::uint32_t step) const {
    if (!folded()) return step;
    for (Rank r = 0; r < 2 * rem; r += 2) b.send(r, r + 1, all, Op::reduce, step);
    b.add_phase("fold", step, 1);
    return step + 1;
  }
  std::uint32_t fold_out(ScheduleBuilder& b, ChunkId all, std::uint32_t step) const {
    if (!folded()) return step;
    for (Rank r = 0; r < 2 * rem; r += 2) b.send(r + 1, r, all, Op::copy, step);
    b.add_phase("unfold", step, 1);
    return step + 1;
  }
};

}  // namespace collsim::algorithms
