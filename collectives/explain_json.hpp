// collectives/explain_json.hpp — the teaching view of a schedule as data: the trees a tree
// algorithm runs over, and an Explanation as JSON. One definition shared by
// `collsim explain --format json`, the SVG drawing and the Python module, so the three agree.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectives/algorithms/binary_tree.hpp"
#include "collectives/explain.hpp"

namespace collsim {

// The trees of `tree` (one, rooted at the schedule's root), `two-tree` (two) and `chain` (one
// chain from the root); none otherwise.
std::vector<algorithms::BinaryTree> teaching_trees(const Schedule& schedule);
std::vector<Rank> interior_ranks(const algorithms::BinaryTree& tree);
// What explain and the pictures call tree `index` of `count`: "tree 1", "tree 2" (NCCL's
// numbering); a tree in which no rank has two children is a chain ("chain", or "chain 1" of
// several): the chain algorithm's, and a binary tree on 2 or 3 ranks.
std::string teaching_tree_name(const algorithms::BinaryTree& tree, std::size_t index, std::size_t count);

// {algorithm, collective, ranks, bytes, chunks, initial, steps: [{step, phase, transfers, state}],
//  trees: [{name, root, parent (null for the root), interior}]}
nlohmann::json explanation_json(const Schedule& schedule, const Explanation& explanation);

}  // namespace collsim
