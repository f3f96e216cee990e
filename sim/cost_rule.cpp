// sim/cost_rule.cpp — the cost rule (see the header): the datasheet rule, the corrections by
// message size (none yet), and what the route between two ranks offers.
#include "sim/cost_rule.hpp"

#include <algorithm>
#include <vector>

namespace collsim {
namespace {

// From the links' own numbers: alpha is a per-message overhead, so the route pays its largest
// once; latencies add up hop by hop; the slowest link limits the bytes.
RouteCost datasheet_cost(const Network& network, std::span<const LinkId> route) {
  double alpha_s = 0, latency_s = 0, bottleneck_Bps = kNoBottleneck_Bps;
  for (LinkId l : route) {
    const Link& link = network.link(l);
    alpha_s = std::max(alpha_s, network.link_class(link.link_class).alpha_s);
    latency_s += link.latency_s;
    bottleneck_Bps = std::min(bottleneck_Bps, link.bandwidth_Bps);
  }
  return {alpha_s + latency_s, bottleneck_Bps};
}

// The route of flow 0 between two ranks (minimal and shortest-path routing ignore the flow id).
std::span<const LinkId> route_of(const Topology& topology, Rank src, Rank dst) {
  thread_local std::vector<LinkId> links;
  links.clear();
  topology.route(src, dst, 0, links);
  return links;
}

}  // namespace

// Size corrections (a class's efficiency, factors by message size) apply here, to the
// datasheet cost; there are none yet.
RouteCost route_cost(const Network& network, std::span<const LinkId> route, std::uint64_t /*bytes*/) {
  return datasheet_cost(network, route);
}

double shared_capacity_Bps(const Network& network, LinkId link) { return network.link(link).bandwidth_Bps; }

LinkCost pair_cost(const Topology& topology, Rank src, Rank dst) {
  return datasheet_cost(topology.network, route_of(topology, src, dst)).as_link_cost();
}

CostModel equivalent_cost_model(const Topology& topology, double gamma_s_per_byte) {
  constexpr double kNone = std::numeric_limits<double>::infinity();
  LinkCost intra{kNone, kNone}, inter{kNone, kNone};
  for (Rank r = 1; r < topology.ranks(); ++r) {
    const LinkCost c = pair_cost(topology, 0, r);
    LinkCost& best = topology.node_of(r) == topology.node_of(0) ? intra : inter;
    best.alpha_s = std::min(best.alpha_s, c.alpha_s);
    best.beta_s_per_byte = std::min(best.beta_s_per_byte, c.beta_s_per_byte);
  }
  if (inter.alpha_s == kNone) inter = intra.alpha_s == kNone ? LinkCost{} : intra;
  if (intra.alpha_s == kNone) intra = inter;
  CostModel model{inter, intra, gamma_s_per_byte, 0};
  // hierarchical-ring assumes ranks n*G..n*G+G-1 share node n; placement decides if they do.
  model.ranks_per_node = topology.endpoints_per_node;
  return model;
}

}  // namespace collsim
