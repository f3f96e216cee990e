// collectives/algorithms/recursive_doubling.cpp — recursive-doubling allreduce (Thakur,
// Rabenseifner & Gropp 2005). In step k every rank exchanges its whole buffer with the rank
// at distance 2^k and reduces: lg P steps of N bytes each. For P = 8:
//   step 0: 0<->1 2<->3 4<->5 6<->7   step 1: 0<->2 1<->3 ...   step 2: 0<->4 1<->5 ...
// Both directions of an exchange read the buffer the other writes, so each side receives
// into staging (scratch) and then reduces it locally, as MPICH does with its tmp_buf.
// Non-powers of two fold first (fold.hpp).
#include "collectives/algorithms/entries.hpp"
#include "collectives/algorithms/fold.hpp"
#include "collectives/closed_forms.hpp"

namespace collsim::algorithms {
namespace {

Schedule recursive_doubling(const ScheduleRequest& request) {
  const Fold fold(request.ranks);
  ChunkTable table;
  const ChunkId all = table.intern({0, request.bytes});
  const ChunkId staged = table.intern({request.bytes, request.bytes});

  ScheduleInfo info = info_for(request, "recursive-doubling");
  info.scratch_bytes = request.bytes;
  ScheduleBuilder builder(info, table.ranges());

  std::uint32_t step = fold.fold_in(builder, all, 0);
  const std::uint32_t first = step;
  for (Rank distance = 1; distance < fold.pof2; distance <<= 1, ++step) {
    for (Rank id = 0; id < fold.pof2; ++id)
      builder.add(fold.rank_of(id), all, fold.rank_of(id ^ distance), staged, Op::copy, step);
    for (Rank id = 0; id < fold.pof2; ++id)
      builder.add(fold.rank_of(id), staged, fold.rank_of(id), all, Op::reduce, step);
  }
  builder.add_phase("exchange", first, step - first);
  fold.fold_out(builder, all, step);
  return std::move(builder).build();
}

// Recursive doubling also cuts a staging area (scratch) beside the data.
ScheduleSize recursive_doubling_size(const ScheduleRequest& r) {
  return one_pass(2.0 * r.ranks * (ceil_log2(r.ranks) + 2), 2);
}

// lg P (a + N b + N g), and the fold's two steps where P is not a power of two.
std::optional<double> recursive_doubling_time(Collective, Rank ranks, double n, const CostModel& cost, std::uint32_t) {
  const auto t = closed_forms::uniform(cost, ranks, n);
  if (!t) return std::nullopt;
  return floor_log2(ranks) * (t->a + t->n * (t->b + t->g)) + closed_forms::fold(*t, ranks);
}

}  // namespace

AlgorithmEntry recursive_doubling_entry() {
  return {.name = "recursive-doubling",
          .summary = "pairwise exchange of the whole buffer at distance 1, 2, 4, ...",
          .collectives = {Collective::allreduce},
          .generate = recursive_doubling,
          .size_bound = recursive_doubling_size,
          .closed_form = recursive_doubling_time};
}

}  // namespace collsim::algorithms
