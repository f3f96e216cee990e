// topologies/flat_network.hpp — a flat network (the seeds' alpha-beta model: a config's
// `links:` form, predict's --alpha/--bandwidth what-if, the Python module's flat cluster) as a
// Topology like any other, so that every engine, report and command takes one kind of cluster.
//
//          top switch (inter_node class)            each rank r has one cable to the top switch
//         /    |     \      \                       and, with nodes of G ranks, one to its
//       r0    r1  ...  r4   r5 ...                  node's switch (intra_node class)
//         \    |    /    \   |
//          node 0 switch  node 1 switch (intra_node class)
//
// A message between two ranks of one node crosses its node's switch, any other the top switch:
// alone it pays its class's alpha and drains at its class's bandwidth, exactly the flat model's
// price; under the flow engine a rank's cables are its ports, which its messages share.
// The classes are kept (Topology::flat): a flat network's pairs are priced by them
// (sim/pair_pricing.hpp), by the analytic engine and the closed forms alike, without routing. Above kMaxFlatGraphRanks no graph is built (it
// would cost more than the schedules that fit there): the topology is implicit, its ranks sit
// in order, and only the analytic engine can price it (require_graph refuses the rest). The
// generator also sets the facts callers read as data (Topology::shares_links, port_Bps, the
// reducer wording and the header's parts). Touches nothing but what it builds.
#pragma once

#include <memory>
#include <string>

#include "collectives/cost_model.hpp"
#include "topologies/topology.hpp"

namespace collsim {

// The largest flat network whose graph is built: the builders' endpoint limit.
inline constexpr Rank kMaxFlatGraphRanks = Rank(1) << 21;

// Throws Error(`refusal`) where `topology` has no links built (a flat network above
// kMaxFlatGraphRanks): what shares links (the contention engines) or draws them (topo) needs
// them. `refusal` names the need, the rank count and the way out.
void require_graph(const Topology& topology, const std::string& refusal);

// `classes`: alpha and beta of the two link classes (intra_node only where ranks_per_node > 0)
// and the node size; its gamma is the cluster's, not the network's. `summary` is the network's
// one-line description. Throws Error when ranks are not whole nodes or beta is not positive.
std::shared_ptr<Topology> flat_topology(const CostModel& classes, Rank ranks, std::string summary);

}  // namespace collsim
