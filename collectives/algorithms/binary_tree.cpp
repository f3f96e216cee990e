// collectives/algorithms/binary_tree.cpp — tree construction, drawing and pipeline planning.
#include "collectives/algorithms/binary_tree.hpp"

#include <algorithm>
#include <functional>

namespace collsim::algorithms {
BinaryTree from_parents(Rank root, std::vector<Rank> parent) {
  BinaryTree t;
  t.root = root;
  t.children.resize(parent.size());
  for (Rank r = 0; r < parent.size(); ++r)
    if (parent[r] != kNoRank) t.children[parent[r]].push_back(r);  // ascending by construction
  t.parent = std::move(parent);
  return t;
}

namespace {

Rank nccl_parent(Rank r, Rank p) {
  if (r == 0) return kNoRank;
  const Rank bit = r & (~r + 1);  // lowest set bit
  const Rank up = (r ^ bit) | (bit << 1);
  return up < p ? up : (r ^ bit);
}

}  // namespace

std::uint32_t BinaryTree::height(Rank r) const {
  std::uint32_t h = 0;
  for (Rank c : children[r]) h = std::max(h, 1 + height(c));
  return h;
}

std::uint32_t BinaryTree::depth(Rank r) const {
  std::uint32_t d = 0;
  for (; parent[r] != kNoRank; r = parent[r]) ++d;
  return d;
}

std::string BinaryTree::draw() const {
  std::string out;
  std::function<void(Rank, const std::string&, bool, bool)> walk = [&](Rank r, const std::string& prefix,
                                                                       bool last, bool top) {
    out += top ? "" : prefix + (last ? "└── " : "├── ");
    out += std::to_string(r) + "\n";
    const std::string next = top ? "" : prefix + (last ? "    " : "│   ");
    for (std::size_t i = 0; i < children[r].size(); ++i) walk(children[r][i], next, i + 1 == children[r].size(), false);
  };
  walk(root, "", true, true);
  return out;
}

BinaryTree nccl_binary_tree(Rank ranks) {
  std::vector<Rank> parent(ranks);
  for (Rank r = 0; r < ranks; ++r) parent[r] = nccl_parent(r, ranks);
  return from_parents(0, std::move(parent));
}

std::array<BinaryTree, 2> double_binary_tree(Rank ranks) {
  BinaryTree first = nccl_binary_tree(ranks);
  std::vector<Rank> parent(ranks, kNoRank);
  Rank root;
  if (ranks % 2 == 0) {  // mirror r -> P-1-r
    auto mirror = [&](Rank r) { return r == kNoRank ? kNoRank : ranks - 1 - r; };
    for (Rank r = 0; r < ranks; ++r) parent[r] = mirror(first.parent[mirror(r)]);
    root = ranks - 1;
  } else {  // shift r -> r+1
    return {first, rotate(first, 1)};
  }
  return {first, from_parents(root, std::move(parent))};
}

BinaryTree rotate(const BinaryTree& tree, Rank offset) {
  const Rank p = tree.size();
  std::vector<Rank> parent(p, kNoRank);
  for (Rank r = 0; r < p; ++r)
    if (tree.parent[r] != kNoRank) parent[(r + offset) % p] = (tree.parent[r] + offset) % p;
  return from_parents((tree.root + offset) % p, std::move(parent));
}

void plan_tree(const BinaryTree& tree, ByteRange range, std::uint32_t segments, std::uint64_t data_bytes,
               TreePhases phases, ChunkTable& table, std::vector<PlannedTransfer>& plan) {
  const Rank p = tree.size();
  std::vector<std::uint32_t> height(p), depth(p);
  for (Rank r = 0; r < p; ++r) {
    height[r] = tree.height(r);
    depth[r] = tree.depth(r);
  }
  const std::uint32_t broadcast_start = phases.reduce ? height[tree.root] : 0;
  // Every edge carries each segment up (a copy and a reduction) and/or down (a copy).
  plan.reserve(plan.size() + std::size_t(segments) * (p > 0 ? p - 1 : 0) * (2 * phases.reduce + phases.broadcast));
  for (std::uint32_t j = 0; j < segments; ++j) {
    const ByteRange segment = part_of(range, segments, j);
    const ChunkId data = table.intern(segment);
    for (Rank parent = 0; parent < p; ++parent) {
      const auto& kids = tree.children[parent];
      for (std::size_t slot = 0; slot < kids.size(); ++slot) {
        const Rank child = kids[slot];
        if (phases.reduce) {
          const ChunkId staged = table.intern({data_bytes + slot * data_bytes + segment.offset, segment.bytes});
          const std::uint32_t step = j + height[child];
          plan.push_back({step, child, data, parent, staged, Op::copy});
          plan.push_back({step, parent, staged, parent, data, Op::reduce});
        }
        if (phases.broadcast) plan.push_back({j + broadcast_start + depth[parent], parent, data, child, data, Op::copy});
      }
    }
  }
}

}  // namespace collsim::algorithms
