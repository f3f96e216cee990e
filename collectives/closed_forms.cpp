// collectives/closed_forms.cpp — what the algorithms' closed forms share (each algorithm's
// form is in its file), the lookup by name, and the lower bounds.
#include "collectives/closed_forms.hpp"

#include <algorithm>

#include "collectives/algorithm.hpp"
#include "collectives/collective_spec.hpp"
#include "collectives/partition.hpp"

namespace collsim {

namespace closed_forms {

std::optional<Terms> uniform(const CostModel& cost, Rank ranks, double n) {
  if (!cost.is_uniform()) return std::nullopt;
  return Terms{cost.inter_node.alpha_s, cost.inter_node.beta_s_per_byte, cost.gamma_s_per_byte, n, double(ranks)};
}

double fold(const Terms& t, Rank ranks) {
  return is_power_of_two(ranks) ? 0.0 : (t.a + t.n * (t.b + t.g)) + (t.a + t.n * t.b);
}

double rooted(Collective c, double reduce, double broadcast) {
  if (c == Collective::reduce) return reduce;
  if (c == Collective::broadcast) return broadcast;
  return reduce + broadcast;
}

}  // namespace closed_forms

namespace {

// Busy time some rank's ports and some rank's reduction unit cannot avoid. Ports: for
// allreduce every rank sends and receives 2(P-1)/P N bytes (Patarasuk & Yuan 2009), after at
// least one start-up; with one port a rank also receives at least ceil(lg P) messages one
// after another (what it knows at most doubles per message), so their start-ups add up.
// Without ports (the flow engine, SimGrid) start-ups overlap each other and other messages'
// bytes, so only one is certain. Reducer: the (P-1) N byte-reductions, shared by P ranks at
// best. The cheaper link class is assumed.
struct ResourceBounds {
  double port = 0, reducer = 0;
};

ResourceBounds resource_bounds(Collective collective, Rank ranks, std::uint64_t bytes, const CostModel& cost,
                               Ports ports, bool switches_reduce = false) {
  if (ranks <= 1 || moves_nothing(collective, ranks, bytes)) return {};
  if (switches_reduce) {
    // A switch may reduce: a rank's contribution to each byte still leaves it once, and the
    // result enters once (N each way for allreduce), and no rank need reduce anything.
    ResourceBounds b = resource_bounds(collective, ranks, bytes, cost, ports == Ports::one ? Ports::none : ports);
    if (collective == Collective::allreduce && ports != Ports::unshared) {
      const double a = std::min(cost.inter_node.alpha_s, cost.intra_node.alpha_s);
      const double beta = std::min(cost.inter_node.beta_s_per_byte, cost.intra_node.beta_s_per_byte);
      b.port = std::min(b.port, a + double(bytes) * beta);
    }
    return {b.port, 0};
  }
  if (ports == Ports::unshared) {  // every message at its route's full rate: only a start-up is certain
    const ResourceBounds b = resource_bounds(collective, ranks, bytes, cost, Ports::none);
    return {std::min(cost.inter_node.alpha_s, cost.intra_node.alpha_s), b.reducer};
  }
  const double a = std::min(cost.inter_node.alpha_s, cost.intra_node.alpha_s);
  const double b = std::min(cost.inter_node.beta_s_per_byte, cost.intra_node.beta_s_per_byte);
  // Alltoall moves whole blocks of floor(N / P) bytes (collective_spec.hpp).
  const double n = collective == Collective::alltoall ? double(bytes / ranks * ranks) : double(bytes);
  const double share = (ranks - 1.0) / ranks;
  const double latency = ports == Ports::one ? ceil_log2(ranks) * a : a;
  // The bytes every rank must send (or receive) are nccl-tests' bus-bandwidth factor times N:
  // 2(P-1)/P N for allreduce, (P-1)/P N for reduce-scatter, allgather and alltoall, N for
  // broadcast and reduce; a reducing collective also reduces (P-1)/P N bytes on some rank.
  const CollectiveSpec& spec = spec_of(collective);
  return {latency + spec.bus_factor(ranks) * n * b, spec.reduces ? share * n * cost.gamma_s_per_byte : 0};
}

}  // namespace


std::optional<double> closed_form_time(std::string_view algorithm, Collective collective, Rank ranks,
                                       std::uint64_t bytes, const CostModel& cost, std::uint32_t segments) {
  const AlgorithmEntry& entry = find_algorithm(algorithm);
  if (!entry.closed_form) return std::nullopt;
  if (ranks <= 1 || moves_nothing(collective, ranks, bytes)) return 0.0;  // no message is sent
  ScheduleRequest request;
  request.collective = collective;
  request.ranks = ranks;
  request.bytes = bytes;
  request.segments = segments;
  request.ranks_per_node = cost.ranks_per_node;
  return entry.closed_form(collective, ranks, double(bytes), cost, segments_for(entry, request));
}

double alltoallv_lower_bound(const std::vector<std::uint64_t>& pair_bytes, Rank ranks, const CostModel& cost,
                             Ports ports) {
  std::vector<std::uint64_t> sent(ranks, 0), received(ranks, 0);
  for (Rank from = 0; from < ranks; ++from)
    for (Rank to = 0; to < ranks; ++to)
      if (from != to) {
        sent[from] += pair_bytes[std::size_t(from) * ranks + to];
        received[to] += pair_bytes[std::size_t(from) * ranks + to];
      }
  const std::uint64_t busiest = std::max(*std::max_element(sent.begin(), sent.end()),
                                         *std::max_element(received.begin(), received.end()));
  if (busiest == 0) return 0;
  const double a = std::min(cost.inter_node.alpha_s, cost.intra_node.alpha_s);
  const double b = std::min(cost.inter_node.beta_s_per_byte, cost.intra_node.beta_s_per_byte);
  return ports == Ports::unshared ? a : a + double(busiest) * b;
}

double lower_bound_time(Collective collective, Rank ranks, std::uint64_t bytes, const CostModel& cost, Ports ports,
                        bool switches_reduce) {
  const ResourceBounds b = resource_bounds(collective, ranks, bytes, cost, ports, switches_reduce);
  return std::max(b.port, b.reducer);
}

}  // namespace collsim
