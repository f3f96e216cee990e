// collectives/closed_forms.cpp — one short function per algorithm.
#include "collectives/closed_forms.hpp"

#include <algorithm>

#include "collectives/partition.hpp"

namespace collsim {
namespace {

struct Terms {  // the three constants of a uniform model, and N, P as doubles
  double a, b, g, n, p;
};

double ring(Collective c, const Terms& t) {
  const double steps = t.p - 1, piece = t.n / t.p;
  const double reduce_scatter = steps * (t.a + piece * (t.b + t.g));
  const double allgather = steps * (t.a + piece * t.b);
  if (c == Collective::reduce_scatter) return reduce_scatter;
  if (c == Collective::allgather) return allgather;
  return reduce_scatter + allgather;
}

double naive(Collective c, const Terms& t) {
  const double reduce = (t.p - 1) * (t.a + t.n * (t.b + t.g));
  const double broadcast = (t.p - 1) * (t.a + t.n * t.b);
  if (c == Collective::reduce) return reduce;
  if (c == Collective::broadcast) return broadcast;
  return reduce + broadcast;
}

double binomial(Collective c, const Terms& t, Rank ranks) {
  const double levels = ceil_log2(ranks);
  const double reduce = levels * (t.a + t.n * (t.b + t.g));
  const double broadcast = levels * (t.a + t.n * t.b);
  if (c == Collective::reduce) return reduce;
  if (c == Collective::broadcast) return broadcast;
  return reduce + broadcast;
}

// The extra cost of folding P down to a power of two and back (fold.hpp).
double fold(const Terms& t, Rank ranks) {
  return is_power_of_two(ranks) ? 0.0 : (t.a + t.n * (t.b + t.g)) + (t.a + t.n * t.b);
}

double recursive_doubling(const Terms& t, Rank ranks) {
  const double levels = floor_log2(ranks);
  return levels * (t.a + t.n * (t.b + t.g)) + fold(t, ranks);
}

double rabenseifner(const Terms& t, Rank ranks) {
  const double pof2 = double(Rank(1) << floor_log2(ranks)), levels = floor_log2(ranks);
  const double moved = (pof2 - 1) / pof2 * t.n;
  return 2 * levels * t.a + 2 * moved * t.b + moved * t.g + fold(t, ranks);
}

// Phases 1 and 3 on each node's ring (intra-node links), phase 2 on each rail (inter-node).
double hierarchical_ring(const CostModel& cost, Rank ranks, double n) {
  const Rank g = cost.ranks_per_node;
  if (g == 0 || ranks % g != 0) return -1;
  const double m = ranks / g, node_chunk = n / g, rail_chunk = node_chunk / m;
  const LinkCost& in = cost.intra_node;
  const LinkCost& out = cost.inter_node;
  const double intra_rs = (g - 1) * (in.alpha_s + node_chunk * (in.beta_s_per_byte + cost.gamma_s_per_byte));
  const double inter_ar = (m - 1) * (2 * out.alpha_s + rail_chunk * (2 * out.beta_s_per_byte + cost.gamma_s_per_byte));
  const double intra_ag = (g - 1) * (in.alpha_s + node_chunk * in.beta_s_per_byte);
  return intra_rs + inter_ar + intra_ag;
}

// Busy time some rank's ports and some rank's reduction unit cannot avoid. Ports: every rank
// receives at least ceil(lg P) messages (with one port, what a rank knows at most doubles
// per message) and, for allreduce, 2(P-1)/P N bytes (Patarasuk & Yuan 2009). Reducer: the
// (P-1) N byte-reductions, shared by P ranks at best. The cheaper link class is assumed.
struct ResourceBounds {
  double port = 0, reducer = 0;
};

ResourceBounds resource_bounds(Collective collective, Rank ranks, std::uint64_t bytes, const CostModel& cost) {
  if (ranks <= 1 || bytes == 0) return {};
  const double a = std::min(cost.inter_node.alpha_s, cost.intra_node.alpha_s);
  const double b = std::min(cost.inter_node.beta_s_per_byte, cost.intra_node.beta_s_per_byte);
  const double n = double(bytes), share = (ranks - 1.0) / ranks, latency = ceil_log2(ranks) * a;
  switch (collective) {
    case Collective::allreduce: return {latency + 2 * share * n * b, share * n * cost.gamma_s_per_byte};
    case Collective::reduce_scatter: return {latency + share * n * b, share * n * cost.gamma_s_per_byte};
    case Collective::allgather: return {latency + share * n * b, 0};
    case Collective::broadcast: return {latency + n * b, 0};
    case Collective::reduce: return {latency + n * b, share * n * cost.gamma_s_per_byte};
  }
  return {latency, 0};
}

}  // namespace

std::optional<double> closed_form_time(std::string_view algorithm, Collective collective, Rank ranks,
                                       std::uint64_t bytes, const CostModel& cost) {
  if (ranks <= 1 || bytes == 0) return 0.0;  // nothing to move: no message is sent
  const double n = double(bytes);
  if (algorithm == "hierarchical-ring") {
    const double t = hierarchical_ring(cost, ranks, n);
    return t < 0 ? std::nullopt : std::optional<double>(t);
  }
  if (!cost.is_uniform()) return std::nullopt;
  const Terms t{cost.inter_node.alpha_s, cost.inter_node.beta_s_per_byte, cost.gamma_s_per_byte, n, double(ranks)};
  if (algorithm == "ring") return ring(collective, t);
  if (algorithm == "naive") return naive(collective, t);
  if (algorithm == "binomial") return binomial(collective, t, ranks);
  if (algorithm == "recursive-doubling") return recursive_doubling(t, ranks);
  if (algorithm == "rabenseifner") return rabenseifner(t, ranks);
  return std::nullopt;
}

double classic_lower_bound_time(Collective collective, Rank ranks, std::uint64_t bytes, const CostModel& cost) {
  const ResourceBounds b = resource_bounds(collective, ranks, bytes, cost);
  return b.port + b.reducer;
}

double lower_bound_time(Collective collective, Rank ranks, std::uint64_t bytes, const CostModel& cost) {
  const ResourceBounds b = resource_bounds(collective, ranks, bytes, cost);
  return std::max(b.port, b.reducer);
}

}  // namespace collsim
