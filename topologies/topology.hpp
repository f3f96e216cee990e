// topologies/topology.hpp — a cluster as the engines see it: the network, the router for its
// routing mode, the endpoints ranks can sit on (grouped into nodes) and where each rank sits.
// A Topology is built once (cluster_config.cpp builds it from YAML) and then only read;
// its router points into its network, so it lives behind a pointer and never moves.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/cost_model.hpp"
#include "collectives/schedule.hpp"
#include "topologies/network.hpp"
#include "topologies/placement.hpp"
#include "topologies/routing.hpp"

namespace collsim {

// One row of a cluster's reduction factors (Topology::reduction_factors): from this size on, a
// reduction takes gamma x `gamma` seconds per byte.
struct ReductionFactor {
  std::uint64_t from_bytes = 0;
  double gamma = 1;
  friend bool operator==(const ReductionFactor&, const ReductionFactor&) = default;
};

// What require_reducers says after an algorithm's name where a fabric has no reducing switch
// (Topology::node_reducer_missing, fabric_reducer_missing), and where a flat network has none.
inline constexpr std::string_view kNodeReducerMissing =
    " reduces in the switch, but this cluster's node switches do not reduce: NVLink SHARP needs an NVSwitch marked "
    "'reduction: nvls' in the config's nodes section (H100, GB200); pick another algorithm";
inline constexpr std::string_view kFabricReducerMissing =
    " reduces in the fabric's switches, but this cluster's fabric does not reduce: InfiniBand SHARP needs 'reduction: "
    "sharp' in the config's topology section (Quantum-2 NDR and later); pick another algorithm";
inline constexpr std::string_view kFlatHasNoSwitch =
    " reduces in the switch, and a flat network has no switch: give a cluster whose node switch reduces (--preset "
    "dgx-h100)";

// The parts of a report's header that describe a network, in order (Topology::header_parts;
// `collsim predict` prints each, cli/cmd_predict.cpp print_network):
//   routes:      its summary, routing and placement, and that each message costs its route;
//   rank_links:  its ranks' memory or cores, where it models them;
//   stand_in:    the two-class model the closed forms derive from rank 0's routes;
//   port_bound:  under an engine that shares links, the lower bound without ports;
//   classes:     the two classes it was generated from, which are the closed forms' model exactly.
enum class HeaderPart : std::uint8_t { routes, rank_links, stand_in, port_bound, classes };

// The link class of the ranks' memory links (Topology::add_memory), and of their cores'
// (Topology::add_core).
inline constexpr std::string_view kMemoryClass = "rank-memory";
inline constexpr std::string_view kCoreClass = "rank-core";

class Topology {
 public:
  Topology() = default;
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  std::string fabric_summary;               // the builder's one-line summary
  // A flat network (topologies/flat_network.hpp): the two link classes it was generated from
  // (alpha, beta; ranks_per_node), which price its messages exactly; none for a built fabric.
  // Read where the two must be told apart (docs/design.md, "One priced run"): how a pair of
  // ranks is priced (sim/pair_pricing.cpp) and how a cluster is re-placed
  // (ClusterConfig::place); the others read the facts below.
  std::optional<CostModel> flat;
  Network network;
  std::unique_ptr<Router> router;
  RoutingMode routing = RoutingMode::minimal;
  std::uint64_t routing_seed = 1;
  std::vector<VertexId> endpoints;          // where ranks may sit, in index order
  std::uint32_t endpoints_per_node = 0;     // GPUs per node; 0: no multi-GPU nodes
  std::uint32_t nics_per_node = 0;          // NICs per multi-GPU node; 0: no multi-GPU nodes
  Placement placement;
  std::vector<std::uint32_t> rank_endpoint;  // endpoint index of each rank
  // Each endpoint's memory link (LinkKind::memory), by endpoint index; empty when the ranks'
  // memory is not modelled. A transfer's route begins on its source's memory link (a send
  // reads memory) and ends on its destination's (a receive writes it); the engines run a
  // reduction across its rank's (docs/semantics.md, "The rank's memory").
  // With `core_copy_Bps` instead, the same links are the ranks' cores (`cores` true): a CPU
  // rank whose receiver copies (Open MPI's single-copy shared memory) copies what it receives
  // and reduces on one core. A transfer's route then ends on its destination's core link only
  // (the sender's core is idle while the receiver copies); a reduction crosses it as b x
  // gamma x core_copy_Bps bytes, its time alone (docs/semantics.md, "The rank's core").
  std::vector<LinkId> memory_links;
  bool cores = false;
  // In-network reduction: node n's reducing switch (`reduction: nvls`), or none; the fabric's
  // one logical SHARP reducer (`topology: reduction: sharp`), or none. A schedule's reducer k
  // (id ranks() + k) is node k's switch for k below the nodes its ranks span, and the fabric's
  // just after them (ScheduleInfo::fabric_reducer, collectives/schedule.hpp); routes to and
  // from reducers are shortest paths on the network (ReducerRouter).
  std::vector<VertexId> node_reducers;
  std::string node_reduction;  // "nvls" where node_reducers is not empty
  std::optional<VertexId> fabric_reducer;
  std::string fabric_reduction;  // "sharp" where fabric_reducer is set
  std::unique_ptr<Router> reducer_router;
  // Where every rank sits on one switchless NVLink mesh (DGX-1's cube-mesh, a 4-GPU A100
  // board): the rings a search over its direct links found (topologies/ring_search.hpp), one
  // per channel, that together cross every link; where the ranks fill several such nodes, those
  // rings laid across the nodes (mesh_rings_across_nodes); empty elsewhere. Set by place().
  std::vector<std::vector<Rank>> mesh_rings;

