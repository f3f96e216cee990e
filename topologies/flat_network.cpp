// topologies/flat_network.cpp — the flat network's graph: ranks, a top switch and node switches.
//
// Link ids: rank i's cable to the top switch is up at inter + 2i, down at inter + 2i + 1; its
// cable to its node's switch likewise from intra (add_cable numbers a cable's two directions so).
#include "topologies/flat_network.hpp"

#include <fmt/format.h>

#include "base/error.hpp"
#include "topologies/builders/fabric_util.hpp"

namespace collsim {
namespace {

class FlatRouter final : public Router {
 public:
  FlatRouter(const std::vector<VertexId>& endpoints, Rank ranks_per_node, LinkId inter, LinkId intra)
      : block_("flat", endpoints), ranks_per_node_(ranks_per_node), inter_(inter), intra_(intra) {}

  void route(VertexId src, VertexId dst, std::uint64_t, std::vector<LinkId>& out) const override {
    const std::uint32_t s = block_.index(src), d = block_.index(dst);
    if (s == d) return;
    const LinkId base = ranks_per_node_ > 0 && s / ranks_per_node_ == d / ranks_per_node_ ? intra_ : inter_;
    out.push_back(base + 2 * s);
    out.push_back(base + 2 * d + 1);
  }

 private:
  fabric::EndpointBlock block_;
  Rank ranks_per_node_;
  LinkId inter_, intra_;
};

LinkClass link_class(const char* name, const LinkCost& cost) {
  LinkClass c;
  c.name = name;
  c.alpha_s = cost.alpha_s;
  c.bandwidth_Bps = 1.0 / cost.beta_s_per_byte;
  return c;
}

void build_graph(Topology& t, const CostModel& classes, Rank ranks) {
  Network& net = t.network;
  const LinkClassId inter = net.add_link_class(link_class("inter_node", classes.inter_node));
  const LinkClassId intra = classes.ranks_per_node > 0 ? net.add_link_class(link_class("intra_node", classes.intra_node)) : inter;
  t.endpoints = fabric::add_endpoints(net, ranks, "r");
  const VertexId top = net.add_vertex(VertexKind::switch_, "top");
  const LinkId inter_base = LinkId(net.link_count());
  for (VertexId e : t.endpoints) net.add_cable(e, top, inter);
  const LinkId intra_base = LinkId(net.link_count());
  if (classes.ranks_per_node > 0) {
    std::vector<VertexId> node_switch;
    for (Rank n = 0; n < ranks / classes.ranks_per_node; ++n)
      node_switch.push_back(net.add_vertex(VertexKind::switch_, fmt::format("node{}", n)));
    for (Rank r = 0; r < ranks; ++r) net.add_cable(t.endpoints[r], node_switch[r / classes.ranks_per_node], intra);
  }
  net.finalize();
  t.router = std::make_unique<FlatRouter>(t.endpoints, classes.ranks_per_node, inter_base, intra_base);
  t.place(Placement{}, ranks);
}

}  // namespace

void require_graph(const Topology& topology, const std::string& refusal) {
  // Kept branch (docs/design.md, "One priced run"): the one place that asks whether links were
  // built. Only the implicit network has none, and what needs them (an engine that shares
  // links, `collsim topo`) must refuse it with its own way out rather than read a graph that
  // is not there; building one to ask would cost more than the schedules that fit there.
  if (topology.network.vertex_count() == 0) throw Error(refusal);
}

std::shared_ptr<Topology> flat_topology(const CostModel& classes, Rank ranks, std::string summary) {
  if (classes.ranks_per_node > 0 && ranks % classes.ranks_per_node != 0)
    throw Error(fmt::format("{} ranks are not a whole number of nodes of {} (set --ranks-per-node)", ranks,
                            classes.ranks_per_node));
  if (!(classes.inter_node.beta_s_per_byte > 0 && classes.intra_node.beta_s_per_byte > 0))
    throw Error("a flat network needs a bandwidth (bytes/s) or beta (s/byte) above 0 on its links");
  auto t = std::make_shared<Topology>();
  t->flat = classes;
  t->flat->gamma_s_per_byte = 0;  // the cluster's gamma lives beside its network
  t->endpoints_per_node = classes.ranks_per_node;
  t->fabric_summary = std::move(summary);
  t->shares_links = false;
  t->node_reducer_missing = t->fabric_reducer_missing = kFlatHasNoSwitch;
  t->header_parts = {HeaderPart::classes};
  // Each rank's cables, one of each class (build_graph), as count_ports would sum them.
  const double port_Bps = 1.0 / classes.inter_node.beta_s_per_byte +
                          (classes.ranks_per_node > 0 ? 1.0 / classes.intra_node.beta_s_per_byte : 0.0);
  t->port_Bps.assign(ranks, port_Bps);
  if (ranks <= kMaxFlatGraphRanks) {
    build_graph(*t, classes, ranks);
  } else {  // implicit: the ranks in order, no graph (only the analytic engine reads it)
    t->rank_endpoint.resize(ranks);
    for (Rank r = 0; r < ranks; ++r) t->rank_endpoint[r] = r;
  }
  return t;
}

}  // namespace collsim
