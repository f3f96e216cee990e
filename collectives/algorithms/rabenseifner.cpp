// collectives/algorithms/rabenseifner.cpp — Rabenseifner's allreduce (Rabenseifner 2004;
// Thakur, Rabenseifner & Gropp 2005): a recursive-halving reduce-scatter followed by a
// recursive-doubling allgather, over the P' = 2^floor(lg P) ranks left after folding.
// The buffer is cut into P' blocks. At halving step k (partner = id ^ (P' >> (k+1))) each
// rank keeps the half of its current blocks on its side of the partner and sends the other
// half, which the partner reduces; after lg P' steps id i owns block i fully reduced. The
// allgather retraces the steps backwards, copying instead of reducing. For P' = 4:
//   halving  step 0: 0<->2 1<->3 (blocks 0-1 | 2-3)   step 1: 0<->1 2<->3 (block i to id i)
//   doubling step 0: 0<->1 2<->3                       step 1: 0<->2 1<->3
// Bytes sent per rank: 2 (P'-1)/P' N, in 2 lg P' steps.
#include "collectives/algorithms/entries.hpp"
#include "collectives/algorithms/fold.hpp"
#include "collectives/closed_forms.hpp"

namespace collsim::algorithms {
namespace {

// The blocks id keeps after halving step k: an aligned run of P' >> (k+1) blocks.
std::pair<Rank, Rank> kept_blocks(Rank pof2, std::uint32_t k, Rank id) {
  const Rank width = pof2 >> (k + 1);
  const Rank first = id & ~(width - 1);
  return {first, first + width};
}

Schedule rabenseifner(const ScheduleRequest& request) {
  const Fold fold(request.ranks);
  const Rank pof2 = fold.pof2;
  const std::uint32_t levels = floor_log2(pof2);
  const ByteRange data{0, request.bytes};

  ChunkTable table;
  const ChunkId all = table.intern(data);
  auto kept_chunk = [&](std::uint32_t k, Rank id) {
    const auto [first, last] = kept_blocks(pof2, k, id);
    return table.intern(parts_of(data, pof2, first, last));
  };
  // Intern every chunk before building, so the builder knows all boundaries.
  for (std::uint32_t k = 0; k < levels; ++k)
    for (Rank id = 0; id < pof2; ++id) kept_chunk(k, id);

  ScheduleBuilder builder(info_for(request, "rabenseifner"), table.ranges());
  std::uint32_t step = fold.fold_in(builder, all, 0);
  const std::uint32_t halving = step;
  for (std::uint32_t k = 0; k < levels; ++k, ++step)
    for (Rank id = 0; id < pof2; ++id) {
      const Rank partner = id ^ (pof2 >> (k + 1));
      builder.send(fold.rank_of(id), fold.rank_of(partner), kept_chunk(k, partner), Op::reduce, step);
    }
  builder.add_phase("reduce-scatter (halving)", halving, levels);
  const std::uint32_t doubling = step;
  for (std::uint32_t k = levels; k-- > 0; ++step)
    for (Rank id = 0; id < pof2; ++id) {
      const Rank partner = id ^ (pof2 >> (k + 1));
      builder.send(fold.rank_of(id), fold.rank_of(partner), kept_chunk(k, id), Op::copy, step);
    }
  builder.add_phase("allgather (doubling)", doubling, levels);
  fold.fold_out(builder, all, step);
  return std::move(builder).build();
}

// Two transfers a rank per step. A rank touches its kept blocks and its partner's at each
// level, nested halves: its bytes are cut into at most 2 lg P + 2 pieces, and a transfer
// visits at most lg P + 2 of them (the builder's and checker's pieces, elements.hpp).
ScheduleSize rabenseifner_size(const ScheduleRequest& r) {
  const double levels = ceil_log2(r.ranks), transfers = 2.0 * r.ranks * (levels + 2);
  return {transfers, std::min(cut(r, r.ranks), 2 * levels + 2), transfers * (levels + 2)};
}

// 2 lg P a + 2(P-1)/P N b + (P-1)/P N g, with P' = 2^floor(lg P) for P and the fold's two
// steps where P is not a power of two.
std::optional<double> rabenseifner_time(Collective, Rank ranks, double n, const CostModel& cost, std::uint32_t) {
  const auto t = closed_forms::uniform(cost, ranks, n);
  if (!t) return std::nullopt;
  const double pof2 = double(Rank(1) << floor_log2(ranks)), levels = floor_log2(ranks);
  const double moved = (pof2 - 1) / pof2 * t->n;
  return 2 * levels * t->a + 2 * moved * t->b + moved * t->g + closed_forms::fold(*t, ranks);
}

}  // namespace

AlgorithmEntry rabenseifner_entry() {
  return {.name = "rabenseifner",
          .summary = "recursive-halving reduce-scatter then recursive-doubling allgather",
          .collectives = {Collective::allreduce},
          .generate = rabenseifner,
          .size_bound = rabenseifner_size,
          .closed_form = rabenseifner_time};
}

}  // namespace collsim::algorithms
