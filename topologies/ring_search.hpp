// topologies/ring_search.hpp — the rings of a switchless NVLink mesh, found over the node's
// own links, as NCCL's graph search does (src/graph/search.cc, read for facts: each channel's
// ring is searched GPU to GPU over NVLink, the bandwidth it takes is subtracted from every link
// it crosses, and the search goes on while a ring still fits, so the channel count follows the
// links). Read by the prediction (one ring per channel, sim/prediction.cpp) and by explain.
//
// On a 4-GPU A100 board (4 NVLinks to each peer) one ring in rank order crosses 4 of a GPU's
// 12 links; the search finds 12 rings, every directed Hamiltonian cycle of the 4 GPUs twice,
// each crossing one NVLink per hop, and together they cross every link once:
//
//     0 -> 1 -> 2 -> 3 -> 0     0 -> 3 -> 2 -> 1 -> 0     0 -> 2 -> 1 -> 3 -> 0  ... (x2)
//
// DGX-1's hybrid cube-mesh (6 NVLinks per V100, 1 or 2 to a peer) gives 6 rings: its
// double-link cycle 0-3-2-1-5-6-7-4 twice each way and its single-link cycle once each way.
#pragma once

#include <cstdint>
#include <vector>

#include "collectives/schedule.hpp"

namespace collsim {

class Topology;

// The direct links between n ranks, in units of one link of their class (one NVLink): units[a n + b]
// is how many join rank a to rank b in that direction, 0 where no cable joins them.
struct MeshLinks {
  Rank ranks = 0;
  std::vector<std::uint32_t> units;

  std::uint32_t at(Rank a, Rank b) const { return units[std::size_t(a) * ranks + b]; }
  std::uint32_t& at(Rank a, Rank b) { return units[std::size_t(a) * ranks + b]; }
  std::uint64_t total() const;
};

// Rings over the direct links, each a rank order starting at rank 0 that takes one unit of every
// link it crosses (rank order[i] -> order[i+1], and the last back to the first), as many as fit,
// at most `max_rings`. Tries a fixed set of tie-breaking orders and keeps the set with the most
// rings (all of them as soon as every unit is used). Deterministic.
std::vector<std::vector<Rank>> search_rings(const MeshLinks& links, std::uint32_t max_rings);

// The direct links between `topology`'s ranks (or the `count` ranks from `first`, numbered
// from 0): a route of one cable from one rank's GPU to the other's (memory links aside), as
// many units as the cable is links of its class wide; none between two ranks that route
// through a switch.
MeshLinks direct_links(const Topology& topology, Rank first = 0, Rank count = 0);

// The rings of `topology` where every rank sits on one node whose GPUs are cabled pairwise (a
// switchless NVLink mesh) and some ring crosses direct links only: search_rings of its
// direct_links, at most `max_rings`; empty elsewhere (an NVSwitch node, ranks on several nodes,
// fewer than 2 ranks, more than kMaxMeshRanks).
inline constexpr Rank kMaxMeshRanks = 16;
std::vector<std::vector<Rank>> mesh_rings(const Topology& topology, std::uint32_t max_rings);

// The same across whole nodes (topologies/ring_search_nodes.cpp): where the ranks fill nodes of
// one switchless mesh each (every node cabled alike, rank order node by node, as DGX-1's
// hybrid cube-mesh on several nodes), one rank order per ring that search_rings finds on a
// node: the ring cut open at a hop whose two GPUs share a NIC, and laid node after node, so the
// channel crosses the node over the mesh's links, leaves from one GPU and enters the next node
// at the other, through the same NIC index (the cuts spread over the NICs). Empty elsewhere.
std::vector<std::vector<Rank>> mesh_rings_across_nodes(const Topology& topology, std::uint32_t max_rings);

}  // namespace collsim
