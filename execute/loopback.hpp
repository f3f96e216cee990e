// execute/loopback.hpp — all ranks of a schedule executed in one thread through the same
// RankExecution state machine the real executors use, with an adversarial transport: a
// seeded random choice decides when each send reads its buffer (any time until it
// completes, as MPI may) and when a waiting message is delivered. Used by the tests to
// prove the per-rank ordering rule without MPI. A schedule's switch reducers run as more
// loopback ranks (rank_program.hpp), as the MPI executor runs them as more processes.
// Touches only its own buffers.
#pragma once

#include <cstdint>
#include <vector>

#include "collectives/schedule.hpp"
#include "execute/rank_execution.hpp"

namespace collsim {

struct LoopbackResult {
  std::vector<std::vector<float>> buffers;  // per rank, then per switch reducer, after the run
  std::size_t deliveries = 0;
};

// Throws Error when the ranks stop making progress before finishing (a deadlock).
LoopbackResult run_loopback(const Schedule& schedule, std::uint64_t seed, const std::vector<Faults>& faults = {});

}  // namespace collsim
