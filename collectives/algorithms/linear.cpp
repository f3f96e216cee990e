// collectives/algorithms/linear.cpp — all-to-all with every message posted at once: each rank
// sends its block for every other rank straight to it, in the order r + 1, r + 2, ..., without
// waiting (NCCL's ncclAllToAll, a group of P - 1 sends and receives; MPICH's alltoall for
// medium messages). Where ports are shared (flow, SimGrid) the P - 1 messages share each rank's
// links; under one port they go one after another, as pairwise's do.
#include "collectives/algorithms/alltoall_blocks.hpp"
#include "collectives/algorithms/entries.hpp"
#include "collectives/closed_forms.hpp"

namespace collsim::algorithms {
namespace {

Schedule linear(const ScheduleRequest& request) {
  const AlltoallBlocks blocks(request, "linear", BlockSizes::any);
  ScheduleBuilder builder(blocks.info(), blocks.chunks());
  const Rank p = request.ranks;
  for (Rank r = 0; r < p; ++r) blocks.copy_own_block(builder, r, 0);
  builder.add_phase("own block", 0, 1);
  for (Rank k = 1; k < p; ++k)
    for (Rank r = 0; r < p; ++r) blocks.send(builder, r, (r + k) % p, 1, kNoTransfer);
  builder.add_phase("exchange", 1, p > 1 ? 1 : 0);
  return std::move(builder).build();
}

// The direct size, every message in flight at once.
ScheduleSize linear_size(const ScheduleRequest& r) {
  ScheduleSize size = alltoall_direct_size(r);
  size.in_flight = size.transfers > 0 ? double(r.ranks) * (r.ranks - 1) : 0;
  return size;
}

// Under one port, as pairwise: (P-1)(a + B b), B = floor(N / P).
std::optional<double> linear_time(Collective, Rank ranks, double n, const CostModel& cost, std::uint32_t) {
  const auto t = closed_forms::uniform(cost, ranks, n);
  if (!t) return std::nullopt;
  return (t->p - 1) * (t->a + std::floor(t->n / t->p) * t->b);
}

}  // namespace

AlgorithmEntry linear_entry() {
  return {.name = "linear",
          .summary = "all-to-all: every rank posts its P-1 blocks at once (NCCL's ncclAllToAll)",
          .collectives = {Collective::alltoall},
          .generate = linear,
          .size_bound = linear_size,
          .closed_form = linear_time};
}

}  // namespace collsim::algorithms
