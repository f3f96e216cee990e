// topologies/placement.hpp — where each rank sits: rank r runs on endpoint place(r).
// Ring order follows rank order, so placement decides which neighbours share a node (seed
// 000: keep a node's GPUs adjacent in the ring); every prediction prints it.
//   linear:      rank r on endpoint r;
//   round-robin: over nodes: rank r on node r mod nodes, its (r div nodes)-th GPU
//                (without nodes every endpoint is its own node: the same as linear);
//   random:      a seeded permutation (Fisher-Yates on splitmix64: the same on every platform);
//   explicit:    endpoints[r], all distinct.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/schedule.hpp"

namespace collsim {

struct Placement {
  enum class Kind : std::uint8_t { linear, round_robin, random, explicit_list };
  Kind kind = Kind::linear;
  std::uint64_t seed = 1;
  std::vector<std::uint32_t> endpoints;  // explicit only
};

std::string_view to_string(Placement::Kind kind);
Placement::Kind parse_placement_kind(std::string_view name);  // throws Error listing the kinds
std::string describe(const Placement& placement);             // "random (seed 7)"

// Endpoint index of each rank. endpoints_per_node = 0: no nodes. Throws Error when the ranks
// do not fit (more ranks than endpoints, a round-robin slot beyond a node, a bad explicit list).
std::vector<std::uint32_t> place_ranks(const Placement& placement, Rank ranks, std::uint32_t endpoints,
                                       std::uint32_t endpoints_per_node);

}  // namespace collsim
