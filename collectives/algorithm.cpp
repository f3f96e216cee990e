// collectives/algorithm.cpp — the algorithm table and request validation.
#include "collectives/algorithm.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collectives/algorithms/generators.hpp"
#include "collectives/error.hpp"

namespace collsim {

using enum Collective;

const std::vector<AlgorithmEntry>& algorithm_table() {
  static const std::vector<AlgorithmEntry> table{
      {"ring", "reduce-scatter then allgather around a ring, 2(P-1) steps (seeds 000, 002)",
       {allreduce, reduce_scatter, allgather}, false, algorithms::ring},
      {"naive", "single reducer: every rank sends to the root, which sends the result back (seed 000)",
       {allreduce, reduce, broadcast}, false, algorithms::naive},
      {"binomial", "binomial-tree reduce then binomial-tree broadcast, 2 ceil(lg P) steps (MPICH)",
       {allreduce, reduce, broadcast}, false, algorithms::binomial},
      {"tree", "binary tree (NCCL's) reduce then broadcast, pipelined in segments",
       {allreduce, reduce, broadcast}, true, algorithms::tree},
      {"two-tree", "double binary tree: two complementary trees carry half the data each (NCCL)",
       {allreduce}, true, algorithms::two_tree},
      {"recursive-doubling", "pairwise exchange of the whole buffer at distance 1, 2, 4, ...",
       {allreduce}, false, algorithms::recursive_doubling},
      {"rabenseifner", "recursive-halving reduce-scatter then recursive-doubling allgather",
       {allreduce}, false, algorithms::rabenseifner},
      {"hierarchical-ring", "ring inside each node, ring across nodes, ring inside again",
       {allreduce}, false, algorithms::hierarchical_ring},
  };
  return table;
}

bool AlgorithmEntry::supports(Collective c) const {
  return std::find(collectives.begin(), collectives.end(), c) != collectives.end();
}

const AlgorithmEntry& find_algorithm(std::string_view name) {
  for (const AlgorithmEntry& a : algorithm_table())
    if (a.name == name) return a;
  std::vector<std::string_view> names;
  for (const AlgorithmEntry& a : algorithm_table()) names.push_back(a.name);
  throw Error(fmt::format("unknown algorithm '{}' (expected one of: {})", name, fmt::join(names, ", ")));
}

std::vector<std::string_view> algorithms_for(Collective collective) {
  std::vector<std::string_view> names;
  for (const AlgorithmEntry& a : algorithm_table())
    if (a.supports(collective)) names.push_back(a.name);
  return names;
}

std::uint32_t default_segments(std::uint64_t bytes) {
  constexpr std::uint64_t kSegmentTarget = 1ull << 20;  // NCCL pipelines in slices of this order
  constexpr std::uint64_t kMaxSegments = 64;
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>((bytes + kSegmentTarget - 1) / kSegmentTarget, 1, kMaxSegments));
}

Schedule generate_schedule(std::string_view algorithm, const ScheduleRequest& request) {
  const AlgorithmEntry& entry = find_algorithm(algorithm);
  if (request.ranks == 0) throw Error("ranks must be at least 1 (got 0)");
  if (!entry.supports(request.collective))
  {
    std::vector<std::string_view> names;
    for (Collective c : entry.collectives) names.push_back(to_string(c));
    throw Error(fmt::format("algorithm '{}' does not implement {} (it implements: {})", algorithm,
                            to_string(request.collective), fmt::join(names, ", ")));
  }
  if (request.root >= request.ranks)
    throw Error(fmt::format("root {} is not a rank (ranks are 0..{})", request.root, request.ranks - 1));
  if (!entry.pipelined && request.segments > 1)
    throw Error(fmt::format("algorithm '{}' is not pipelined: --segments must be 1", algorithm));
  ScheduleRequest r = request;
  if (entry.pipelined && r.segments == 0) r.segments = default_segments(r.bytes);
  if (!entry.pipelined) r.segments = 1;
  return entry.generate(r);
}

namespace algorithms {

ScheduleInfo info_for(const ScheduleRequest& request, std::string_view algorithm) {
  ScheduleInfo info;
  info.collective = request.collective;
  info.algorithm = std::string(algorithm);
  info.ranks = request.ranks;
  info.bytes = request.bytes;
  info.root = request.root;
  info.segments = request.segments;
  info.ranks_per_node = request.ranks_per_node;
  return info;
}

}  // namespace algorithms
}  // namespace collsim
