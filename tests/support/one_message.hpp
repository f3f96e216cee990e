// tests/support/one_message.hpp — small helpers the cost-rule tests share: a schedule of one
// message, of two opposite messages and a follower (the host-issue tests), an allreduce's
// schedule by name, and the route between two ranks (flow id 0).
#pragma once

#include <vector>

#include <string>

#include "collectives/algorithm.hpp"
#include "collectives/schedule.hpp"
#include "topologies/topology.hpp"

namespace collsim::test {

// One message of `bytes` from src to dst, alone.
inline Schedule one_message(Rank ranks, Rank src, Rank dst, std::uint64_t bytes) {
  ScheduleInfo info;
  info.ranks = ranks;
  info.bytes = bytes;
  Schedule s(info);
  const ChunkId all = s.add_chunk({0, bytes});
  s.append(src, all, dst, all, Op::copy, 0, {});
  return s;
}

// On 2 ranks: 0 -> 1 and 1 -> 0, independent, then 0 -> 1 again after the first, each of `bytes`.
inline Schedule two_opposite_transfers_and_a_follower(std::uint64_t bytes) {
  ScheduleInfo info;
  info.ranks = 2;
  info.bytes = bytes;
  Schedule s(info);
  const ChunkId all = s.add_chunk({0, bytes});
  const TransferId after_first[] = {0};
  s.append(0, all, 1, all, Op::copy, 0, {});
  s.append(1, all, 0, all, Op::copy, 0, {});
  s.append(0, all, 1, all, Op::copy, 1, after_first);
  return s;
}

// `algorithm`'s allreduce of `bytes` on `ranks` ranks, its other choices by default.
inline Schedule allreduce_schedule(const std::string& algorithm, Rank ranks, std::uint64_t bytes) {
  ScheduleRequest r;
  r.ranks = ranks;
  r.bytes = bytes;
  return generate_schedule(algorithm, r);
}

inline std::vector<LinkId> route_between(const Topology& t, Rank src, Rank dst) {
  std::vector<LinkId> route;
  t.route(src, dst, 0, route);
  return route;
}

}  // namespace collsim::test
