// collectives/algorithms/naive.cpp — the single reducer of seed 000: every rank sends its
// whole buffer to the root, which accumulates the P-1 buffers one after another and sends
// the result back to each rank. The root moves 2(P-1)N bytes, so time grows linearly with P.
//
//      1   2   3  ...  P-1          reduce:    i -> root, i = 1..P-1 (one at a time)
//       \  |  /        /            broadcast: root -> i, i = 1..P-1 (one at a time)
//         root
#include "collectives/algorithms/entries.hpp"
#include "collectives/closed_forms.hpp"
#include "collectives/schedule_builder.hpp"

namespace collsim::algorithms {
namespace {

Schedule naive(const ScheduleRequest& request) {
  const Rank p = request.ranks;
  const Rank root = request.root;
  ChunkTable table;
  const ChunkId all = table.intern({0, request.bytes});
  ScheduleBuilder builder(info_for(request, "naive"), table.ranges());

  const bool reduce = request.collective != Collective::broadcast;
  const bool broadcast = request.collective != Collective::reduce;
  std::uint32_t step = 0;
  if (reduce) {
    // Each accumulation writes the root's buffer, so the builder orders them one after another.
    for (Rank i = 1; i < p; ++i) builder.send((root + i) % p, root, all, Op::reduce, step++);
    builder.add_phase("reduce", 0, step);
  }
  if (broadcast) {
    const std::uint32_t first = step;
    for (Rank i = 1; i < p; ++i) builder.send(root, (root + i) % p, all, Op::copy, step++);
    builder.add_phase("broadcast", first, step - first);
  }
  return std::move(builder).build();
}

// P - 1 buffers up and P - 1 back, each the whole buffer, uncut.
ScheduleSize naive_size(const ScheduleRequest& r) { return one_pass(2.0 * r.ranks, 1); }

// Reduce: (P-1)(a + N b + N g), the root taking the P-1 buffers one after another; broadcast:
// (P-1)(a + N b); allreduce both, 2(P-1)(a + N b) + (P-1) N g.
std::optional<double> naive_time(Collective c, Rank ranks, double n, const CostModel& cost, std::uint32_t) {
  const auto t = closed_forms::uniform(cost, ranks, n);
  if (!t) return std::nullopt;
  return closed_forms::rooted(c, (t->p - 1) * (t->a + t->n * (t->b + t->g)), (t->p - 1) * (t->a + t->n * t->b));
}

}  // namespace

AlgorithmEntry naive_entry() {
  return {.name = "naive",
          .summary = "single reducer: every rank sends to the root, which sends the result back (seed 000)",
          .collectives = {Collective::allreduce, Collective::reduce, Collective::broadcast},
          .generate = naive,
          .size_bound = naive_size,
          .closed_form = naive_time};
}

}  // namespace collsim::algorithms
