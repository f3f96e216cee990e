// collectives/checker.hpp — proves a schedule: executes it on symbolic data and checks
//  1. structure: ranks, chunks and dependencies refer to things that exist; every dependency
//     precedes its dependent (so the dependency graph is acyclic and an executor that issues
//     each transfer once its dependencies are done cannot deadlock); every dependency
//     involves the dependent's source or destination rank (so it can be observed locally);
//  2. hazards: every pair of conflicting accesses to the same bytes of a rank (write/read,
//     read/write, write/write) is ordered by a dependency path — nothing is read before it
//     arrives or overwritten before it has been sent, whatever order an executor picks;
//     in-network reductions into a switch reducer's bytes need no order among themselves,
//     but every read of those bytes (the multicast) must follow each of them;
//  3. the collective's postcondition: every output byte holds each contribution exactly once,
//     taken from the right position of the sources' data. Every value carries the source
//     element it came from, so a reduction of two values from different positions is refused
//     at that transfer, and a chunk copied to the wrong offset (or swapped with another) fails
//     the postcondition naming the transfer that last wrote the misplaced bytes.
// Contributions are exact sets (one bit per rank) for P <= 64, and for larger P a signature:
// a random 64-bit weight per rank summed with wrap-around, plus a count, so P = 4096 checks
// in seconds. A duplicate contribution is caught exactly for P <= 64 and by the count or the
// signature (failure probability about 2^-64) above.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "collectives/schedule.hpp"

namespace collsim {

struct CheckOptions {
  Rank exact_up_to = 64;         // largest P checked with exact contribution sets
  std::uint64_t seed = 0x5eedc011ull;  // signature weights
  // Hears (part, transfers done, of all) for a progress line: once as each part starts
  // ("structure", "hazards and contributions", "postcondition"), and every
  // kCheckProgressEvery transfers of the symbolic run. The checker itself prints nothing.
  std::function<void(std::string_view part, std::uint64_t done, std::uint64_t total)> progress;
};
inline constexpr std::uint64_t kCheckProgressEvery = std::uint64_t(1) << 16;

struct CheckReport {
  bool exact = false;
  std::size_t transfers = 0;
  std::size_t dependencies = 0;
  std::uint32_t elements = 0;
};

// Part 1 alone; the JSON loader runs it on every schedule it reads. Throws Error.
void validate_structure(const Schedule& schedule);

// Parts 1-3. Throws Error with a one-line description of the first violation found.
CheckReport check_schedule(const Schedule& schedule, const CheckOptions& options = {});

}  // namespace collsim
