// collectives/algorithm.cpp — the algorithm table and request validation.
#include "collectives/algorithm.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "collectives/algorithms/channels.hpp"
#include "collectives/algorithms/entries.hpp"
#include "collectives/collective_spec.hpp"

namespace collsim {

namespace {

std::uint32_t channels_of(const ScheduleRequest& r) { return std::max<std::uint32_t>(r.channels, 1); }

// The first limit a size breaks, in words, or "" when it fits.
std::string size_problem(const ScheduleSize& size, Rank ranks) {
  if (size.transfers > kMaxScheduleTransfers)
    return fmt::format("about {:.2g} transfers, more than the {:.0e} a schedule may hold in memory (~48 bytes each)",
                       size.transfers, kMaxScheduleTransfers);
  if (ranks * size.elements > kMaxElementRecords)
    return fmt::format("{:.2g} (rank, element) records to track ({} elements per rank), more than the {:.0e} "
                       "(~100 bytes each as a rank's pieces) that fit in memory",
                       ranks * size.elements, size.elements, kMaxElementRecords);
  if (size.dependencies > kMaxDependencies)
    return fmt::format("about {:.2g} dependencies (each switch result read by every rank it sums), more than the {:.0e} "
                       "(~4 bytes each) that fit in memory",
                       size.dependencies, kMaxDependencies);
  if (size.element_visits > kMaxElementVisits)
    return fmt::format("about {:.2g} element visits, more than the {:.0e} (about a minute) a build may take",
                       size.element_visits, kMaxElementVisits);
  return "";
}

}  // namespace

// One line per algorithm, each entry defined in its file (algorithms/<name>.cpp). The order is
// that of `collsim algorithms`, "all" and every listing of names.
const std::vector<AlgorithmEntry>& algorithm_table() {
  static const std::vector<AlgorithmEntry> table{
      algorithms::ring_entry(),
      algorithms::naive_entry(),
      algorithms::binomial_entry(),
      algorithms::tree_entry(),
      algorithms::two_tree_entry(),
      algorithms::nccl_tree_entry(),
      algorithms::chain_entry(),
      algorithms::recursive_doubling_entry(),
      algorithms::rabenseifner_entry(),
      algorithms::hierarchical_ring_entry(),
      algorithms::nvls_entry(),
      algorithms::nvls_tree_entry(),
      algorithms::collnet_entry(),
      algorithms::linear_entry(),
      algorithms::pairwise_entry(),
      algorithms::bruck_entry(),
      algorithms::rail_alltoall_entry(),
  };
  return table;
}

bool AlgorithmEntry::runs_on(Rank ranks, Rank ranks_per_node) const {
  if (within_one_node && ranks_per_node > 0 && ranks > ranks_per_node) return false;
  return !needs_ranks_per_node || (ranks_per_node > 0 && ranks % ranks_per_node == 0);
}

bool AlgorithmEntry::has_switches(SwitchesReduce reduce, Rank ranks_per_node) const {
  switch (in_network) {
    case InNetwork::none: return true;
    case InNetwork::node_switch: return reduce.node;
    case InNetwork::fabric: return reduce.fabric && (reduce.node || ranks_per_node <= 1);
  }
  return false;
}

std::vector<std::string> expand_algorithm_names(const std::vector<std::string>& names, Collective collective, Rank ranks,
                                                Rank ranks_per_node, SwitchesReduce reduce) {
  const bool every = names.size() == 1 && (names[0] == "all" || names[0] == "auto");
  std::vector<std::string> out;
  if (!every) {
    for (const std::string& name : names) {
      const AlgorithmEntry& a = find_algorithm(name);
      if (!a.supports(collective))
        throw Error(fmt::format("algorithm '{}' does not implement {}", name, to_string(collective)));
      out.push_back(name);
    }
    return out;
  }
  for (const AlgorithmEntry& a : algorithm_table())
    if (a.supports(collective) && a.runs_on(ranks, ranks_per_node) && a.has_switches(reduce, ranks_per_node))
      out.emplace_back(a.name);
  return out;
}

// One channel's request: its share of the bytes (the largest part), its segments resolved.
namespace {
ScheduleRequest one_channel(const AlgorithmEntry& algorithm, const ScheduleRequest& request) {
  ScheduleRequest r = request;
  r.segments = segments_for(algorithm, request);
  r.bytes = algorithms::channel_bytes(request.collective, request.bytes, request.ranks, channels_of(request), 0);
  r.channels = 1;
  return r;
}

}  // namespace

// C channels are C instances of one channel's schedule, side by side.
ScheduleSize estimated_size(const AlgorithmEntry& algorithm, const ScheduleRequest& request) {
  const ScheduleSize one = algorithm.size_bound(one_channel(algorithm, request));
  const double c = channels_of(request);
  return {c * one.transfers, c * one.elements, c * one.element_visits, c * one.dependencies, c * one.in_flight};
}

void check_schedule_fits(const AlgorithmEntry& algorithm, const ScheduleRequest& request) {
  const std::string problem = size_problem(estimated_size(algorithm, request), request.ranks);
  if (problem.empty()) return;
  std::vector<std::string_view> fitting;
  for (const AlgorithmEntry& a : algorithm_table())
    if (a.supports(request.collective) && a.runs_on(request.ranks, request.ranks_per_node) &&
        a.in_network == InNetwork::none && size_problem(estimated_size(a, request), request.ranks).empty())
      fitting.push_back(a.name);
  throw Error(fmt::format("{} {} on {} ranks of {} bytes is too large to build: {}; use fewer ranks{}{}", algorithm.name,
                          to_string(request.collective), request.ranks, request.bytes, problem,
                          algorithm.pipelined ? " or fewer --segments" : "",
                          fitting.empty() ? "" : fmt::format(", or an algorithm that fits: {}", fmt::join(fitting, ", "))));
}

bool AlgorithmEntry::supports(Collective c) const {
  return std::find(collectives.begin(), collectives.end(), c) != collectives.end();
}

const AlgorithmEntry* lookup_algorithm(std::string_view name) {
  for (const AlgorithmEntry& a : algorithm_table())
    if (a.name == name) return &a;
  return nullptr;
}

const AlgorithmEntry& find_algorithm(std::string_view name) {
  if (const AlgorithmEntry* a = lookup_algorithm(name)) return *a;
  std::vector<std::string_view> names;
  for (const AlgorithmEntry& a : algorithm_table()) names.push_back(a.name);
  throw Error(fmt::format("unknown algorithm '{}' (expected one of: {})", name, fmt::join(names, ", ")));
}

std::uint32_t default_segments(std::uint64_t bytes) {
  constexpr std::uint64_t kSegmentTarget = 1ull << 20;  // NCCL pipelines in slices of this order
  constexpr std::uint64_t kMaxSegments = 64;
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>((bytes + kSegmentTarget - 1) / kSegmentTarget, 1, kMaxSegments));
}

