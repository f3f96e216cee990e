// collectives/algorithms/binomial.cpp — binomial-tree reduce then binomial-tree broadcast
// (MPICH's default for short messages; Thakur, Rabenseifner & Gropp 2005). Ranks are taken
// relative to the root, v = (r - root) mod P. For P = 8:
//
//   reduce   step 0: 1->0 3->2 5->4 7->6   step 1: 2->0 6->4   step 2: 4->0
//   broadcast is the same tree walked backwards: 4<-0, then 2<-0 6<-4, then 1<-0 3<-2 ...
//
// Each rank sends or receives whole buffers: 2 ceil(lg P) steps of N bytes.
#include "collectives/algorithms/entries.hpp"
#include "collectives/closed_forms.hpp"
#include "collectives/schedule_builder.hpp"

namespace collsim::algorithms {
namespace {

Schedule binomial(const ScheduleRequest& request) {
  const Rank p = request.ranks;
  auto real = [&](Rank v) { return (v + request.root) % p; };
  ChunkTable table;
  const ChunkId all = table.intern({0, request.bytes});
  ScheduleBuilder builder(info_for(request, "binomial"), table.ranges());

  const std::uint32_t levels = ceil_log2(p);
  std::uint32_t step = 0;
  if (request.collective != Collective::broadcast) {
    for (std::uint32_t k = 0; k < levels; ++k, ++step) {
      const Rank distance = Rank(1) << k;
      for (Rank v = distance; v < p; v += 2 * distance) builder.send(real(v), real(v - distance), all, Op::reduce, step);
    }
    builder.add_phase("reduce", 0, levels);
  }
  if (request.collective != Collective::reduce) {
    const std::uint32_t first = step;
    for (std::uint32_t k = levels; k-- > 0; ++step) {
      const Rank distance = Rank(1) << k;
      for (Rank v = 0; v + distance < p; v += 2 * distance) builder.send(real(v), real(v + distance), all, Op::copy, step);
    }
    builder.add_phase("broadcast", first, levels);
  }
  return std::move(builder).build();
}

// P - 1 buffers up the tree and P - 1 down, each the whole buffer, uncut.
ScheduleSize binomial_size(const ScheduleRequest& r) { return one_pass(2.0 * r.ranks, 1); }

// ceil(lg P) levels each way: reduce lg P (a + N b + N g), broadcast lg P (a + N b); allreduce
// both, 2 lg P a + 2 lg P N b + lg P N g.
std::optional<double> binomial_time(Collective c, Rank ranks, double n, const CostModel& cost, std::uint32_t) {
  const auto t = closed_forms::uniform(cost, ranks, n);
  if (!t) return std::nullopt;
  const double levels = ceil_log2(ranks);
  return closed_forms::rooted(c, levels * (t->a + t->n * (t->b + t->g)), levels * (t->a + t->n * t->b));
}

}  // namespace

AlgorithmEntry binomial_entry() {
  return {.name = "binomial",
          .summary = "binomial-tree reduce then binomial-tree broadcast, 2 ceil(lg P) steps (MPICH)",
          .collectives = {Collective::allreduce, Collective::reduce, Collective::broadcast},
          .generate = binomial,
          .size_bound = binomial_size,
          .closed_form = binomial_time};
}

}  // namespace collsim::algorithms
