// tests/support/schedule_request.hpp — the allreduce request the channel tests (and the
// explain and SVG channel cases) build, with its channels, node size and segments.
#pragma once

#include "collectives/algorithm.hpp"

namespace collsim::test {

inline ScheduleRequest allreduce_request(Rank ranks, std::uint64_t bytes, std::uint32_t channels, Rank ranks_per_node = 0,
                                         std::uint32_t segments = 0) {
  ScheduleRequest r;
  r.ranks = ranks;
  r.bytes = bytes;
  r.channels = channels;
  r.ranks_per_node = ranks_per_node;
  r.segments = segments;
  return r;
}

}  // namespace collsim::test
