// topologies/routing.cpp — mode names, the flow hash, and shortest paths for any graph.
#include "topologies/routing.hpp"

#include <algorithm>

#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/property_map/function_property_map.hpp>
#include <fmt/format.h>

#include "base/error.hpp"

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

// Each vertex's predecessor on its shortest path from `src` in `g` (the network's graph or its
// reverse), into `predecessor`; a vertex not reached is its own. `visitor` may end the search
// early by throwing: what was settled by then stays in `predecessor`.
template <class Visitor>
void shortest_path_predecessors(const Network& net, const Network::Graph& g, VertexId src, Visitor visitor,
                                std::vector<VertexId>& predecessor) {
  const std::size_t n = net.vertex_count();
  std::vector<double> distance(n);
  predecessor.resize(n);
  for (VertexId v = 0; v < n; ++v) predecessor[v] = v;
  auto weight = boost::make_function_property_map<Network::Graph::edge_descriptor>(
      [&](Network::Graph::edge_descriptor e) { return path_weight(net, g[e]); });
  boost::dijkstra_shortest_paths(
      g, src,
      boost::weight_map(weight)
          .distance_map(boost::make_iterator_property_map(distance.begin(), boost::get(boost::vertex_index, g)))
          .predecessor_map(boost::make_iterator_property_map(predecessor.begin(), boost::get(boost::vertex_index, g)))
          .visitor(boost::make_dijkstra_visitor(visitor)));
}

// Among parallel links u -> v of `g`, the one Dijkstra relaxed: the lowest latency.
LinkId fastest_edge(const Network& net, const Network::Graph& g, VertexId u, VertexId v) {
  LinkId best = kNoLink;
  for (auto [e, end] = boost::out_edges(u, g); e != end; ++e)
    if (boost::target(*e, g) == v && (best == kNoLink || net.link(g[*e]).latency_s < net.link(best).latency_s))
      best = g[*e];
  return best;
}

}  // namespace

ShortestPathRouter::ShortestPathRouter(const Network& net) : net_(net) {
  if (!net.finalized()) throw Error("shortest-path routing needs a finalized network");
}

const std::vector<LinkId>& ShortestPathRouter::tree_from(VertexId src) const {
  auto found = trees_.find(src);
  if (found != trees_.end()) return found->second;
  const Network::Graph& g = net_.graph();
  std::vector<VertexId> predecessor;
  shortest_path_predecessors(net_, g, src, boost::null_visitor(), predecessor);
  std::vector<LinkId> tree(predecessor.size(), kNoLink);
  for (VertexId v = 0; v < predecessor.size(); ++v)
    if (predecessor[v] != v) tree[v] = fastest_edge(net_, g, predecessor[v], v);
  return trees_.emplace(src, std::move(tree)).first->second;
}

void ShortestPathRouter::route(VertexId src, VertexId dst, std::uint64_t, std::vector<LinkId>& out) const {
  if (src == dst) return;
  const std::lock_guard lock(mutex_);  // the tree may be made, and is read, below
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

ReducerRouter::ReducerRouter(const Network& net, std::vector<Served> served) : net_(net) {
  std::vector<std::pair<VertexId, VertexId>> edges;
  std::vector<LinkId> ids;
  const Network::Graph& g = net.graph();
  for (auto [e, end] = boost::edges(g); e != end; ++e) {
    edges.emplace_back(boost::target(*e, g), boost::source(*e, g));
    ids.push_back(g[*e]);
  }
  reversed_ = Network::Graph(boost::edges_are_unsorted_multi_pass, edges.begin(), edges.end(), ids.begin(),
                             net.vertex_count());
  for (Served& s : served) served_[s.reducer] = std::move(s.endpoints);
}

namespace {

// Stops a search (by throwing) once every endpoint it waits for is settled.
struct AllSettled {};
struct StopWhenSettled {
  using event_filter = boost::on_finish_vertex;
  const std::vector<bool>* wanted;
  std::size_t* left;
  void operator()(VertexId v, const Network::Graph&) const {
    if ((*wanted)[v] && --*left == 0) throw AllSettled{};
  }
};

}  // namespace

ReducerRouter::Tree ReducerRouter::search(VertexId reducer, bool into, const std::vector<VertexId>* stop_after) const {
  const Network::Graph& g = into ? reversed_ : net_.graph();
  std::vector<bool> wanted(net_.vertex_count(), false);
  std::size_t left = 0;
  if (stop_after)
    for (VertexId v : *stop_after)
      if (!wanted[v]) wanted[v] = true, ++left;
  std::vector<VertexId> predecessor;
  try {
    shortest_path_predecessors(net_, g, reducer, StopWhenSettled{&wanted, &left}, predecessor);
  } catch (const AllSettled&) {
  }
  // Keep the paths of the settled endpoints (all vertices after a full search): into the
  // reducer, a vertex's link leads to its predecessor on the reversed graph; from it, the
  // link into the vertex comes from its predecessor.
  Tree tree;
  for (VertexId v = 0; v < predecessor.size(); ++v) {
    if (stop_after ? !wanted[v] : predecessor[v] == v) continue;
    for (VertexId at = v; at != reducer && predecessor[at] != at && !tree.contains(at); at = predecessor[at])
      tree[at] = fastest_edge(net_, g, predecessor[at], at);
  }
  return tree;
}

const ReducerRouter::Tree& ReducerRouter::tree(VertexId reducer, VertexId endpoint, bool into) const {
  auto& trees = into ? into_ : from_;
  auto found = trees.find(reducer);
  if (found == trees.end()) {
    const auto served = served_.find(reducer);
    found = trees.emplace(reducer, search(reducer, into, served == served_.end() ? nullptr : &served->second)).first;
  }
  if (!found->second.contains(endpoint)) found->second = search(reducer, into, nullptr);  // one it does not serve
  return found->second;
}

void ReducerRouter::route(VertexId src, VertexId dst, std::uint64_t, std::vector<LinkId>& out) const {
  const bool from_reducer = net_.vertex(src).kind == VertexKind::reducer;
  if (!from_reducer && net_.vertex(dst).kind != VertexKind::reducer)
    throw Error(fmt::format("reducer routing: neither {} nor {} is a reducer", net_.vertex(src).name,
                            net_.vertex(dst).name));
  if (src == dst) return;
  const VertexId reducer = from_reducer ? src : dst, endpoint = from_reducer ? dst : src;
  const std::lock_guard lock(mutex_);  // the tree may be made or widened, and is read, below
  const Tree& t = tree(reducer, endpoint, !from_reducer);
  const std::size_t first = out.size();
  for (VertexId at = endpoint; at != reducer;) {
    const auto step = t.find(at);
    if (step == t.end() || step->second == kNoLink)
      throw Error(fmt::format("no route from {} to {}", net_.vertex(src).name, net_.vertex(dst).name));
    out.push_back(step->second);
    at = from_reducer ? net_.link(step->second).from : net_.link(step->second).to;
  }
  if (from_reducer) std::reverse(out.begin() + std::ptrdiff_t(first), out.end());
}

}  // namespace collsim
