// topologies/ring_search_nodes.cpp — a switchless mesh's rings laid across whole nodes
// (ring_search.hpp, mesh_rings_across_nodes), as NCCL's search builds a multi-node ring: inside
// each node a path over NVLink from the GPU the network enters at to the GPU it leaves from,
// the two on one NIC (src/graph/search.cc, read for facts). On dgx1-v100-16 (ranks 1 and 2 of
// a node share NIC 1) the ring 2 3 4 5 6 7 0 1 is cut at 1 -> 2:
//
//     node 0: 2 3 4 5 6 7 0 1  ->  node 1: 10 11 12 13 14 15 8 9  ->  ...  -> back to rank 2
//
// leaving each node from its rank 1 and entering the next at its rank 2, NIC 1 to NIC 1.
#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>
#include <utility>
#include <vector>

#include "topologies/ring_search.hpp"
#include "topologies/topology.hpp"

namespace collsim {
namespace {

constexpr VertexId kNoNic = ~VertexId(0);

// Every node's ranks in a row (rank k g + j on node k's j-th place) and cabled as node 0's.
bool whole_nodes_alike(const Topology& t, Rank g, const MeshLinks& node) {
  for (Rank first = 0; first < t.ranks(); first += g) {
    for (Rank j = 0; j < g; ++j)
      if (t.node_of(first + j) != t.node_of(first)) return false;
    if (first > 0 && (t.node_of(first) == t.node_of(first - g) || direct_links(t, first, g).units != node.units))
      return false;
  }
  return true;
}

// The NIC rank r of node 0 leaves its node by for its peer on node 1, or kNoNic.
VertexId nic_of(const Topology& t, Rank r, Rank g) {
  std::vector<LinkId> route;
  t.route(r, r + g, 0, route);
  for (LinkId l : route)
    if (const VertexId to = t.network.link(l).to; t.network.vertex(to).kind == VertexKind::nic) return to;
  return kNoNic;
}

// Where each ring is cut (it leaves from ring[i] and enters the next node at ring[i+1]), ring
// after ring: at a hop whose two ranks share a NIC, on the NIC that carries the fewest channels
// so far (so the channels spread evenly over the NICs), then at a hop whose NVLinks other
// channels still cross (so every link keeps a channel, in one direction or both), then the
// earliest; with no hop on one NIC, at the hop back to the ring's start.
class Cutter {
 public:
  Cutter(const std::vector<std::vector<Rank>>& rings, const MeshLinks& links, const std::vector<VertexId>& nics)
      : links_(links), nics_(nics), crossed_{links.ranks, std::vector<std::uint32_t>(links.units.size(), 0)} {
    for (const std::vector<Rank>& ring : rings)
      for (std::size_t i = 0; i < ring.size(); ++i) ++crossed_.at(ring[i], next(ring, i));
  }

  std::size_t cut(const std::vector<Rank>& ring) {
    std::size_t best = ring.size() - 1;
    bool on_nic = false;
    for (std::size_t i = 0; i < ring.size(); ++i) {
      if (nics_[ring[i]] == kNoNic || nics_[ring[i]] != nics_[next(ring, i)]) continue;
      if (!on_nic || rank(ring, i) < rank(ring, best)) best = i;
      on_nic = true;
    }
    --crossed_.at(ring[best], next(ring, best));
    if (on_nic) ++on_nic_[nics_[ring[best]]];
    return best;
  }

 private:
  static Rank next(const std::vector<Rank>& ring, std::size_t i) { return ring[(i + 1) % ring.size()]; }
  // The NIC's channels so far; whether cutting the hop leaves its NVLinks short of a channel.
  std::pair<std::uint32_t, bool> rank(const std::vector<Rank>& ring, std::size_t i) {
    const Rank a = ring[i], b = next(ring, i);
    const bool bares = std::max<std::int64_t>(std::int64_t(crossed_.at(a, b)) - 1, crossed_.at(b, a)) < links_.at(a, b);
    return {on_nic_[nics_[a]], bares};
  }

  const MeshLinks& links_;
  const std::vector<VertexId>& nics_;
  MeshLinks crossed_;  // how many channels cross each hop, the cut hops taken off
  std::map<VertexId, std::uint32_t> on_nic_;
};

}  // namespace

std::vector<std::vector<Rank>> mesh_rings_across_nodes(const Topology& t, std::uint32_t max_rings) {
  // Only a placed topology gets here (Topology::place), whose links are built (as mesh_rings).
  const Rank g = t.endpoints_per_node;
  if (g < 2 || g > kMaxMeshRanks || t.ranks() <= g || t.ranks() % g != 0) return {};
  const MeshLinks node = direct_links(t, 0, g);
  if (node.total() == 0 || !whole_nodes_alike(t, g, node)) return {};
  std::vector<VertexId> nics(g);
  for (Rank j = 0; j < g; ++j) nics[j] = nic_of(t, j, g);
  // Each ring k times, k the least that makes the channels a multiple of the NICs, so that
  // each NIC carries as many (DGX-1: 6 rings, 4 NICs, each ring twice: 12 channels, 3 a NIC).
  const std::vector<std::vector<Rank>> found = search_rings(node, max_rings);
  const std::size_t nic_count = std::set<VertexId>(nics.begin(), nics.end()).size();
  const std::size_t copies = found.empty() ? 0 : nic_count / std::gcd(found.size(), nic_count);
  std::vector<std::vector<Rank>> rings;
  for (std::size_t k = 0; k < copies && rings.size() + found.size() <= max_rings; ++k)
    rings.insert(rings.end(), found.begin(), found.end());
  if (rings.empty()) rings = found;
  Cutter cutter(rings, node, nics);
  std::vector<std::vector<Rank>> orders;
  for (const std::vector<Rank>& ring : rings) {
    const std::size_t cut = cutter.cut(ring);
    std::vector<Rank> order;
    for (Rank first = 0; first < t.ranks(); first += g)
      for (std::size_t k = 1; k <= ring.size(); ++k) order.push_back(first + ring[(cut + k) % ring.size()]);
    orders.push_back(std::move(order));
  }
  return orders;
}

}  // namespace collsim
