// topologies/analysis.hpp — what `collsim topo` reports about a network: counts per vertex
// kind and link class, the routed diameter, the bisection bandwidth, and Graphviz output.
//   routed diameter: the most links any endpoint-to-endpoint route crosses (flow 0), over all
//                    pairs up to 512 endpoints, else from 64 evenly spread sources to all
//                    (fewer, at least one, where 64 x endpoints passes kMaxDiameterRoutes);
//   bisection:       max-flow (Boost.Graph push-relabel) from the first half of the endpoints
//                    to the second half (whole nodes: the first floor(nodes/2) nodes), link
//                    bandwidths as capacities: the bandwidth of the natural cut (node-major,
//                    dimension 0 fastest), per direction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topologies/topology.hpp"

namespace collsim {

struct LinkClassUse {
  std::string name;
  double bandwidth_Bps = 0, latency_s = 0, alpha_s = 0;
  std::size_t links = 0;
};

struct TopologyFacts {
  std::size_t endpoints = 0, nics = 0, switches = 0, cables = 0, one_way_links = 0, links = 0;
  std::vector<LinkClassUse> classes;
  std::uint32_t diameter_links = 0;
  bool diameter_exact = true;
  std::size_t diameter_sources = 0;  // where not exact: the sources routed to every endpoint
  double bisection_Bps = 0;
};

TopologyFacts analyze(const Topology& topology);
// Routes the diameter computes at most: a torus route at the endpoint guard crosses ~100 links,
// so 64 sources x 2 M endpoints took minutes; 4 M routes take seconds.
inline constexpr std::size_t kMaxDiameterRoutes = std::size_t(1) << 22;
// `sources`: how many sources were routed to every endpoint (all of them where `exact`).
std::uint32_t routed_diameter(const Topology& topology, bool& exact, std::size_t& sources);
double bisection_bandwidth(const Topology& topology);

// digraph: cables as one edge with dir=both and their class, capacity links dashed.
std::string to_dot(const Topology& topology, const std::string& name);

}  // namespace collsim
