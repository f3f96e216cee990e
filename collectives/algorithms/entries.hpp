// collectives/algorithms/entries.hpp — what each algorithm's file exports, and what they
// share. Everything about one algorithm lives in algorithms/<name>.cpp: its generator (a pure
// function request -> Schedule; requests reach it validated by generate_schedule()), size
// bound, segment rule, closed form, teaching trees and stream, gathered in the AlgorithmEntry
// its <name>_entry() returns. algorithm.cpp's table lists the entries, one line each.
#pragma once

#include <algorithm>

#include "collectives/algorithm.hpp"

namespace collsim::algorithms {

// Functions, not objects: algorithm_table() may be first called while other files' statics
// are still being initialised, and an entry built on demand is never read before it exists.
AlgorithmEntry ring_entry();
AlgorithmEntry naive_entry();
AlgorithmEntry binomial_entry();
AlgorithmEntry tree_entry();
AlgorithmEntry two_tree_entry();
AlgorithmEntry nccl_tree_entry();
AlgorithmEntry chain_entry();
AlgorithmEntry recursive_doubling_entry();
AlgorithmEntry rabenseifner_entry();
AlgorithmEntry hierarchical_ring_entry();
AlgorithmEntry nvls_entry();
AlgorithmEntry nvls_tree_entry();
AlgorithmEntry collnet_entry();
AlgorithmEntry linear_entry();
AlgorithmEntry pairwise_entry();
AlgorithmEntry bruck_entry();
AlgorithmEntry rail_alltoall_entry();

// The ScheduleInfo every generator starts from.
ScheduleInfo info_for(const ScheduleRequest& request, std::string_view algorithm);

// For the size bounds (algorithm.hpp's ScheduleSize; tests/collectives/test_algorithms.cpp
// checks each against its generator). A rank's buffer is cut into at most `bytes` elements:
// empty chunks are never cut or sent.
inline double cut(const ScheduleRequest& r, double parts) { return std::max(1.0, std::min(parts, double(r.bytes))); }
// A size in which each transfer's chunk is one element: as many element visits as transfers.
inline ScheduleSize one_pass(double transfers, double elements) { return {transfers, elements, transfers}; }

}  // namespace collsim::algorithms