  // Facts the callers read as data, set where the topology is made (the fabric builder in
  // cluster_config.cpp, the flat generator in flat_network.cpp), so that none asks which it is:
  // - Whether its messages share its links: a built fabric's do; a flat network is a what-if,
  //   contention-free by definition (its default engine is the table's first that shares no
  //   links, sim/prediction.hpp default_engine).
  bool shares_links = true;
  // - Each endpoint's own cables together (datasheet rate x class efficiency, the smaller of out
  //   and in; memory links aside), by endpoint index: what a rank sends through at once without
  //   ports (sim/cost_rule.hpp rank_port_beta). count_ports() sums a graph's; a flat network's
  //   rank has one cable of each class, which needs no graph.
  std::vector<double> port_Bps;
  // - What an algorithm that reduces in a switch hears where the network has none that does
  //   (after its name, require_reducers): a fabric names the config key that marks one; a flat
  //   network says it has no switch (its switches only stand for its two link classes).
  std::string node_reducer_missing{kNodeReducerMissing};
  std::string fabric_reducer_missing{kFabricReducerMissing};
  // - What a report's header shows of it: a fabric has routes, a placement and a stand-in to
  //   show; a flat network's classes are its whole description.
  std::vector<HeaderPart> header_parts{HeaderPart::routes, HeaderPart::rank_links, HeaderPart::stand_in,
                                       HeaderPart::port_bound};

  Rank ranks() const { return Rank(rank_endpoint.size()); }
  // The nodes the placed ranks span (every endpoint its own node without multi-GPU nodes): the
  // fabric's reducer follows their switches' (ids ranks() + spanned_nodes()).
  Rank spanned_nodes() const {
    return endpoints_per_node > 0 ? (ranks() + endpoints_per_node - 1) / endpoints_per_node : ranks();
  }
  bool has_reducers() const { return !node_reducers.empty() || fabric_reducer.has_value(); }
  // A rank's endpoint, or for ids from ranks() on the reducer's vertex.
  VertexId vertex_of(Rank r) const {
    if (r < ranks()) return endpoints[rank_endpoint[r]];
    return r - ranks() == spanned_nodes() && fabric_reducer ? *fabric_reducer : node_reducers[r - ranks()];
  }
  // Node of a rank (its endpoint index itself when there are no multi-GPU nodes).
  std::uint32_t node_of(Rank r) const;
  // A reduction's pace by its size (`reduction_factors`): a reduction of b bytes takes gamma x
  // the factor of the row with the largest from_bytes <= b per byte. A CPU reduces data in its
  // caches faster than data it streams from memory (calibrate measures the rows;
  // validate/README.md shows a node's). Empty: gamma at every size.
  std::vector<ReductionFactor> reduction_factors;
  // The same for a reduction into data its rank has just sent (`reduction_into_sent_factors`;
  // collectives/transfer_context.hpp): on a CPU the peer that read those lines holds them, and
  // each write first takes them back, most where the data fits the caches (validate/README.md).
  // Empty: such reductions take reduction_factors like the others.
  std::vector<ReductionFactor> reduction_into_sent_factors;
  double reduction_factor_at(std::uint64_t bytes, bool into_sent = false) const;
  bool prices_reductions_into_sent() const { return !reduction_into_sent_factors.empty(); }
  // A link of each rank's own: its memory, or its core (models_core). The engines run a
  // reduction across it either way; sim/cost_rule.hpp says with how many bytes.
  bool models_memory() const { return !memory_links.empty(); }
  bool models_core() const { return cores && models_memory(); }
  LinkId memory_of(Rank r) const { return memory_links.empty() ? kNoLink : memory_links[rank_endpoint[r]]; }
  // Before the network is finalized, with the endpoints known: a memory link of
  // `bandwidth_Bps` on every endpoint (a link class of its own, kMemoryClass; throws Error).
  void add_memory(double bandwidth_Bps);
  // The same links as the ranks' cores, of `copy_Bps` each (kCoreClass; throws Error).
  void add_core(double copy_Bps);
  // What a message between two ranks costs is sim/cost_rule.hpp's to say, not the topology's.
  // Either end may be a reducer (an id from ranks() on).
  void route(Rank src, Rank dst, std::uint64_t flow, std::vector<LinkId>& out) const;
  // After the network is finalized: port_Bps from each endpoint's cables.
  void count_ports();

  // After the network is finalized and the router made: place `ranks` ranks (throws Error),
  // and search the mesh's rings where they sit on one (mesh_rings).
  void place(const Placement& placement, Rank ranks);

  // Throws Error unless the schedule's reducers exist here and every transfer between a rank
  // and node reducer k stays on node k: "nvls needs ...", naming the problem and what to do.
  // Any rank may use the fabric's reducer.
  void check_reducers(const Schedule& schedule) const;
  // Throws Error, with what to do, unless the switches an in-network `algorithm` reduces in exist
  // here: a node switch that reduces (`node`), the fabric's (`fabric`). Checked before any run.
  void require_reducers(std::string_view algorithm, bool node, bool fabric) const;
};

// "<algorithm> reduces in the switch, and a flat network has no switch: ..." (the one wording).
std::string flat_network_has_no_switch(std::string_view algorithm);

}  // namespace collsim
