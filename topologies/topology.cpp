// topologies/topology.cpp — routes between ranks, and where ranks sit.
#include "topologies/topology.hpp"

#include "collectives/error.hpp"

namespace collsim {

std::uint32_t Topology::node_of(Rank r) const {
  const std::uint32_t e = rank_endpoint[r];
  return endpoints_per_node > 0 ? e / endpoints_per_node : e;
}

void Topology::route(Rank src, Rank dst, std::uint64_t flow, std::vector<LinkId>& out) const {
  router->route(vertex_of(src), vertex_of(dst), flow, out);
}

void Topology::place(const Placement& p, Rank ranks) {
  if (!router) throw Error("topology placed before its router exists");
  rank_endpoint = place_ranks(p, ranks, std::uint32_t(endpoints.size()), endpoints_per_node);
  placement = p;
}

}  // namespace collsim