// The default is that of one channel's share: NCCL slices each channel's part of a step.
std::uint32_t segments_for(const AlgorithmEntry& algorithm, const ScheduleRequest& request) {
  if (!algorithm.pipelined) return 1;
  if (request.segments > 0) return request.segments;
  ScheduleRequest one = request;
  one.bytes = algorithms::channel_bytes(request.collective, request.bytes, request.ranks, channels_of(request), 0);
  return algorithm.segment_rule ? algorithm.segment_rule(one) : default_segments(one.bytes);
}

std::vector<std::string_view> algorithms_with_channels() {
  std::vector<std::string_view> names;
  for (const AlgorithmEntry& a : algorithm_table())
    if (a.takes_channels) names.push_back(a.name);
  return names;
}

void check_channels(const AlgorithmEntry& entry, const ScheduleRequest& request) {
  if (!request.channel_orders.empty() && !entry.takes_channels)
    throw Error(fmt::format("algorithm '{}' does not run in channels, so it takes no channel orders", entry.name));
  algorithms::check_channel_orders(request.channel_orders, request.ranks, request.channels);
  if (request.channels <= 1) return;
  if (request.channels > kMaxChannels)
    throw Error(fmt::format("--channels {} is more than the {} a schedule may run (NCCL's MAXCHANNELS); use fewer",
                            request.channels, kMaxChannels));
  if (!entry.takes_channels)
    throw Error(fmt::format("algorithm '{}' does not run in channels; --channels > 1 needs one of: {}", entry.name,
                            fmt::join(algorithms_with_channels(), ", ")));
  if (algorithms::channels_split_blocks(request.collective)) {
    if (request.ranks > 0 && request.bytes % request.ranks != 0)
      throw Error(fmt::format("--channels > 1 cuts each rank's block of an {} across the channels, so its bytes ({}) "
                              "must be a multiple of the ranks ({}); use --channels 1 or such a size",
                              to_string(request.collective), request.bytes, request.ranks));
    return;
  }
  if (!algorithms::collective_runs_in_channels(request.collective))
    throw Error(fmt::format("--channels > 1 splits an allreduce, broadcast, reduce, allgather or reduce-scatter, not {}; "
                            "use --channels 1",
                            to_string(request.collective)));
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
  check_channels(entry, request);
  if (!request.pair_bytes.empty())
    check_pair_bytes(request.pair_bytes, request.collective, request.ranks, request.bytes);
  check_schedule_fits(entry, request);
  ScheduleRequest r = request;
  r.segments = segments_for(entry, request);
  const bool instances = r.channels > 1 || !r.channel_orders.empty();
  return instances ? algorithms::with_channels(entry.generate, r) : entry.generate(r);
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
  info.pair_bytes = request.pair_bytes;
  return info;
}

}  // namespace algorithms
}  // namespace collsim
