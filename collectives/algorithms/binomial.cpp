// collectives/algorithms/binomial.cpp — binomial-tree reduce then binomial-tree broadcast
// (MPICH's default for short messages; Thakur, Rabenseifner & Gropp 2005). Ranks are taken
// relative to the root, v = (r - root) mod P. For P = 8:
//
//   reduce   step 0: 1->0 3->2 5->4 7->6   step 1: 2->0 6->4   step 2: 4->0
//   broadcast is the same tree walked backwards: 4<-0, then 2<-0 6<-4, then 1<-0 3<-2 ...
//
// Each rank sends or receives whole buffers: 2 ceil(lg P) steps of N bytes.
#include "collectives/algorithms/generators.hpp"
#include "collectives/schedule_builder.hpp"

namespace collsim::algorithms {

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

}  // namespace collsim::algorithms
