// collectives/closed_forms.cpp — one short function per algorithm.
#include "collectives/closed_forms.hpp"

#include <algorithm>

#include "collectives/algorithm.hpp"
#include "collectives/partition.hpp"

namespace collsim {
namespace {

struct Terms {  // the three constants of a uniform model, and N, P as doubles
  double a, b, g, n, p;
};

// The terms of a uniform model; the flat forms hold only there.
std::optional<Terms> uniform(const CostModel& cost, Rank ranks, double n) {
  if (!cost.is_uniform()) return std::nullopt;
  return Terms{cost.inter_node.alpha_s, cost.inter_node.beta_s_per_byte, cost.gamma_s_per_byte, n, double(ranks)};
}

// The extra cost of folding P down to a power of two and back (fold.hpp).
double fold(const Terms& t, Rank ranks) {
  return is_power_of_two(ranks) ? 0.0 : (t.a + t.n * (t.b + t.g)) + (t.a + t.n * t.b);
}

// Reduce then broadcast, or one of them, for the rooted algorithms.
double rooted(Collective c, double reduce, double broadcast) {
  if (c == Collective::reduce) return reduce;
  if (c == Collective::broadcast) return broadcast;
  return reduce + broadcast;
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

namespace closed_forms {

std::optional<double> ring(Collective c, Rank ranks, double n, const CostModel& cost) {
  const auto t = uniform(cost, ranks, n);
  if (!t) return std::nullopt;
  const double steps = t->p - 1, piece = t->n / t->p;
  const double reduce_scatter = steps * (t->a + piece * (t->b + t->g));
  const double allgather = steps * (t->a + piece * t->b);
  if (c == Collective::reduce_scatter) return reduce_scatter;
  if (c == Collective::allgather) return allgather;
  return reduce_scatter + allgather;
}

std::optional<double> naive(Collective c, Rank ranks, double n, const CostModel& cost) {
  const auto t = uniform(cost, ranks, n);
  if (!t) return std::nullopt;
  return rooted(c, (t->p - 1) * (t->a + t->n * (t->b + t->g)), (t->p - 1) * (t->a + t->n * t->b));
}

std::optional<double> binomial(Collective c, Rank ranks, double n, const CostModel& cost) {
  const auto t = uniform(cost, ranks, n);
  if (!t) return std::nullopt;
  const double levels = ceil_log2(ranks);
  return rooted(c, levels * (t->a + t->n * (t->b + t->g)), levels * (t->a + t->n * t->b));
}

std::optional<double> recursive_doubling(Collective, Rank ranks, double n, const CostModel& cost) {
  const auto t = uniform(cost, ranks, n);
  if (!t) return std::nullopt;
  return floor_log2(ranks) * (t->a + t->n * (t->b + t->g)) + fold(*t, ranks);
}

std::optional<double> rabenseifner(Collective, Rank ranks, double n, const CostModel& cost) {
  const auto t = uniform(cost, ranks, n);
  if (!t) return std::nullopt;
  const double pof2 = double(Rank(1) << floor_log2(ranks)), levels = floor_log2(ranks);
  const double moved = (pof2 - 1) / pof2 * t->n;
  return 2 * levels * t->a + 2 * moved * t->b + moved * t->g + fold(*t, ranks);
}

// Phases 1 and 3 on each node's ring (intra-node links), phase 2 on each rail (inter-node).
std::optional<double> hierarchical_ring(Collective, Rank ranks, double n, const CostModel& cost) {
  const Rank g = cost.ranks_per_node;
  if (g == 0 || ranks % g != 0) return std::nullopt;
  const double m = ranks / g, node_chunk = n / g, rail_chunk = node_chunk / m;
  const LinkCost& in = cost.intra_node;
  const LinkCost& out = cost.inter_node;
  const double intra_rs = (g - 1) * (in.alpha_s + node_chunk * (in.beta_s_per_byte + cost.gamma_s_per_byte));
  const double inter_ar = (m - 1) * (2 * out.alpha_s + rail_chunk * (2 * out.beta_s_per_byte + cost.gamma_s_per_byte));
  const double intra_ag = (g - 1) * (in.alpha_s + node_chunk * in.beta_s_per_byte);
  return intra_rs + inter_ar + intra_ag;
}

}  // namespace closed_forms

std::optional<double> closed_form_time(std::string_view algorithm, Collective collective, Rank ranks,
                                       std::uint64_t bytes, const CostModel& cost) {
  const ClosedForm form = find_algorithm(algorithm).closed_form;
  if (!form) return std::nullopt;
  if (ranks <= 1 || bytes == 0) return 0.0;  // nothing to move: no message is sent
  return form(collective, ranks, double(bytes), cost);
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
