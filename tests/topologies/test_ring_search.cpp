// tests/topologies/test_ring_search.cpp — the rings of a switchless NVLink mesh
// (topologies/ring_search.hpp): every ring crosses direct links only, no link carries more
// rings than it has NVLinks, and on the 4-GPU A100 board and DGX-1's cube-mesh the rings
// together cross every link, so the channel count follows the links.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "topologies/cluster_config.hpp"
#include "topologies/ring_search.hpp"

using namespace collsim;

namespace {

// How many of `rings` cross a -> b.
MeshLinks crossings(const std::vector<std::vector<Rank>>& rings, Rank ranks) {
  MeshLinks used{ranks, std::vector<std::uint32_t>(std::size_t(ranks) * ranks, 0)};
  for (const std::vector<Rank>& ring : rings)
    for (std::size_t i = 0; i < ring.size(); ++i) ++used.at(ring[i], ring[(i + 1) % ring.size()]);
  return used;
}

// Every ring visits every rank once and crosses no link more often than it has units.
void check_rings_fit(const std::vector<std::vector<Rank>>& rings, const MeshLinks& links) {
  for (const std::vector<Rank>& ring : rings) {
    std::vector<Rank> sorted = ring;
    std::sort(sorted.begin(), sorted.end());
    for (Rank r = 0; r < links.ranks; ++r) REQUIRE(sorted.at(r) == r);
  }
  const MeshLinks used = crossings(rings, links.ranks);
  for (Rank a = 0; a < links.ranks; ++a)
    for (Rank b = 0; b < links.ranks; ++b) {
      INFO(a << " -> " << b);
      CHECK(used.at(a, b) <= links.at(a, b));
    }
}

MeshLinks full_mesh(Rank ranks, std::uint32_t units) {
  MeshLinks links{ranks, std::vector<std::uint32_t>(std::size_t(ranks) * ranks, units)};
  for (Rank r = 0; r < ranks; ++r) links.at(r, r) = 0;
  return links;
}

}  // namespace

TEST_CASE("On the 4-GPU A100 board the search finds 12 rings that together cross all 12 NVLinks of every GPU") {
  const ClusterConfig c = load_preset("hgx-a100-4gpu");
  const MeshLinks links = direct_links(*c.topology);
  for (Rank a = 0; a < 4; ++a)
    for (Rank b = 0; b < 4; ++b) CHECK(links.at(a, b) == (a == b ? 0u : 4u));
  const std::vector<std::vector<Rank>>& rings = c.topology->mesh_rings;
  REQUIRE(rings.size() == 12);
  check_rings_fit(rings, links);
  CHECK(crossings(rings, 4).units == links.units);  // every link, every direction
}

TEST_CASE("DGX-1's cube-mesh rings use all six NVLinks of every V100, and never a pair without NVLink") {
  const ClusterConfig c = load_preset("dgx1-v100");
  const MeshLinks links = direct_links(*c.topology);
  CHECK(links.total() == 48);  // 24 NVLinks, both directions
  const std::vector<std::vector<Rank>>& rings = c.topology->mesh_rings;
  REQUIRE(rings.size() == 6);
  check_rings_fit(rings, links);
  const MeshLinks used = crossings(rings, 8);
  CHECK(used.units == links.units);
  for (Rank r = 0; r < 8; ++r) {
    std::uint32_t out = 0, in = 0;
    for (Rank p = 0; p < 8; ++p) out += used.at(r, p), in += used.at(p, r);
    INFO("rank " << r);
    CHECK(out == 6);
    CHECK(in == 6);
  }
}

TEST_CASE("The search keeps to the links it is given and stops when no ring fits") {
  SECTION("a full mesh of 5 with one link a pair: as many rings as a rank has out-links") {
    const MeshLinks links = full_mesh(5, 1);
    const std::vector<std::vector<Rank>> rings = search_rings(links, 64);
    CHECK(rings.size() == 4);  // K5's 20 directed links in 4 Hamiltonian cycles
    check_rings_fit(rings, links);
  }
  SECTION("a path 0 - 1 - 2 has no ring") {
    MeshLinks links{3, std::vector<std::uint32_t>(9, 0)};
    links.at(0, 1) = links.at(1, 0) = links.at(1, 2) = links.at(2, 1) = 1;
    CHECK(search_rings(links, 64).empty());
  }
  SECTION("two ranks: the pair's links, each a ring out and back") {
    MeshLinks links{2, {0, 3, 3, 0}};
    CHECK(search_rings(links, 64).size() == 3);
  }
  SECTION("no more than asked") {
    CHECK(search_rings(full_mesh(4, 4), 5).size() == 5);
  }
}

TEST_CASE("Nodes with an NVSwitch, and ranks on several nodes, have no mesh rings") {
  CHECK(load_preset("dgx-a100").topology->mesh_rings.empty());
  CHECK(load_preset("dgx1-v100-16").topology->mesh_rings.empty());
  CHECK(load_preset("baidu-40gpu").topology->mesh_rings.empty());
}
