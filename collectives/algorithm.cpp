// collectives/algorithm.cpp — the algorithm table and request validation.
#include "collectives/algorithm.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "collectives/algorithms/channels.hpp"
#include "collectives/algorithms/generators.hpp"
#include "collectives/closed_forms.hpp"
#include "collectives/transfer_stream.hpp"

namespace collsim {

using enum Collective;

namespace {

// Sizes, checked against the generators by tests/collectives/test_algorithms.cpp. A rank's
// buffer has at most `bytes` elements: empty chunks are never cut or sent.
double lg(Rank p) { return ceil_log2(p); }
double cut(const ScheduleRequest& r, double parts) { return std::max(1.0, std::min(parts, double(r.bytes))); }
ScheduleSize one_pass(double transfers, double elements) { return {transfers, elements, transfers}; }

// Rings cut each of their P chunks into S slices, and send each slice once per step.
ScheduleSize ring_size(const ScheduleRequest& r) {
  return one_pass(2.0 * r.ranks * (r.ranks - 1.0) * r.segments, cut(r, double(r.ranks) * r.segments));
}
ScheduleSize star_size(const ScheduleRequest& r) { return one_pass(2.0 * r.ranks, 1); }  // naive, binomial
// Trees and recursive doubling also cut a staging area (scratch) beside the data.
ScheduleSize tree_size(const ScheduleRequest& r) { return one_pass(3.0 * r.ranks * r.segments, 3 * cut(r, r.segments)); }
ScheduleSize chain_size(const ScheduleRequest& r) { return one_pass(2.0 * r.ranks * r.segments, 3 * cut(r, r.segments)); }
ScheduleSize two_tree_size(const ScheduleRequest& r) {
  return one_pass(6.0 * r.ranks * r.segments, 3 * cut(r, 2.0 * r.segments));
}
ScheduleSize doubling_size(const ScheduleRequest& r) { return one_pass(2.0 * r.ranks * (lg(r.ranks) + 2), 2); }
// Halving step k moves P/2^(k+1) blocks per rank: about P blocks per rank in each half.
ScheduleSize rabenseifner_size(const ScheduleRequest& r) {
  const double transfers = 2.0 * r.ranks * (lg(r.ranks) + 2), elements = cut(r, r.ranks);
  return {transfers, elements, transfers + 2.0 * r.ranks * elements};
}
// P parts cut into S segments: P S elements. Per segment each of the P parts is reduced by
// P GPUs, handed back, written back and copied to the P - 1 others: P (2P + 1) S transfers.
ScheduleSize nvls_size(const ScheduleRequest& r) {
  const double p = r.ranks;
  return one_pass(p * (2 * p + 1) * r.segments, cut(r, p * r.segments));
}

// Per node and segment: G parts reduced by G GPUs and handed to their owner, then written
// back and copied to the G - 1 others; the tree across nodes sends each part's segment up to
// 3 times per rank. The tree's staging slots are cut like the data.
ScheduleSize nvls_tree_size(const ScheduleRequest& r) {
  const double g = std::max<Rank>(r.ranks_per_node, 1);
  return one_pass(r.ranks * r.segments * (2 * g + 5), 3 * cut(r, g * r.segments));
}

// Per rank and segment: G + 1 transfers of the node's reduce-scatter, one up to the SHARP
// switch and one back, G of the multicast (its write and G - 1 copies).
ScheduleSize collnet_size(const ScheduleRequest& r) {
  const double g = std::max<Rank>(r.ranks_per_node, 1);
  return one_pass(r.ranks * r.segments * (2 * g + 3), cut(r, g * r.segments));
}

ScheduleSize hierarchical_size(const ScheduleRequest& r) {
  const double g = std::max<Rank>(r.ranks_per_node, 1);
  return one_pass(2.0 * r.ranks * (g + r.ranks / g) * r.segments, cut(r, double(r.ranks) * r.segments));
}

// Rings slice each step's message, N/P bytes (hierarchical-ring's rail steps carry N/P too,
// its node steps N/G, cut as many times), into slices of about 1 MiB: the size of a tree's
// segments, a tree edge carrying the whole buffer. Cutting the whole buffer instead would
// send a 64 MiB ring on 64 ranks as 16 KiB slices, paying an alpha per 16 KiB; by the step
// message, a ring stays unsliced while its steps are 1 MiB or less (a 4K allreduce, any
// ring of 16,384 ranks below 16 GiB), where a step's reduction is short anyway.
std::uint32_t ring_segments(const ScheduleRequest& r) { return default_segments(r.bytes / std::max<Rank>(r.ranks, 1)); }

std::uint32_t channels_of(const ScheduleRequest& r) { return std::max<std::uint32_t>(r.channels, 1); }

// The first limit a size breaks, in words, or "" when it fits.
std::string size_problem(const ScheduleSize& size, Rank ranks) {
  if (size.transfers > kMaxScheduleTransfers)
    return fmt::format("about {:.2g} transfers, more than the {:.0e} a schedule may hold in memory (~48 bytes each)",
                       size.transfers, kMaxScheduleTransfers);
  if (ranks * size.elements > kMaxElementRecords)
    return fmt::format("{:.2g} (rank, element) records to track ({} elements per rank), more than the {:.0e} "
                       "(~8 bytes each) that fit in memory",
                       ranks * size.elements, size.elements, kMaxElementRecords);
  if (size.element_visits > kMaxElementVisits)
    return fmt::format("about {:.2g} element visits, more than the {:.0e} (about a minute) a build may take",
                       size.element_visits, kMaxElementVisits);
  return "";
}

}  // namespace

const std::vector<AlgorithmEntry>& algorithm_table() {
  static const std::vector<AlgorithmEntry> table{
      {.name = "ring",
       .summary = "reduce-scatter then allgather around a ring, 2(P-1) steps, each sent in slices (seeds 000, 002)",
       .collectives = {allreduce, reduce_scatter, allgather},
       .generate = algorithms::ring,
       .size_bound = ring_size,
       .pipelined = true,
       .segment_rule = ring_segments,
       .sliced_steps = true,
       .takes_channels = true,
       .closed_form = closed_forms::ring,
       .stream = stream_ring},
      {.name = "naive",
       .summary = "single reducer: every rank sends to the root, which sends the result back (seed 000)",
       .collectives = {allreduce, reduce, broadcast},
       .generate = algorithms::naive,
       .size_bound = star_size,
       .closed_form = closed_forms::naive},
      {.name = "binomial",
       .summary = "binomial-tree reduce then binomial-tree broadcast, 2 ceil(lg P) steps (MPICH)",
       .collectives = {allreduce, reduce, broadcast},
       .generate = algorithms::binomial,
       .size_bound = star_size,
       .closed_form = closed_forms::binomial},
      {.name = "tree",
       .summary = "binary tree (NCCL's) reduce then broadcast, pipelined in segments",
       .collectives = {allreduce, reduce, broadcast},
       .generate = algorithms::tree,
       .size_bound = tree_size,
       .pipelined = true,
       .takes_channels = true,
       .trees = algorithms::tree_trees},
      {.name = "two-tree",
       .summary = "double binary tree: two complementary trees carry half the data each (NCCL)",
       .collectives = {allreduce},
       .generate = algorithms::two_tree,
       .size_bound = two_tree_size,
       .pipelined = true,
       .takes_channels = true,
       .trees = algorithms::two_tree_trees},
      {.name = "chain",
       .summary = "broadcast or reduce along a chain from the root, pipelined in segments (NCCL's ring for both)",
       .collectives = {reduce, broadcast},
       .generate = algorithms::chain,
       .size_bound = chain_size,
       .pipelined = true,
       .trees = algorithms::chain_trees},
      {.name = "recursive-doubling",
       .summary = "pairwise exchange of the whole buffer at distance 1, 2, 4, ...",
       .collectives = {allreduce},
       .generate = algorithms::recursive_doubling,
       .size_bound = doubling_size,
       .closed_form = closed_forms::recursive_doubling},
      {.name = "rabenseifner",
       .summary = "recursive-halving reduce-scatter then recursive-doubling allgather",
       .collectives = {allreduce},
       .generate = algorithms::rabenseifner,
       .size_bound = rabenseifner_size,
       .closed_form = closed_forms::rabenseifner},
      {.name = "hierarchical-ring",
       .summary = "ring inside each node, ring across nodes, ring inside again, each step sent in slices",
       .collectives = {allreduce},
       .generate = algorithms::hierarchical_ring,
       .size_bound = hierarchical_size,
       .pipelined = true,
       .segment_rule = ring_segments,
       .needs_ranks_per_node = true,
       .sliced_steps = true,
       .closed_form = closed_forms::hierarchical_ring,
       .stream = stream_hierarchical_ring},
      {.name = "nvls",
       .summary = "NVLink SHARP inside one node: each part reduced in the NVSwitch, its owner writes the sum back, the switch "
                  "multicasts it (NCCL's NVLS)",
       .collectives = {allreduce},
       .generate = algorithms::nvls,
       .size_bound = nvls_size,
       .pipelined = true,
       .closed_form = closed_forms::nvls,
       .in_network = InNetwork::node_switch,
       .within_one_node = true},
      {.name = "nvls-tree",
       .summary = "NVLS reduce-scatter in each node, binary tree across nodes per rail, NVLS multicast back (NCCL)",
       .collectives = {allreduce},
       .generate = algorithms::nvls_tree,
       .size_bound = nvls_tree_size,
       .pipelined = true,
       .needs_ranks_per_node = true,
       .in_network = InNetwork::node_switch},
      {.name = "collnet",
       .summary = "NVLS reduce-scatter in each node, InfiniBand SHARP across nodes per rail, NVLS multicast back "
                  "(NCCL's CollNet direct)",
       .collectives = {allreduce},
       .generate = algorithms::collnet,
       .size_bound = collnet_size,
       .pipelined = true,
       .needs_ranks_per_node = true,
       .closed_form = closed_forms::collnet,
       .in_network = InNetwork::fabric},
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
  r.bytes = algorithms::channel_data(request.bytes, channels_of(request), 0).bytes;
  r.channels = 1;
  return r;
}

}  // namespace

// C channels are C instances of one channel's schedule, side by side.
ScheduleSize estimated_size(const AlgorithmEntry& algorithm, const ScheduleRequest& request) {
  const ScheduleSize one = algorithm.size_bound(one_channel(algorithm, request));
  const double c = channels_of(request);
  return {c * one.transfers, c * one.elements, c * one.element_visits};
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

// The default is that of one channel's share: NCCL slices each channel's part of a step.
std::uint32_t segments_for(const AlgorithmEntry& algorithm, const ScheduleRequest& request) {
  if (!algorithm.pipelined) return 1;
  if (request.segments > 0) return request.segments;
  ScheduleRequest one = request;
  one.bytes = algorithms::channel_data(request.bytes, channels_of(request), 0).bytes;
  return algorithm.segment_rule ? algorithm.segment_rule(one) : default_segments(one.bytes);
}

std::vector<std::string_view> algorithms_with_channels() {
  std::vector<std::string_view> names;
  for (const AlgorithmEntry& a : algorithm_table())
    if (a.takes_channels) names.push_back(a.name);
  return names;
}

void check_channels(const AlgorithmEntry& entry, const ScheduleRequest& request) {
  if (request.channels <= 1) return;
  if (request.channels > kMaxChannels)
    throw Error(fmt::format("--channels {} is more than the {} a schedule may run (NCCL's MAXCHANNELS); use fewer",
                            request.channels, kMaxChannels));
  if (!entry.takes_channels)
    throw Error(fmt::format("algorithm '{}' does not run in channels; --channels > 1 needs one of: {}", entry.name,
                            fmt::join(algorithms_with_channels(), ", ")));
  if (request.collective != Collective::allreduce)
    throw Error(fmt::format("--channels > 1 splits an allreduce only, not {} (each rank's block would be cut across "
                            "channels); use --channels 1",
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
  check_schedule_fits(entry, request);
  ScheduleRequest r = request;
  r.segments = segments_for(entry, request);
  return r.channels > 1 ? algorithms::with_channels(entry.generate, r) : entry.generate(r);
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
