// collectives/algorithms/nvls.cpp — NVLink SHARP allreduce inside one NVSwitch node (NCCL's
// NVLS): the switch reduces and multicasts, so each rank sends N bytes and receives N bytes,
// once, where a ring sends and receives 2(P-1)/P N each.
//
//     gpu0   gpu1  ...  gpuP-1        step k:     every gpu reduces segment k into the switch
//        \    |         /             step k+1:   the switch multicasts segment k's sum to
//         switch 0 (id P)                         every gpu (and segment k+1 goes up)
//
// Reducer 0 (id P) is the node's NVSwitch (collectives/schedule.hpp: the switch accumulates
// the P reductions in any order; its multicast waits for all of them). The buffer is cut into
// S segments that pipeline: segment k+1 travels up while segment k's sum comes down.
#include "collectives/algorithms/generators.hpp"
#include "collectives/schedule_builder.hpp"

namespace collsim::algorithms {

Schedule nvls(const ScheduleRequest& request) {
  const Rank p = request.ranks;
  const std::uint32_t segments = request.segments;
  const ByteRange data{0, request.bytes};
  ChunkTable table;
  std::vector<ChunkId> segment(segments);
  for (std::uint32_t k = 0; k < segments; ++k) segment[k] = table.intern(part_of(data, segments, k));

  ScheduleInfo info = info_for(request, "nvls");
  info.reducers = 1;
  const Rank node_switch = p;
  ScheduleBuilder builder(info, table.ranges());
  if (p == 1) return std::move(builder).build();  // one rank already holds the sum
  builder.reserve(2 * std::size_t(p) * segments, 2 * std::size_t(p) * segments * (p + 1));
  for (std::uint32_t k = 0; k < segments; ++k) {
    for (Rank r = 0; r < p; ++r) builder.send(r, node_switch, segment[k], Op::reduce, k);
    for (Rank r = 0; r < p; ++r) builder.send(node_switch, r, segment[k], Op::copy, k + 1);
  }
  builder.add_phase("reduce into the switch", 0, segments);
  builder.add_phase("multicast", 1, segments);
  return std::move(builder).build();
}

}  // namespace collsim::algorithms
