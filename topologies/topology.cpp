// topologies/topology.cpp — routes and costs between ranks.
#include "topologies/topology.hpp"

#include <algorithm>
#include <limits>

#include "collectives/error.hpp"

namespace collsim {

std::uint32_t Topology::node_of(Rank r) const {
  const std::uint32_t e = rank_endpoint[r];
  return endpoints_per_node > 0 ? e / endpoints_per_node : e;
}

void Topology::route(Rank src, Rank dst, std::uint64_t flow, std::vector<LinkId>& out) const {
  router->route(vertex_of(src), vertex_of(dst), flow, out);
}

LinkCost Topology::pair_cost(Rank src, Rank dst) const {
  thread_local std::vector<LinkId> links;
  links.clear();
  route(src, dst, 0, links);
  const double bandwidth = route_bandwidth(network, links);
  return {route_alpha(network, links) + route_latency(network, links), links.empty() ? 0.0 : 1.0 / bandwidth};
}

CostModel Topology::equivalent_cost_model(double gamma_s_per_byte) const {
  constexpr double kNone = std::numeric_limits<double>::infinity();
  LinkCost intra{kNone, kNone}, inter{kNone, kNone};
  for (Rank r = 1; r < ranks(); ++r) {
    const LinkCost c = pair_cost(0, r);
    LinkCost& best = node_of(r) == node_of(0) ? intra : inter;
    best.alpha_s = std::min(best.alpha_s, c.alpha_s);
    best.beta_s_per_byte = std::min(best.beta_s_per_byte, c.beta_s_per_byte);
  }
  if (inter.alpha_s == kNone) inter = intra.alpha_s == kNone ? LinkCost{} : intra;
  if (intra.alpha_s == kNone) intra = inter;
  CostModel model{inter, intra, gamma_s_per_byte, 0};
  // hierarchical-ring assumes ranks n*G..n*G+G-1 share node n; placement decides if they do.
  model.ranks_per_node = endpoints_per_node;
  return model;
}

void Topology::place(const Placement& p, Rank ranks) {
  if (!router) throw Error("topology placed before its router exists");
  rank_endpoint = place_ranks(p, ranks, std::uint32_t(endpoints.size()), endpoints_per_node);
  placement = p;
}

}  // namespace collsim
