// topologies/topology.cpp — routes between ranks, and where ranks sit.
#include "topologies/topology.hpp"

#include "collectives/error.hpp"

namespace collsim {

std::uint32_t Topology::node_of(Rank r) const {
  const std::uint32_t e = rank_endpoint[r];
  return endpoints_per_node > 0 ? e / endpoints_per_node : e;
}

void Topology::route(Rank src, Rank dst, std::uint64_t flow, std::vector<LinkId>& out) const {
  if (!models_memory()) return router->route(vertex_of(src), vertex_of(dst), flow, out);
  out.push_back(memory_of(src));
  router->route(vertex_of(src), vertex_of(dst), flow, out);
  out.push_back(memory_of(dst));
}

void Topology::add_memory(double bandwidth_Bps) {
  if (network.finalized()) throw Error("memory links added after the network was finalized");
  LinkClass memory;
  memory.name = std::string(kMemoryClass);
  memory.bandwidth_Bps = bandwidth_Bps;
  const LinkClassId c = network.add_link_class(memory);
  memory_links.clear();
  for (VertexId v : endpoints) memory_links.push_back(network.add_memory_link(v, c));
}

void Topology::place(const Placement& p, Rank ranks) {
  if (!router) throw Error("topology placed before its router exists");
  rank_endpoint = place_ranks(p, ranks, std::uint32_t(endpoints.size()), endpoints_per_node);
  placement = p;
}

}  // namespace collsim
