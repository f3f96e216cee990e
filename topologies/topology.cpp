// topologies/topology.cpp — routes between ranks, and where ranks sit.
#include "topologies/topology.hpp"

#include <fmt/format.h>

#include "collectives/error.hpp"

namespace collsim {

std::uint32_t Topology::node_of(Rank r) const {
  const std::uint32_t e = rank_endpoint[r];
  return endpoints_per_node > 0 ? e / endpoints_per_node : e;
}

void Topology::route(Rank src, Rank dst, std::uint64_t flow, std::vector<LinkId>& out) const {
  // A rank's memory link begins and ends its routes (a send reads memory, a receive writes
  // it); a switch reducer has none, and its routes are shortest paths (reducer_router).
  const bool reducer = src >= ranks() || dst >= ranks();
  if (models_memory() && src < ranks()) out.push_back(memory_of(src));
  (reducer ? *reducer_router : *router).route(vertex_of(src), vertex_of(dst), flow, out);
  if (models_memory() && dst < ranks()) out.push_back(memory_of(dst));
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

void Topology::check_reducers(const Schedule& s) const {
  const ScheduleInfo& info = s.info();
  if (info.reducers == 0) return;
  if (node_reducers.empty())
    throw Error(fmt::format("{} reduces in the switch, but this cluster's node switches do not reduce: NVLink SHARP "
                            "needs an NVSwitch marked 'reduction: nvls' in the config's nodes section (H100, GB200); "
                            "pick another algorithm",
                            info.algorithm));
  if (info.reducers > node_reducers.size())
    throw Error(fmt::format("{} needs {} reducing node switches but this cluster has {} nodes", info.algorithm,
                            info.reducers, node_reducers.size()));
  if (info.ranks != ranks())
    throw Error(fmt::format("{}: the schedule has {} ranks but the topology places {}", info.algorithm, info.ranks,
                            ranks()));
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer t = s.transfer(id);
    const Rank rank = info.is_reducer(t.src) ? t.dst : t.src, reducer = info.is_reducer(t.src) ? t.src : t.dst;
    if (!info.is_reducer(reducer) || info.is_reducer(rank)) continue;
    if (node_of(rank) != reducer - info.ranks)
      throw Error(fmt::format("{}: rank {} sits on node {} but uses node {}'s switch; the ranks of the nodes it uses "
                              "must fill them in order (placement linear{})",
                              info.algorithm, rank, node_of(rank), reducer - info.ranks,
                              info.reducers == 1 ? ", all on one node: across nodes use nvls-tree" : ""));
  }
}

void Topology::place(const Placement& p, Rank ranks) {
  if (!router) throw Error("topology placed before its router exists");
  rank_endpoint = place_ranks(p, ranks, std::uint32_t(endpoints.size()), endpoints_per_node);
  placement = p;
}

}  // namespace collsim
