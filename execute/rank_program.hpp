// execute/rank_program.hpp — what one rank does when a schedule is executed for real: its
// share of the transfers (sends, receives, local reductions) and, for each, the dependencies
// it can observe itself. Pure data: no MPI, no CUDA; every executor consumes it.
//
// The rule (docs in validate/README.md, "How a rank knows when to start"):
//  * rank r's operation for transfer t waits for every dependency of t that is itself one of
//    r's operations (a send, receive or local reduction on r), and for nothing else;
//  * a dependency of t that involves only t's other rank is satisfied through the message:
//    the sender waits for its own dependencies before sending, the receiver for its own
//    before posting the receive, and the receive completes only when the message arrives.
// This is sound because the checker proves every dependency involves t's source or
// destination rank (build_rank_program asserts it again), and the schedule builder adds a
// direct dependency for every hazard between two transfers that touch the same bytes of a
// rank, so the two transfers share that rank and that rank orders them itself.
#pragma once

#include <cstdint>
#include <vector>

#include "collectives/schedule.hpp"

namespace collsim {

enum class Role : std::uint8_t { send, receive, local };

struct RankOp {
  TransferId transfer = 0;   // also the MPI tag: unique, so messages match exactly
  Role role = Role::send;
  Op op = Op::copy;
  Rank peer = 0;             // the other rank (itself for local)
  ByteRange source;          // in schedule units (elements), on this rank (send, local)
  ByteRange destination;     // on this rank (receive, local)
};

struct RankProgram {
  Rank rank = 0;
  std::uint64_t address_space = 0;  // elements: data, then scratch
  std::vector<RankOp> ops;          // in schedule list order
  // Per op: how many of its dependencies are ops of this rank.
  std::vector<std::uint32_t> local_dependencies;
  // CSR: the ops of this rank that wait for op i are dependents[dependent_begin[i] ..
  // dependent_begin[i+1]).
  std::vector<std::uint32_t> dependent_begin{0};
  std::vector<std::uint32_t> dependents;
  // Dependencies left to the other rank (satisfied through the message): kept for tests.
  std::size_t implied_by_message = 0;

  std::uint64_t largest_reduced_receive() const;
};

// `rank` may also be a switch reducer (an id from info.ranks on, schedule.hpp): its program
// is a rank's, with no input and no postcondition, so an executor emulates the switch with
// one more process (or loopback rank) running it. Its reductions commute and take no order
// among themselves; every send of its result waits, locally, for every reduction into those
// bytes, which the checker proves the schedule's dependencies say. An id past the schedule's
// endpoints (a process a larger schedule of the same run needs) gets an empty program.
// Throws Error when a dependency involves neither the transfer's source nor destination.
RankProgram build_rank_program(const Schedule& schedule, Rank rank);
// One program per endpoint: the ranks, then the switch reducers.
std::vector<RankProgram> build_rank_programs(const Schedule& schedule);

}  // namespace collsim
