// topologies/ring_search.cpp — rings over a switchless NVLink mesh's direct links
// (ring_search.hpp): a depth-first search for a Hamiltonian cycle over links with units left,
// repeated while one fits, under a fixed set of tie-breaking orders.
#include "topologies/ring_search.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace collsim {
namespace {

// Tie-breaking orders tried (NCCL's search also tries again in other orders before it settles);
// 64 find the perfect sets of the 4-GPU A100 board and DGX-1 at the first or second try.
constexpr std::uint64_t kOrders = 64;
// Steps of one ring's depth-first search before it gives up (NCCL bounds its search by a
// step count too, NCCL_SEARCH_TIMEOUT): a dense 16-rank mesh has 15! orders.
constexpr std::uint64_t kStepsPerRing = 200'000;

class RingFinder {
 public:
  RingFinder(MeshLinks& links, std::uint64_t order) : links_(links), order_(order) {}

  // A ring over links with units left, from rank 0, or empty.
  std::vector<Rank> find() {
    path_.assign(1, 0);
    visited_.assign(links_.ranks, false);
    visited_[0] = true;
    steps_ = 0;
    return extend() ? path_ : std::vector<Rank>{};
  }

 private:
  bool extend() {
    if (++steps_ > kStepsPerRing) return false;
    const Rank last = path_.back();
    if (path_.size() == links_.ranks) return links_.at(last, 0) > 0;
    for (Rank next : candidates(last)) {
      path_.push_back(next);
      visited_[next] = true;
      if (extend()) return true;
      visited_[next] = false;
      path_.pop_back();
    }
    return false;
  }

  // The unvisited ranks `from` still has units to: the most units left first (keeping the
  // links even, as NCCL's search prefers the widest), ties in this order's hash.
  std::vector<Rank> candidates(Rank from) const {
    std::vector<Rank> out;
    for (Rank r = 0; r < links_.ranks; ++r)
      if (!visited_[r] && links_.at(from, r) > 0) out.push_back(r);
    std::sort(out.begin(), out.end(), [&](Rank a, Rank b) {
      if (links_.at(from, a) != links_.at(from, b)) return links_.at(from, a) > links_.at(from, b);
      return tie(from, a) < tie(from, b);
    });
    return out;
  }
  std::uint64_t tie(Rank from, Rank to) const { return order_ == 0 ? to : flow_hash(from, to, order_, 0x6d657368); }

  MeshLinks& links_;
  std::uint64_t order_;
  std::vector<Rank> path_;
  std::vector<bool> visited_;
  std::uint64_t steps_ = 0;
};

// Rings found one after another in one tie-breaking order, each taking a unit of its links.
std::vector<std::vector<Rank>> rings_in_order(MeshLinks links, std::uint64_t order, std::uint32_t max_rings) {
  std::vector<std::vector<Rank>> rings;
  while (rings.size() < max_rings) {
    std::vector<Rank> ring = RingFinder(links, order).find();
    if (ring.empty()) break;
    for (std::size_t i = 0; i < ring.size(); ++i) --links.at(ring[i], ring[(i + 1) % ring.size()]);
    rings.push_back(std::move(ring));
  }
  return rings;
}

bool on_one_node(const Topology& t) {
  return t.endpoints_per_node > 0 && t.ranks() >= 2 && t.ranks() <= kMaxMeshRanks &&
         t.node_of(0) == t.node_of(t.ranks() - 1) && t.ranks() <= t.endpoints_per_node;
}

}  // namespace

std::uint64_t MeshLinks::total() const { return std::accumulate(units.begin(), units.end(), std::uint64_t(0)); }

std::vector<std::vector<Rank>> search_rings(const MeshLinks& links, std::uint32_t max_rings) {
  std::vector<std::vector<Rank>> best;
  if (links.ranks < 2) return best;
  const std::uint64_t every_unit = links.total() / links.ranks;  // rings that would use them all
  for (std::uint64_t order = 0; order < kOrders && best.size() < std::min<std::uint64_t>(every_unit, max_rings); ++order) {
    std::vector<std::vector<Rank>> rings = rings_in_order(links, order, max_rings);
    if (rings.size() > best.size()) best = std::move(rings);
  }
  return best;
}

MeshLinks direct_links(const Topology& t, Rank first, Rank count) {
  const Rank n = count > 0 ? count : t.ranks() - first;
  MeshLinks links{n, std::vector<std::uint32_t>(std::size_t(n) * n, 0)};
  std::vector<LinkId> route;
  for (Rank a = 0; a < n; ++a)
    for (Rank b = 0; b < n; ++b) {
      if (a == b) continue;
      route.clear();
      t.route(first + a, first + b, 0, route);
      std::erase_if(route, [&](LinkId l) { return t.network.link(l).kind == LinkKind::memory; });
      if (route.size() != 1) continue;
      const Link& link = t.network.link(route[0]);
      if (link.kind != LinkKind::cable || link.from != t.vertex_of(first + a) || link.to != t.vertex_of(first + b)) continue;
      // A pair's cable is its links' class times their count (nodes.peer_links).
      const double width = link.bandwidth_Bps / t.network.link_class(link.link_class).bandwidth_Bps;
      links.at(a, b) = std::uint32_t(std::max(1.0, std::round(width)));
    }
  return links;
}

std::vector<std::vector<Rank>> mesh_rings(const Topology& t, std::uint32_t max_rings) {
  // Only a placed topology gets here (Topology::place), whose links are built: a flat network
  // without a graph (above kMaxFlatGraphRanks) is never placed, and far above kMaxMeshRanks.
  if (!on_one_node(t)) return {};
  return search_rings(direct_links(t), max_rings);
}

}  // namespace collsim
