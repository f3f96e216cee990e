// sim/simgrid_platform.hpp — our topology as a SimGrid platform (internal to the simgrid
// engine; needs SimGrid). Never SimGrid's own FatTree or Dragonfly zones: one Full zone
// holds a host per rank and our routes, link by link, so both engines see the same paths.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include <simgrid/forward.h>

#include "collectives/schedule.hpp"
#include "sim/protocol.hpp"
#include "topologies/topology.hpp"

namespace collsim::simgrid_engine {

// CM02 without cross-traffic and with TCP-gamma 0 (docs/semantics.md, "The SimGrid engine"),
// and a timing precision fine enough for microsecond messages. Call once the s4u::Engine
// exists and before any zone is created.
void select_network_model(double timing_precision_s);

// In one Full zone: a host per rank ("rank<r>", `host_speed` flop/s), a SHARED link per
// directed link of the network that a route uses (its shared capacity under `protocol` by sim/cost_rule.hpp,
// latency 0: start-ups are paid by the actors), and the route of every (src, dst) pair in `pairs`, one way only
// (a pair (r, r): rank r's loopback across its memory link, for its reductions). Returns the
// hosts by rank (and switch reducer, ids after the ranks'). Throws Error for a pair of distinct
// ranks on one vertex (no links to route).
std::vector<simgrid::s4u::Host*> build_platform(const Topology& topology, Rank ranks, double host_speed,
                                                std::span<const std::pair<Rank, Rank>> pairs, const Protocol& protocol);

}  // namespace collsim::simgrid_engine
