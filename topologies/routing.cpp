// topologies/routing.cpp — mode names, the flow hash, and shortest paths for any graph.
#include "topologies/routing.hpp"

#include <algorithm>

#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/property_map/function_property_map.hpp>
#include <fmt/format.h>

#include "collectives/error.hpp"

namespace collsim {

std::string_view to_string(RoutingMode mode) {
  switch (mode) {
    case RoutingMode::minimal: return "minimal";
    case RoutingMode::ecmp: return "ecmp";
    case RoutingMode::valiant: return "valiant";
    case RoutingMode::shortest_path: return "shortest-path";
  }
  return "?";
}

RoutingMode parse_routing_mode(std::string_view name) {
  for (RoutingMode m : {RoutingMode::minimal, RoutingMode::ecmp, RoutingMode::valiant, RoutingMode::shortest_path})
    if (to_string(m) == name) return m;
  throw Error(fmt::format("unknown routing '{}' (minimal, ecmp, valiant, shortest-path)", name));
}

std::uint64_t flow_hash(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t seed) {
  auto mix = [](std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  };
  return mix(mix(mix(mix(seed) ^ a) ^ b) ^ c);
}

namespace {

// Dijkstra's weight of a link: its latency, +1 ns per hop (among equal latencies, fewer
// hops; zero-latency links still count), +1 s into a reducer (a path ends there or avoids it).
double path_weight(const Network& net, LinkId l) {
  const Link& link = net.link(l);
  return link.latency_s + 1e-9 + (net.vertex(link.to).kind == VertexKind::reducer ? 1.0 : 0.0);
}

}  // namespace

ShortestPathRouter::ShortestPathRouter(const Network& net) : net_(net) {
  if (!net.finalized()) throw Error("shortest-path routing needs a finalized network");
}

// Among parallel links u -> v, the one Dijkstra relaxed: the lowest latency.
LinkId ShortestPathRouter::fastest_link(VertexId u, VertexId v) const {
  const Network::Graph& g = net_.graph();
  LinkId best = kNoLink;
  for (auto [e, end] = boost::out_edges(u, g); e != end; ++e)
    if (boost::target(*e, g) == v && (best == kNoLink || net_.link(g[*e]).latency_s < net_.link(best).latency_s))
      best = g[*e];
  return best;
}

const std::vector<LinkId>& ShortestPathRouter::tree_from(VertexId src) const {
  auto found = trees_.find(src);
  if (found != trees_.end()) return found->second;
  const Network::Graph& g = net_.graph();
  const std::size_t n = net_.vertex_count();
  std::vector<double> distance(n);
  std::vector<VertexId> predecessor(n);
  auto weight = boost::make_function_property_map<Network::Graph::edge_descriptor>(
      [&](Network::Graph::edge_descriptor e) { return path_weight(net_, g[e]); });
  boost::dijkstra_shortest_paths(
      g, src,
      boost::weight_map(weight)
          .distance_map(boost::make_iterator_property_map(distance.begin(), boost::get(boost::vertex_index, g)))
          .predecessor_map(boost::make_iterator_property_map(predecessor.begin(), boost::get(boost::vertex_index, g))));
  std::vector<LinkId> tree(n, kNoLink);
  for (VertexId v = 0; v < n; ++v)
    if (predecessor[v] != v) tree[v] = fastest_link(predecessor[v], v);
  return trees_.emplace(src, std::move(tree)).first->second;
}

void ShortestPathRouter::route(VertexId src, VertexId dst, std::uint64_t, std::vector<LinkId>& out) const {
  if (src == dst) return;
  const std::vector<LinkId>& tree = tree_from(src);
  const std::size_t first = out.size();
  for (VertexId at = dst; at != src;) {
    const LinkId l = tree[at];
    if (l == kNoLink)
      throw Error(fmt::format("no route from {} to {}", net_.vertex(src).name, net_.vertex(dst).name));
    out.push_back(l);
    at = net_.link(l).from;
  }
  std::reverse(out.begin() + std::ptrdiff_t(first), out.end());
}

ReducerRouter::ReducerRouter(const Network& net) : net_(net), from_reducer_(net) {
  std::vector<std::pair<VertexId, VertexId>> edges;
  std::vector<LinkId> ids;
  const Network::Graph& g = net.graph();
  for (auto [e, end] = boost::edges(g); e != end; ++e) {
    edges.emplace_back(boost::target(*e, g), boost::source(*e, g));
    ids.push_back(g[*e]);
  }
  reversed_ = Network::Graph(boost::edges_are_unsorted_multi_pass, edges.begin(), edges.end(), ids.begin(),
                             net.vertex_count());
}

const std::vector<LinkId>& ReducerRouter::tree_into(VertexId dst) const {
  auto found = trees_into_.find(dst);
  if (found != trees_into_.end()) return found->second;
  const std::size_t n = net_.vertex_count();
  std::vector<double> distance(n);
  std::vector<VertexId> successor(n);  // on the reversed graph, the predecessor is the next hop
  auto weight = boost::make_function_property_map<Network::Graph::edge_descriptor>(
      [&](Network::Graph::edge_descriptor e) { return path_weight(net_, reversed_[e]); });
  boost::dijkstra_shortest_paths(
      reversed_, dst,
      boost::weight_map(weight)
          .distance_map(boost::make_iterator_property_map(distance.begin(), boost::get(boost::vertex_index, reversed_)))
          .predecessor_map(
              boost::make_iterator_property_map(successor.begin(), boost::get(boost::vertex_index, reversed_))));
  std::vector<LinkId> tree(n, kNoLink);
  for (VertexId v = 0; v < n; ++v) {
    if (successor[v] == v) continue;
    // Among parallel links v -> successor, the lowest latency (as ShortestPathRouter).
    for (auto [e, end] = boost::out_edges(successor[v], reversed_); e != end; ++e)
      if (boost::target(*e, reversed_) == v &&
          (tree[v] == kNoLink || net_.link(reversed_[*e]).latency_s < net_.link(tree[v]).latency_s))
        tree[v] = reversed_[*e];
  }
  return trees_into_.emplace(dst, std::move(tree)).first->second;
}

void ReducerRouter::route(VertexId src, VertexId dst, std::uint64_t flow, std::vector<LinkId>& out) const {
  if (net_.vertex(src).kind == VertexKind::reducer) return from_reducer_.route(src, dst, flow, out);
  if (net_.vertex(dst).kind != VertexKind::reducer)
    throw Error(fmt::format("reducer routing: neither {} nor {} is a reducer", net_.vertex(src).name,
                            net_.vertex(dst).name));
  if (src == dst) return;
  const std::vector<LinkId>& tree = tree_into(dst);
  for (VertexId at = src; at != dst;) {
    const LinkId l = tree[at];
    if (l == kNoLink) throw Error(fmt::format("no route from {} to {}", net_.vertex(src).name, net_.vertex(dst).name));
    out.push_back(l);
    at = net_.link(l).to;
  }
}

}  // namespace collsim
