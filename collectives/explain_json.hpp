// collectives/explain_json.hpp — the teaching view of a schedule as data: the trees a tree
// algorithm runs over, and an Explanation as JSON. One definition shared by
// `collsim explain --format json`, the SVG drawing and the Python module, so the three agree.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "collectives/algorithms/binary_tree.hpp"
#include "collectives/explain.hpp"

namespace collsim {

// The trees of `tree` (one, rooted at the schedule's root) and `two-tree` (two); none otherwise.
std::vector<algorithms::BinaryTree> teaching_trees(const Schedule& schedule);
std::vector<Rank> interior_ranks(const algorithms::BinaryTree& tree);

// {algorithm, collective, ranks, bytes, chunks, initial, steps: [{step, phase, transfers, state}],
//  trees: [{root, parent (null for the root), interior}]}
nlohmann::json explanation_json(const Schedule& schedule, const Explanation& explanation);

}  // namespace collsim
