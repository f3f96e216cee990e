// topologies/topology.cpp — routes between ranks, and where ranks sit.
#include "topologies/topology.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "topologies/ring_search.hpp"

namespace collsim {

double Topology::reduction_factor_at(std::uint64_t bytes, bool into_sent) const {
  const std::vector<ReductionFactor>& table =
      into_sent && !reduction_into_sent_factors.empty() ? reduction_into_sent_factors : reduction_factors;
  double factor = 1;
  for (const ReductionFactor& f : table) {
    if (f.from_bytes > bytes) break;
    factor = f.gamma;
  }
  return factor;
}

std::uint32_t Topology::node_of(Rank r) const {
  const std::uint32_t e = rank_endpoint[r];
  return endpoints_per_node > 0 ? e / endpoints_per_node : e;
}

void Topology::route(Rank src, Rank dst, std::uint64_t flow, std::vector<LinkId>& out) const {
  // A rank's memory link begins and ends its routes (a send reads memory, a receive writes
  // it); a switch reducer has none, and its routes are shortest paths (reducer_router).
  const bool reducer = src >= ranks() || dst >= ranks();
  if (models_memory() && !models_core() && src < ranks()) out.push_back(memory_of(src));
  (reducer ? *reducer_router : *router).route(vertex_of(src), vertex_of(dst), flow, out);
  if (models_memory() && dst < ranks()) out.push_back(memory_of(dst));
}

void Topology::add_memory(double bandwidth_Bps) {
  if (network.finalized()) throw Error("memory links added after the network was finalized");
  if (models_memory()) throw Error("a cluster gives its ranks a memory link or a core link, not both");
  LinkClass memory;
  memory.name = std::string(cores ? kCoreClass : kMemoryClass);
  memory.bandwidth_Bps = bandwidth_Bps;
  const LinkClassId c = network.add_link_class(memory);
  for (VertexId v : endpoints) memory_links.push_back(network.add_memory_link(v, c));
}

void Topology::add_core(double copy_Bps) {
  if (models_memory()) throw Error("a cluster gives its ranks a memory link or a core link, not both");
  cores = true;
  add_memory(copy_Bps);
}

namespace {

// Which reducers a schedule's transfers name: node switches, the fabric's.
struct ReducersUsed {
  Rank nodes = 0;  // node switches up to the last one used
  bool fabric = false;
};
ReducersUsed reducers_used(const Schedule& s) {
  const ScheduleInfo& info = s.info();
  ReducersUsed used;
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer t = s.transfer(id);
    for (Rank end : {t.src, t.dst}) {
      if (!info.is_reducer(end)) continue;
      if (info.is_fabric_reducer(end)) used.fabric = true;
      else used.nodes = std::max(used.nodes, end - info.ranks + 1);
    }
  }
  return used;
}

}  // namespace

void Topology::require_reducers(std::string_view algorithm, bool node, bool fabric) const {
  if (node && node_reducers.empty()) throw Error(std::string(algorithm) + node_reducer_missing);
  if (fabric && !fabric_reducer) throw Error(std::string(algorithm) + fabric_reducer_missing);
}

std::string flat_network_has_no_switch(std::string_view algorithm) {
  return std::string(algorithm) + std::string(kFlatHasNoSwitch);
}

void Topology::count_ports() {
  std::vector<double> out_Bps(network.vertex_count(), 0.0), in_Bps(network.vertex_count(), 0.0);
  for (const Link& link : network.links()) {
    if (link.kind == LinkKind::memory) continue;
    const double Bps = link.bandwidth_Bps * network.link_class(link.link_class).efficiency;
    out_Bps[link.from] += Bps;
    in_Bps[link.to] += Bps;
  }
  port_Bps.clear();
  for (VertexId e : endpoints) port_Bps.push_back(std::min(out_Bps[e], in_Bps[e]));
}

void Topology::check_reducers(const Schedule& s) const {
  const ScheduleInfo& info = s.info();
  if (info.reducers == 0) return;
  const ReducersUsed used = reducers_used(s);
  require_reducers(info.algorithm, used.nodes > 0, used.fabric);
  if (info.ranks != ranks())
    throw Error(fmt::format("{}: the schedule has {} ranks but the topology places {}", info.algorithm, info.ranks,
                            ranks()));
  if (used.fabric && info.fabric_reducer() != ranks() + spanned_nodes())
    throw Error(fmt::format("{}: the schedule's ranks span {} nodes of {} but the cluster's span {} nodes of {}; give "
                            "--ranks-per-node {} (the cluster's GPUs per node)",
                            info.algorithm, info.nodes(), info.ranks_per_node, spanned_nodes(), endpoints_per_node,
                            endpoints_per_node));
  if (used.nodes > node_reducers.size())
    throw Error(fmt::format("{} needs {} reducing node switches but this cluster has {} nodes", info.algorithm,
                            used.nodes, node_reducers.size()));
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer t = s.transfer(id);
    const Rank rank = info.is_reducer(t.src) ? t.dst : t.src, reducer = info.is_reducer(t.src) ? t.src : t.dst;
    if (!info.is_reducer(reducer) || info.is_reducer(rank) || info.is_fabric_reducer(reducer)) continue;
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
  mesh_rings = collsim::mesh_rings(*this, kMaxChannels);
  if (mesh_rings.empty()) mesh_rings = mesh_rings_across_nodes(*this, kMaxChannels);
}

}  // namespace collsim
