// tests/topologies/test_topology.cpp — placement of ranks on endpoints and nodes, and the
// facts `collsim topo` reports (routed diameter, max-flow bisection, dot) against formulas.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <set>

#include "tests/support/route_check.hpp"
#include "base/error.hpp"
#include "topologies/analysis.hpp"
#include "topologies/cluster_config.hpp"

using namespace collsim;

namespace {

ClusterConfig load(const std::string& topology, const std::string& extra = "") {
  return parse_cluster_config("name: t\nlink_classes:\n  l: {bandwidth_Bps: 1.0e9, latency_s: 1.0e-7}\n"
                              "  fast: {bandwidth_Bps: 1.0e10, latency_s: 1.0e-8}\n"
                              "topology: " + topology + "\n" + extra + "gamma_s_per_byte: 0\n",
                              "t.yaml");
}

const std::string kNodes = "nodes: {count: 4, gpus_per_node: 4, gpu_link: fast, nic_link: fast, nics_per_node: 1}\n";

}  // namespace

TEST_CASE("linear placement puts rank r on endpoint r, round-robin deals ranks over nodes") {
  REQUIRE(place_ranks({}, 5, 8, 0) == std::vector<std::uint32_t>{0, 1, 2, 3, 4});
  const Placement rr{Placement::Kind::round_robin, 1, {}};
  // 3 nodes of 2: ranks 0,1,2 take slot 0 of nodes 0,1,2; ranks 3,4,5 take slot 1.
  REQUIRE(place_ranks(rr, 6, 6, 2) == std::vector<std::uint32_t>{0, 2, 4, 1, 3, 5});
  REQUIRE(place_ranks(rr, 4, 4, 0) == std::vector<std::uint32_t>{0, 1, 2, 3});
}

TEST_CASE("random placement is a seeded permutation, the same for the same seed") {
  const Placement a{Placement::Kind::random, 7, {}}, b{Placement::Kind::random, 8, {}};
  const auto pa = place_ranks(a, 64, 64, 0);
  REQUIRE(pa == place_ranks(a, 64, 64, 0));
  REQUIRE(pa != place_ranks(b, 64, 64, 0));
  std::vector<std::uint32_t> sorted = pa;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::uint32_t> identity(64);
  std::iota(identity.begin(), identity.end(), 0u);
  REQUIRE(sorted == identity);
  REQUIRE(pa != identity);
  const auto some = place_ranks(a, 10, 64, 0);
  REQUIRE(std::set<std::uint32_t>(some.begin(), some.end()).size() == 10);
}

TEST_CASE("placements that do not fit are errors") {
  REQUIRE_THROWS_WITH(place_ranks({}, 9, 8, 0), Catch::Contains("9 ranks do not fit on 8 endpoints"));
  const Placement bad{Placement::Kind::explicit_list, 1, {0, 8}};
  REQUIRE_THROWS_WITH(place_ranks(bad, 2, 8, 0), Catch::Contains("endpoint 8 does not exist"));
  const Placement short_list{Placement::Kind::explicit_list, 1, {0}};
  REQUIRE_THROWS_WITH(place_ranks(short_list, 2, 8, 0), Catch::Contains("lists 1 endpoints for 2 ranks"));
  REQUIRE_THROWS_AS(parse_placement_kind("zigzag"), Error);
}

// What messages between these ranks cost is tested with the cost rule (tests/sim/test_cost_rule.cpp).
TEST_CASE("on multi-GPU nodes ranks fill a node before the next, and the node size is the flat model's") {
  const ClusterConfig c = load("{kind: star, link: l}", kNodes);
  const Topology& t = *c.topology;
  REQUIRE(c.ranks == 16);
  REQUIRE(t.node_of(3) == 0);
  REQUIRE(t.node_of(4) == 1);
  REQUIRE(c.cost.ranks_per_node == 4);
}

TEST_CASE("round-robin placement puts ring neighbours on different nodes") {
  const ClusterConfig c = load("{kind: star, link: l}", kNodes + "placement: round-robin\n");
  const Topology& t = *c.topology;
  REQUIRE(t.node_of(0) == 0);
  REQUIRE(t.node_of(1) == 1);
  REQUIRE(t.node_of(4) == 0);
}

