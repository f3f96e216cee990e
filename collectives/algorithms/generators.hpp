// collectives/algorithms/generators.hpp — one generator per algorithm file. Requests reach
// them already validated by generate_schedule().
#pragma once

#include "collectives/algorithm.hpp"

namespace collsim::algorithms {

Schedule ring(const ScheduleRequest& request);
Schedule naive(const ScheduleRequest& request);
Schedule binomial(const ScheduleRequest& request);
Schedule tree(const ScheduleRequest& request);
Schedule two_tree(const ScheduleRequest& request);
Schedule recursive_doubling(const ScheduleRequest& request);
Schedule rabenseifner(const ScheduleRequest& request);
Schedule hierarchical_ring(const ScheduleRequest& request);
Schedule chain(const ScheduleRequest& request);
Schedule nvls(const ScheduleRequest& request);
Schedule nvls_tree(const ScheduleRequest& request);
Schedule collnet(const ScheduleRequest& request);

// The trees tree, two-tree and chain follow (their table entries' `trees`).
std::vector<BinaryTree> tree_trees(const ScheduleInfo& info);
std::vector<BinaryTree> two_tree_trees(const ScheduleInfo& info);
std::vector<BinaryTree> chain_trees(const ScheduleInfo& info);

// The ScheduleInfo every generator starts from.
ScheduleInfo info_for(const ScheduleRequest& request, std::string_view algorithm);

}  // namespace collsim::algorithms
