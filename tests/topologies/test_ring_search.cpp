// tests/topologies/test_ring_search.cpp — the rings of a switchless NVLink mesh
// (topologies/ring_search.hpp): every ring crosses direct links only, no link carries more
// rings than it has NVLinks, and on the 4-GPU A100 board and DGX-1's cube-mesh the rings
// together cross every link, so the channel count follows the links.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
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

TEST_CASE("Nodes with an NVSwitch, and nodes without NVLink, have no mesh rings") {
  CHECK(load_preset("dgx-a100").topology->mesh_rings.empty());
  CHECK(load_preset("dgx-h100-superpod-su").topology->mesh_rings.empty());
  CHECK(load_preset("baidu-40gpu").topology->mesh_rings.empty());
}

// 16 DGX-1 (dgx1-v100-16: two GPUs to a NIC): each channel crosses every node over the
// cube-mesh's NVLinks, from the GPU it enters at to the one it leaves from, those two on one
// NIC, and the next node's order is the same. The six rings run twice each, so that the four
// NICs carry three channels each; together they use every NVLink of every V100 (each in one
// direction or both: a channel's cut hop goes over the network instead).
TEST_CASE("On 16 DGX-1 the mesh rings cross each node over the cube-mesh and leave it and enter the next on one NIC") {
  const ClusterConfig c = load_preset("dgx1-v100-16");
  const Rank g = 8, ranks = c.topology->ranks();
  REQUIRE(ranks == 128);
  const MeshLinks node = direct_links(*c.topology, 0, g);
  CHECK(node.total() == 48);
  const std::vector<std::vector<Rank>>& orders = c.topology->mesh_rings;
  REQUIRE(orders.size() == 12);
  MeshLinks used{g, std::vector<std::uint32_t>(std::size_t(g) * g, 0)};
  // The NIC a rank of node 0 leaves by, to its peer on node 1.
  std::vector<std::string> nic(g);
  for (Rank r = 0; r < g; ++r) {
    std::vector<LinkId> route;
    c.topology->route(r, r + g, 0, route);
    for (LinkId l : route)
      if (const Vertex& v = c.topology->network.vertex(c.topology->network.link(l).to); v.kind == VertexKind::nic && nic[r].empty())
        nic[r] = v.name;
    REQUIRE(!nic[r].empty());
  }
  std::map<std::string, int> per_nic;
  for (const std::vector<Rank>& order : orders) {
    std::vector<Rank> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (Rank r = 0; r < ranks; ++r) REQUIRE(sorted.at(r) == r);
    for (Rank first = 0; first < ranks; first += g) {
      INFO("node " << first / g);
      for (Rank j = 0; j < g; ++j) {
        REQUIRE(order[first + j] / g == first / g);                          // the node's ranks in a row
        REQUIRE(order[first + j] % g == order[j] % g);                       // in node 0's order
        if (j + 1 < g) REQUIRE(node.at(order[first + j] % g, order[first + j + 1] % g) > 0);  // over NVLink
      }
    }
    const Rank leave = order[g - 1] % g, enter = order[0] % g;
    CHECK(nic[leave] == nic[enter]);  // one NIC
    ++per_nic[nic[leave]];
    for (Rank j = 0; j + 1 < g; ++j) ++used.at(order[j], order[j + 1]);
  }
  for (Rank a = 0; a < g; ++a) {
    std::uint32_t links = 0;
    for (Rank b = 0; b < g; ++b) {
      INFO(a << " - " << b);
      const std::uint32_t crossing = std::max(used.at(a, b), used.at(b, a));
      CHECK(crossing >= node.at(a, b));              // every NVLink of the pair carries a channel
      CHECK((crossing == 0) == (node.at(a, b) == 0));  // and no channel crosses a pair without one
      links += node.at(a, b);
    }
    CHECK(links == 6);
  }
  REQUIRE(per_nic.size() == 4);
  for (const auto& [name, channels] : per_nic) CHECK(channels == 3);
}
