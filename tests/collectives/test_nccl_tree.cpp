// tests/collectives/test_nccl_tree.cpp — NCCL's tree (collectives/algorithms/nccl_tree.cpp): a
// chain through each node's GPUs and a double binary tree across the nodes, proved by the
// checker for 1..16 nodes of 1, 2, 4 and 8 GPUs; its trees have that shape (inside a node only
// chain edges, across nodes only heads, the node trees NCCL's double binary tree); with one GPU
// per node it is two-tree.
#include <catch2/catch.hpp>

#include <string>

#include "collectives/algorithm.hpp"
#include "collectives/algorithms/binary_tree.hpp"
#include "collectives/checker.hpp"
#include "tests/support/schedule_request.hpp"

using namespace collsim;

namespace {

ScheduleRequest allreduce(Rank ranks, std::uint64_t bytes, Rank ranks_per_node, std::uint32_t segments = 0,
                          std::uint32_t channels = 1) {
  return test::allreduce_request(ranks, bytes, channels, ranks_per_node, segments);
}

std::vector<algorithms::BinaryTree> trees_of(Rank nodes, Rank g) {
  const Schedule s = generate_schedule("nccl-tree", allreduce(nodes * g, 4096, g));
  return find_algorithm("nccl-tree").trees(s.info());
}

}  // namespace

TEST_CASE("The checker proves nccl-tree for 1 to 16 nodes of 1, 2, 4 and 8 GPUs") {
  std::size_t proved = 0;
  for (Rank g : {1u, 2u, 4u, 8u})
    for (Rank nodes = 1; nodes <= 16; ++nodes)
      for (std::uint64_t bytes : {3ull, 4099ull})
        for (std::uint32_t segments : {1u, 3u}) {
          INFO("G=" << g << " nodes=" << nodes << " N=" << bytes << " S=" << segments);
          REQUIRE_NOTHROW(check_schedule(generate_schedule("nccl-tree", allreduce(nodes * g, bytes, g, segments))));
          ++proved;
        }
  CHECK(proved == 4 * 16 * 2 * 2);
}

TEST_CASE("nccl-tree chains each node's GPUs and joins the nodes by their first GPUs in NCCL's double binary tree") {
  for (Rank g : {1u, 2u, 4u, 8u})
    for (Rank nodes = 1; nodes <= 16; ++nodes) {
      INFO("G=" << g << " nodes=" << nodes);
      const auto trees = trees_of(nodes, g);
      const auto across = algorithms::double_binary_tree(nodes);
      REQUIRE(trees.size() == 2);
      for (int t = 0; t < 2; ++t) {
        REQUIRE(trees[t].root == across[t].root * g);
        for (Rank r = 0; r < nodes * g; ++r) {
          const Rank up = trees[t].parent[r];
          if (r % g != 0) {
            REQUIRE(up == r - 1);  // the chain inside the node
          } else if (across[t].parent[r / g] == algorithms::kNoRank) {
            REQUIRE(up == algorithms::kNoRank);
          } else {
            REQUIRE(up == across[t].parent[r / g] * g);  // the parent node's first GPU
          }
        }
      }
    }
}

TEST_CASE("With one GPU per node, or none given, nccl-tree is two-tree") {
  for (Rank p : {1u, 2u, 5u, 8u, 13u})
    for (Rank g : {0u, 1u}) {
      INFO("P=" << p << " G=" << g);
      const Schedule ours = generate_schedule("nccl-tree", allreduce(p, 4099, g, 3));
      const Schedule two = generate_schedule("two-tree", allreduce(p, 4099, g, 3));
      REQUIRE(ours.size() == two.size());
      for (TransferId i = 0; i < ours.size(); ++i) {
        REQUIRE(ours.transfer(i).src == two.transfer(i).src);
        REQUIRE(ours.transfer(i).dst == two.transfer(i).dst);
        REQUIRE(ours.transfer(i).step == two.transfer(i).step);
      }
    }
}
