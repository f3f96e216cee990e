// tests/support/editable_schedule.hpp — a schedule taken apart into plain rows, so checker
// tests can edit it (drop, repeat, redirect transfers) and put it back together.
#pragma once

#include <vector>

#include "collectives/schedule.hpp"

namespace collsim::testing {

struct Row {
  Rank src = 0, dst = 0;
  ChunkId src_chunk = 0, dst_chunk = 0;
  Op op = Op::copy;
  std::uint32_t step = 0;
  std::vector<TransferId> deps;
};

struct Editable {
  ScheduleInfo info;
  std::vector<ByteRange> chunks;
  std::vector<Phase> phases;
  std::vector<Row> rows;
};

inline Editable take_apart(const Schedule& s) {
  Editable e{s.info(), s.chunks(), s.phases(), {}};
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer t = s.transfer(id);
    e.rows.push_back({t.src, t.dst, t.src_chunk, t.dst_chunk, t.op, t.step, {t.deps.begin(), t.deps.end()}});
  }
  return e;
}

inline Schedule put_together(const Editable& e) {
  Schedule s(e.info);
  for (const ByteRange& c : e.chunks) s.add_chunk(c);
  for (const Phase& p : e.phases) s.add_phase(p);
  for (const Row& r : e.rows) s.append(r.src, r.src_chunk, r.dst, r.dst_chunk, r.op, r.step, r.deps);
  return s;
}

}  // namespace collsim::testing
