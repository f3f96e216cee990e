// topologies/routing.hpp — how a transfer finds its way: a Router maps (source endpoint,
// destination endpoint, flow id) to the directed links it crosses.
//   minimal:       deterministic minimal routes (D-mod-k up/down on fat-trees, dimension
//                  order on tori and rings, local-global-local on dragonflies);
//   ecmp:          a hash of (src, dst, flow id, seed) picks one of the equal-cost minimal paths;
//   valiant:       dragonflies only: via a random intermediate group, drawn from the same hash;
//   shortest-path: any graph: Boost.Graph Dijkstra on link latency (+1 ns per hop to prefer
//                  fewer hops), one tree per source, cached.
// Routes are a pure function of their arguments and the seed: the same call gives the same
// route in every run.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "topologies/network.hpp"

namespace collsim {

enum class RoutingMode : std::uint8_t { minimal, ecmp, valiant, shortest_path };
std::string_view to_string(RoutingMode mode);
RoutingMode parse_routing_mode(std::string_view name);  // throws Error listing the modes

// splitmix64 of the four values: the flow hash of ECMP and Valiant.
std::uint64_t flow_hash(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t seed);

class Router {
 public:
  virtual ~Router() = default;
  // Appends the links from endpoint vertex src to endpoint vertex dst (nothing when equal).
  virtual void route(VertexId src, VertexId dst, std::uint64_t flow, std::vector<LinkId>& out) const = 0;
};

// Any finalized network: Dijkstra from each source on demand; the predecessor tree is kept
// (a cache behind a lock: predictions run side by side share a topology). A path enters a switch reducer only to end
// there (a link into a reducer weighs a second more), so no route cuts through a reduction.
class ShortestPathRouter final : public Router {
 public:
  explicit ShortestPathRouter(const Network& net);
  void route(VertexId src, VertexId dst, std::uint64_t flow, std::vector<LinkId>& out) const override;

 private:
  const std::vector<LinkId>& tree_from(VertexId src) const;  // predecessor link of each vertex
  const Network& net_;
  mutable std::mutex mutex_;  // over trees_
  mutable std::unordered_map<VertexId, std::vector<LinkId>> trees_;
};

// Routes to and from switch reducers (VertexKind::reducer), shortest as ShortestPathRouter's:
// one search out of each reducer and one into it (Dijkstra on the reversed graph), made when
// first asked. Each reducer serves a known set of endpoints (a node's GPUs, or every endpoint
// for the fabric's), and its searches stop once those are settled: a node's switch costs the
// few vertices around it, not the whole network. Either end of a route must be a reducer; an
// endpoint it does not serve gets a search over the whole network. The searches are kept behind
// a lock, as ShortestPathRouter's.
class ReducerRouter final : public Router {
 public:
  struct Served {
    VertexId reducer;
    std::vector<VertexId> endpoints;
  };
  ReducerRouter(const Network& net, std::vector<Served> served);
  void route(VertexId src, VertexId dst, std::uint64_t flow, std::vector<LinkId>& out) const override;

 private:
  // Each settled vertex's link on its path: towards the reducer (into) or from it.
  using Tree = std::unordered_map<VertexId, LinkId>;
  const Tree& tree(VertexId reducer, VertexId endpoint, bool into) const;
  Tree search(VertexId reducer, bool into, const std::vector<VertexId>* stop_after) const;
  const Network& net_;
  Network::Graph reversed_;
  std::unordered_map<VertexId, std::vector<VertexId>> served_;
  mutable std::mutex mutex_;  // over into_ and from_
  mutable std::unordered_map<VertexId, Tree> into_, from_;
};

}  // namespace collsim
