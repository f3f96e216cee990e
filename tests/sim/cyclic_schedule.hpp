// tests/sim/cyclic_schedule.hpp — a schedule that can never finish, for the engines' tests:
// on 3 ranks, transfer 0 waits for transfer 1, which waits for transfer 0 (transfer 2 is free).
#pragma once

#include "collectives/schedule.hpp"

namespace collsim::test {

inline Schedule cyclic_schedule() {
  ScheduleInfo info;
  info.ranks = 3;
  info.bytes = 64;
  Schedule s(info);
  const ChunkId all = s.add_chunk({0, 64});
  const TransferId forward[] = {1};
  const TransferId backward[] = {0};
  s.append(0, all, 1, all, Op::copy, 0, forward);  // waits for the next, which waits for it
  s.append(1, all, 2, all, Op::copy, 1, backward);
  s.append(2, all, 0, all, Op::copy, 0, {});
  return s;
}

}  // namespace collsim::test
