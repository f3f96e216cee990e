// tests/collectives/test_binary_tree.cpp — NCCL's binary tree and the double binary tree
// (collectives/algorithms/binary_tree.hpp, docs/design.md section 4).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "collectives/algorithms/binary_tree.hpp"

using namespace collsim;
using algorithms::BinaryTree;
using algorithms::kNoRank;

namespace {

// Checks that `t` is a tree over all its ranks: parent and children agree, at most two
// children in ascending order, only the root lacks a parent, every rank reachable from the root.
void require_valid_tree(const BinaryTree& t) {
  const Rank p = t.size();
  REQUIRE(t.children.size() == p);
  REQUIRE(t.root < p);
  CHECK(t.parent[t.root] == kNoRank);
  for (Rank r = 0; r < p; ++r) {
    INFO("rank " << r << " of " << p);
    if (r != t.root) {
      REQUIRE(t.parent[r] < p);
      CHECK(t.parent[r] != r);
      const auto& siblings = t.children[t.parent[r]];
      CHECK(std::count(siblings.begin(), siblings.end(), r) == 1);
    }
    CHECK(t.children[r].size() <= 2);
    CHECK(std::is_sorted(t.children[r].begin(), t.children[r].end()));
    for (Rank c : t.children[r]) {
      REQUIRE(c < p);
      CHECK(t.parent[c] == r);
    }
  }
  std::vector<bool> seen(p, false);
  std::vector<Rank> stack{t.root};
  Rank reached = 0;
  while (!stack.empty()) {
    const Rank r = stack.back();
    stack.pop_back();
    REQUIRE_FALSE(seen[r]);  // no rank is reached twice
    seen[r] = true;
    ++reached;
    for (Rank c : t.children[r]) stack.push_back(c);
  }
  CHECK(reached == p);
}

std::uint32_t expected_height(Rank p) { return p <= 1 ? 0 : 1 + floor_log2(p - 1); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("nccl_binary_tree is a binary tree rooted at 0 over every P up to 300", "[binary-tree]") {
  for (Rank p = 1; p <= 300; ++p) {
    INFO("P=" << p);
    const BinaryTree t = algorithms::nccl_binary_tree(p);
    REQUIRE(t.size() == p);
    CHECK(t.root == 0);
    require_valid_tree(t);
    if (p > 1) CHECK(t.children[0].size() == 1);  // NCCL's root has a single child
  }
}

TEST_CASE("nccl_binary_tree has height 1 + floor(lg(P-1))", "[binary-tree]") {
  for (Rank p = 1; p <= 300; ++p) {
    INFO("P=" << p);
    const BinaryTree t = algorithms::nccl_binary_tree(p);
    CHECK(t.height() == expected_height(p));
    std::uint32_t deepest = 0;
    for (Rank r = 0; r < p; ++r) deepest = std::max(deepest, t.depth(r));
    CHECK(deepest == t.height());
  }
}

TEST_CASE("nccl_binary_tree follows NCCL's bit rule for P = 8", "[binary-tree]") {
  const BinaryTree t = algorithms::nccl_binary_tree(8);
  CHECK(t.children[0] == std::vector<Rank>{4});
  CHECK(t.children[4] == std::vector<Rank>{2, 6});
  CHECK(t.children[2] == std::vector<Rank>{1, 3});
  CHECK(t.children[6] == std::vector<Rank>{5, 7});
  for (Rank leaf : {1u, 3u, 5u, 7u}) CHECK_FALSE(t.interior(leaf));
  // Out-of-range parents fall back to r ^ bit: for P = 6, rank 4's would be 8, so it is 0;
  // rank 5's would be 6, so it is 4.
  const BinaryTree six = algorithms::nccl_binary_tree(6);
  CHECK(six.parent[4] == 0);
  CHECK(six.parent[5] == 4);
  CHECK(six.children[4] == std::vector<Rank>{2, 5});
}

TEST_CASE("the double binary tree's second tree is a valid tree for every P up to 300", "[binary-tree]") {
  for (Rank p = 1; p <= 300; ++p) {
    INFO("P=" << p);
    const auto trees = algorithms::double_binary_tree(p);
    require_valid_tree(trees[0]);
    require_valid_tree(trees[1]);
    CHECK(trees[0].root == 0);
    CHECK(trees[1].root == (p % 2 == 0 ? p - 1 : 1 % p));
    CHECK(trees[1].height() == trees[0].height());
  }
}

TEST_CASE("no rank is interior in both trees for even P, and at most one for odd P", "[binary-tree]") {
  for (Rank p = 1; p <= 300; ++p) {
    INFO("P=" << p);
    const auto trees = algorithms::double_binary_tree(p);
    Rank both = 0;
    for (Rank r = 0; r < p; ++r) both += trees[0].interior(r) && trees[1].interior(r);
    if (p % 2 == 0) CHECK(both == 0);
    else CHECK(both <= 1);
  }
}

TEST_CASE("the double binary tree mirrors even P and shifts odd P", "[binary-tree]") {
  const auto even = algorithms::double_binary_tree(8);
  for (Rank r = 0; r < 8; ++r) {
    INFO("rank " << r);
    const Rank mirrored_parent = even[0].parent[7 - r];
    CHECK(even[1].parent[r] == (mirrored_parent == kNoRank ? kNoRank : 7 - mirrored_parent));
  }
  const auto odd = algorithms::double_binary_tree(7);
  for (Rank r = 0; r < 7; ++r) {
    INFO("rank " << r);
    const Rank parent = odd[0].parent[r];
    CHECK(odd[1].parent[(r + 1) % 7] == (parent == kNoRank ? kNoRank : (parent + 1) % 7));
  }
}

TEST_CASE("rotate renames every rank and keeps the shape", "[binary-tree]") {
  for (Rank p : {1u, 2u, 5u, 8u, 37u})
    for (Rank offset : {0u, 1u, p - 1}) {
      INFO("P=" << p << " offset " << offset);
      const BinaryTree t = algorithms::nccl_binary_tree(p);
      const BinaryTree r = algorithms::rotate(t, offset);
      require_valid_tree(r);
      CHECK(r.root == offset % p);
      CHECK(r.height() == t.height());
      for (Rank x = 0; x < p; ++x) CHECK(r.children[(x + offset) % p].size() == t.children[x].size());
    }
}

TEST_CASE("tree 1 for P = 8 draws as the picture in the header", "[binary-tree]") {
  const std::string drawing = algorithms::nccl_binary_tree(8).draw();
  CHECK(drawing ==
        "0\n"
        "└── 4\n"
        "    ├── 2\n"
        "    │   ├── 1\n"
        "    │   └── 3\n"
        "    └── 6\n"
        "        ├── 5\n"
        "        └── 7\n");
  const std::vector<std::string> lines = lines_of(drawing);
  REQUIRE(lines.size() == 8);
  CHECK(lines[0] == "0");
  CHECK(lines[1] == "└── 4");
  // Every rank appears exactly once, as the number ending its line.
  std::vector<int> seen(8, 0);
  for (const std::string& line : lines) {
    std::size_t start = line.size();
    while (start > 0 && std::isdigit(static_cast<unsigned char>(line[start - 1]))) --start;
    REQUIRE(start < line.size());
    const int rank = std::stoi(line.substr(start));
    REQUIRE(rank >= 0);
    REQUIRE(rank < 8);
    ++seen[rank];
  }
  CHECK(seen == std::vector<int>(8, 1));
}

TEST_CASE("drawing a one-rank tree shows just the root", "[binary-tree]") {
  CHECK(algorithms::nccl_binary_tree(1).draw() == "0\n");
  CHECK(algorithms::rotate(algorithms::nccl_binary_tree(3), 1).draw() == "1\n└── 0\n    └── 2\n");
}
