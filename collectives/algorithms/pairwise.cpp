// collectives/algorithms/pairwise.cpp — all-to-all by pairwise exchange (MPICH's and Open MPI's
// alltoall for large messages; Thakur, Rabenseifner & Gropp 2005): P - 1 steps; in step k rank
// r sends its block for r + k to rank r + k and receives rank r - k's block for it, one
// partner at a time. Its own block is a local copy. For P = 4 (a -> b: a's block for b):
//   step 0: each rank copies its own block    step 1: 0->1 1->2 2->3 3->0
//   step 2: 0->2 1->3 2->0 3->1               step 3: 0->3 1->0 2->1 3->2
// Linear (linear.cpp) posts the same messages all at once.
#include "collectives/algorithms/alltoall_blocks.hpp"
#include "collectives/algorithms/entries.hpp"
#include "collectives/closed_forms.hpp"

namespace collsim::algorithms {
namespace {

Schedule pairwise(const ScheduleRequest& request) {
  const AlltoallBlocks blocks(request, "pairwise", BlockSizes::any);
  ScheduleBuilder builder(blocks.info(), blocks.chunks());
  const Rank p = request.ranks;
  for (Rank r = 0; r < p; ++r) blocks.copy_own_block(builder, r, 0);
  builder.add_phase("own block", 0, 1);
  // Each rank's send of step k waits for its send of step k - 1: one partner at a time.
  std::vector<TransferId> previous(p, kNoTransfer);
  for (Rank k = 1; k < p; ++k)
    for (Rank r = 0; r < p; ++r) previous[r] = blocks.send(builder, r, (r + k) % p, k, previous[r]);
  builder.add_phase("exchange", 1, p - 1);
  return std::move(builder).build();
}

// (P-1)(a + B b), B = floor(N / P) bytes per block: P - 1 messages out of every rank, one after
// another.
std::optional<double> pairwise_time(Collective, Rank ranks, double n, const CostModel& cost, std::uint32_t) {
  const auto t = closed_forms::uniform(cost, ranks, n);
  if (!t) return std::nullopt;
  return (t->p - 1) * (t->a + std::floor(t->n / t->p) * t->b);
}

}  // namespace

AlgorithmEntry pairwise_entry() {
  return {.name = "pairwise",
          .summary = "all-to-all: P-1 steps, in step k rank r sends its block to r+k (MPICH, Open MPI large messages)",
          .collectives = {Collective::alltoall},
          .generate = pairwise,
          .size_bound = alltoall_direct_size,
          .closed_form = pairwise_time};
}

}  // namespace collsim::algorithms