TEST_CASE("the routed diameter matches the formulas of rings, tori and fat-trees") {
  bool exact = false;
  std::size_t sources = 0;
  REQUIRE(routed_diameter(*load("{kind: ring, endpoints: 9, link: l}").topology, exact, sources) == 4);
  REQUIRE(exact);
  REQUIRE(sources == 9);
  REQUIRE(routed_diameter(*load("{kind: ring, endpoints: 9, bidirectional: false, link: l}").topology, exact, sources) == 8);
  REQUIRE(routed_diameter(*load("{kind: torus, dims: [4, 6, 3], link: l}").topology, exact, sources) == 2 + 3 + 1);
  REQUIRE(routed_diameter(*load("{kind: fat-tree, k: 4, n: 3, link: l}").topology, exact, sources) == 6);
  REQUIRE(routed_diameter(*load("{kind: star, endpoints: 5, link: l}").topology, exact, sources) == 2);
  REQUIRE(routed_diameter(*load("{kind: full, endpoints: 5, link: l}").topology, exact, sources) == 1);
}

TEST_CASE("a large network's diameter routes at most kMaxDiameterRoutes, from fewer sources, and is still right") {
  bool exact = true;
  std::size_t sources = 0;
  // 131,072 endpoints: 64 sources would route 8 M times; 32 route 4 M. A torus looks the same
  // from every source, so the sample finds its diameter: the sum of half of each dimension.
  REQUIRE(routed_diameter(*load("{kind: torus, dims: [64, 64, 32], link: l}").topology, exact, sources) == 32 + 32 + 16);
  CHECK_FALSE(exact);
  CHECK(sources == kMaxDiameterRoutes / 131072);
}

TEST_CASE("max-flow bisection matches the formulas of rings, tori, stars and fat-trees") {
  const double b = 1e9;
  // A bidirectional ring cut in two halves: two cables cross, per direction 2 links.
  REQUIRE(bisection_bandwidth(*load("{kind: ring, endpoints: 8, link: l}").topology) == Approx(2 * b));
  // 4x4 torus cut across dimension 1 (dimension 0 varies fastest): 4 rows x 2 wrap cables.
  REQUIRE(bisection_bandwidth(*load("{kind: torus, dims: [4, 4], link: l}").topology) == Approx(8 * b));
  // Full bisection: every host of one half can send at full rate.
  REQUIRE(bisection_bandwidth(*load("{kind: fat-tree, k: 4, n: 3, link: l}").topology) == Approx(32 * b));
  REQUIRE(bisection_bandwidth(*load("{kind: star, endpoints: 10, link: l}").topology) == Approx(5 * b));
  REQUIRE(bisection_bandwidth(*load("{kind: star, endpoints: 10, link: l, backplane_Bps: 2.0e9}").topology) ==
          Approx(2 * b));
  // Tapered 2:1 at the top of a 4-ary 2-tree: half the hosts' rate crosses the middle.
  REQUIRE(bisection_bandwidth(*load("{kind: fat-tree, k: 4, n: 2, link: l, taper: [1, 0.5]}").topology) ==
          Approx(4 * b));
}

TEST_CASE("analyze counts vertices and links and dot draws each cable once") {
  const ClusterConfig c = load("{kind: star, endpoints: 3, link: l}");
  const TopologyFacts f = analyze(*c.topology);
  REQUIRE(f.endpoints == 3);
  REQUIRE(f.switches == 1);
  REQUIRE(f.cables == 3);
  REQUIRE(f.links == 6);
  REQUIRE(f.one_way_links == 0);
  const std::string dot = to_dot(*c.topology, "t");
  REQUIRE(dot.rfind("digraph \"t\"", 0) == 0);
  REQUIRE(std::count(dot.begin(), dot.end(), '>') == 3);  // three "->" edges
  REQUIRE(dot.find("dir=both") != std::string::npos);
}

TEST_CASE("shortest-path routing finds the same hop counts as the builders' minimal routes") {
  const ClusterConfig minimal = load("{kind: torus, dims: [5, 3], link: l}");
  const ClusterConfig shortest = load("{kind: torus, dims: [5, 3], link: l}", "routing: shortest-path\n");
  std::vector<LinkId> a, b;
  for (Rank s = 0; s < minimal.ranks; ++s)
    for (Rank d = 0; d < minimal.ranks; ++d) {
      a.clear();
      b.clear();
      minimal.topology->route(s, d, 0, a);
      shortest.topology->route(s, d, 0, b);
      REQUIRE(a.size() == b.size());
      REQUIRE(is_path(shortest.topology->network, b, shortest.topology->vertex_of(s), shortest.topology->vertex_of(d)));
    }
}

TEST_CASE("bisection cuts between whole nodes, and splits a single node in half") {
  // 4 nodes of 4 GPUs, one 1 GB/s NIC each: two NICs' worth crosses the middle.
  REQUIRE(bisection_bandwidth(*load("{kind: star, link: l}", kNodes).topology) == Approx(2e9));
  // One DGX H100: 4 GPUs' NVLink (450 GB/s each) into the NVSwitch.
  REQUIRE(bisection_bandwidth(*load_preset("dgx-h100").topology) == Approx(4 * 450e9));
}
