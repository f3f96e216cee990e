// sim/pair_pricing.cpp — the choice between a flat network's classes and a fabric's routes
// (see the header), and the stand-in each gives the closed forms.
#include "sim/pair_pricing.hpp"

#include <limits>

namespace collsim {
namespace {

std::variant<ClassPricing, RoutePricing> choose(const Topology& topology, double gamma_s_per_byte,
                                                const Protocol& protocol) {
  // Kept branch (docs/design.md, "One priced run"), the one that chooses how a pair is priced:
  // a flat network's routes cost exactly its classes, so priced by them its ranks need no routes
  // (an implicit one above kMaxFlatGraphRanks has none), a message costs no route lookup, and the
  // closed forms get the classes as the user gave them (rank 0's cheapest routes would fold
  // the two classes into one where the ranks fill one node).
  if (topology.flat) return ClassPricing(*topology.flat, gamma_s_per_byte, protocol);
  return RoutePricing(topology, gamma_s_per_byte, protocol);
}

}  // namespace

ClassPricing::ClassPricing(const CostModel& classes, double gamma_s_per_byte, const Protocol& protocol)
    : sent_(with_protocol(classes, protocol)) {
  sent_.gamma_s_per_byte = gamma_s_per_byte;
}

CostModel RoutePricing::stand_in(std::uint64_t message_bytes) const {
  const Topology& t = *topology_;
  constexpr double kNone = std::numeric_limits<double>::infinity();
  LinkCost intra{kNone, kNone}, inter{kNone, kNone};
  for (Rank r = 1; r < t.ranks(); ++r) {
    const LinkCost c = pair_cost(t, 0, r, message_bytes, protocol_);
    LinkCost& best = t.node_of(r) == t.node_of(0) ? intra : inter;
    best.alpha_s = std::min(best.alpha_s, c.alpha_s);
    best.beta_s_per_byte = std::min(best.beta_s_per_byte, c.beta_s_per_byte);
  }
  if (inter.alpha_s == kNone) inter = intra.alpha_s == kNone ? LinkCost{} : intra;
  if (intra.alpha_s == kNone) intra = inter;
  CostModel model{inter, intra, reduction_s_per_byte(t, 0, gamma_s_per_byte_), 0};
  // hierarchical-ring assumes ranks n*G..n*G+G-1 share node n; placement decides if they do.
  model.ranks_per_node = t.endpoints_per_node;
  return model;
}

std::vector<double> RoutePricing::memory_floors(Rank ranks) const {
  std::vector<double> floor(ranks);
  for (Rank r = 0; r < ranks; ++r) floor[r] = reduction_s_per_byte(*topology_, r, 0);
  return floor;
}

PairPricing::PairPricing(const Topology& topology, double gamma_s_per_byte, const Protocol& protocol)
    : how_(choose(topology, gamma_s_per_byte, protocol)) {}

CostModel equivalent_cost_model(const Topology& topology, double gamma_s_per_byte, std::uint64_t message_bytes,
                                const Protocol& protocol) {
  return PairPricing(topology, gamma_s_per_byte, protocol).stand_in(message_bytes);
}

}  // namespace collsim
