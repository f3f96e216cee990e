// collectives/algorithms/binary_tree.hpp — NCCL's binary trees (src/graph/trees.cc, as
// described in docs/design.md section 4) and the pipelined reduce/broadcast that runs over them.
//
// Tree 1, from the bits of each rank: with `bit` the lowest set bit of r,
//   parent(r) = (r ^ bit) | (bit << 1), or r ^ bit when that is >= P; rank 0 is the root.
// For P = 8 (root 0 has one child):
//     0 -- 4 -- 2 -- 1          (tree 1 as rows: each rank, then its children)
//          |    '-- 3           4: children 2, 6
//          '--- 6 -- 5          2: children 1, 3
//               '-- 7           6: children 5, 7
// Tree 2 (double binary tree) is tree 1 mirrored, r -> P-1-r, when P is even, and shifted,
// r -> (r+1) mod P, when P is odd: then no rank is interior in both trees (even P).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "collectives/schedule_builder.hpp"

namespace collsim::algorithms {

inline constexpr Rank kNoRank = 0xFFFFFFFFu;

struct BinaryTree {
  Rank root = 0;
  std::vector<Rank> parent;                 // kNoRank for the root
  std::vector<std::vector<Rank>> children;  // ascending; at most two in a binary tree

  Rank size() const { return Rank(parent.size()); }
  bool interior(Rank r) const { return !children[r].empty(); }
  std::uint32_t height(Rank r) const;  // 0 for a leaf
  std::uint32_t depth(Rank r) const;   // 0 for the root
  std::uint32_t height() const { return height(root); }
  // Box-drawing picture, one rank per line.
  std::string draw() const;
};

// The tree whose rank r hangs below parent[r] (kNoRank for the root), children ascending.
BinaryTree from_parents(Rank root, std::vector<Rank> parent);
BinaryTree nccl_binary_tree(Rank ranks);
std::array<BinaryTree, 2> double_binary_tree(Rank ranks);
// The same tree with every rank r renamed to (r + offset) mod P (a tree rooted elsewhere).
BinaryTree rotate(const BinaryTree& tree, Rank offset);

// Which phases of a tree collective to plan.
struct TreePhases {
  bool reduce = true;
  bool broadcast = true;
};

// Plans a pipelined reduce and/or broadcast of `range` over `tree` in `segments` segments.
// Children send into staging (scratch slot = child's position, at data_bytes + slot *
// data_bytes + offset) and the parent reduces each staged segment into its data, so both
// children's transfers can be in flight together. Steps are the slots of the ideal pipeline:
// a child of height h sends segment j at step j + h; the broadcast of segment j leaves a
// rank at depth d at step j + H + d (H the tree height, 0 without a reduce phase).
void plan_tree(const BinaryTree& tree, ByteRange range, std::uint32_t segments, std::uint64_t data_bytes,
               TreePhases phases, ChunkTable& table, std::vector<PlannedTransfer>& plan);

}  // namespace collsim::algorithms
