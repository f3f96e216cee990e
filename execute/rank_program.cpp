// execute/rank_program.cpp — splitting a schedule into per-rank programs (rule in the header).
#include "execute/rank_program.hpp"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "base/error.hpp"

namespace collsim {
namespace {

bool involves(const Transfer& t, Rank rank) { return t.src == rank || t.dst == rank; }

RankOp make_op(const Schedule& schedule, TransferId id, Rank rank) {
  const Transfer t = schedule.transfer(id);
  RankOp op;
  op.transfer = id;
  op.op = t.op;
  op.source = schedule.chunks()[t.src_chunk];
  op.destination = schedule.chunks()[t.dst_chunk];
  if (t.is_local()) {
    op.role = Role::local;
    op.peer = rank;
  } else if (t.src == rank) {
    op.role = Role::send;
    op.peer = t.dst;
  } else {
    op.role = Role::receive;
    op.peer = t.src;
  }
  return op;
}

}  // namespace

std::uint64_t RankProgram::largest_reduced_receive() const {
  std::uint64_t largest = 0;
  for (const RankOp& op : ops)
    if (op.role == Role::receive && op.op == Op::reduce) largest = std::max(largest, op.destination.bytes);
  return largest;
}

RankProgram build_rank_program(const Schedule& schedule, Rank rank) {
  RankProgram program;
  program.rank = rank;
  program.address_space = schedule.info().address_space();
  std::unordered_map<TransferId, std::uint32_t> op_of;  // transfer -> index in ops
  std::vector<std::vector<std::uint32_t>> waiting;       // per op: its dependents
  for (TransferId id = 0; id < schedule.size(); ++id) {
    const Transfer t = schedule.transfer(id);
    if (!involves(t, rank)) continue;
    const auto index = static_cast<std::uint32_t>(program.ops.size());
    program.ops.push_back(make_op(schedule, id, rank));
    program.local_dependencies.push_back(0);
    waiting.emplace_back();
    op_of.emplace(id, index);
    for (TransferId dep : t.deps) {
      const Transfer d = schedule.transfer(dep);
      if (!involves(d, t.src) && !involves(d, t.dst))
        throw Error(fmt::format("transfer {} depends on transfer {}, which neither of its ranks takes part in: "
                                "no executor can observe it",
                                id, dep));
      if (!involves(d, rank)) {
        ++program.implied_by_message;
        continue;
      }
      ++program.local_dependencies[index];
      waiting[op_of.at(dep)].push_back(index);
    }
  }
  for (const auto& list : waiting) {
    program.dependents.insert(program.dependents.end(), list.begin(), list.end());
    program.dependent_begin.push_back(static_cast<std::uint32_t>(program.dependents.size()));
  }
  return program;
}

std::vector<RankProgram> build_rank_programs(const Schedule& schedule) {
  std::vector<RankProgram> programs;
  for (Rank r = 0; r < schedule.info().endpoints(); ++r) programs.push_back(build_rank_program(schedule, r));
  return programs;
}

}  // namespace collsim
