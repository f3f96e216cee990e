// topologies/placement.cpp — rank -> endpoint maps.
#include "topologies/placement.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "base/error.hpp"
#include "topologies/routing.hpp"

namespace collsim {
namespace {

// Endpoints are node-major (node n holds per_node consecutive endpoints), so with
// ranks <= endpoints every slot r / nodes stays inside its node.
std::vector<std::uint32_t> round_robin(Rank ranks, std::uint32_t endpoints, std::uint32_t per_node) {
  per_node = std::max(per_node, 1u);
  const std::uint32_t nodes = endpoints / per_node;
  std::vector<std::uint32_t> out(ranks);
  for (Rank r = 0; r < ranks; ++r) out[r] = (r % nodes) * per_node + r / nodes;
  return out;
}

std::vector<std::uint32_t> seeded_permutation(Rank ranks, std::uint32_t endpoints, std::uint64_t seed) {
  std::vector<std::uint32_t> all(endpoints);
  std::iota(all.begin(), all.end(), 0u);
  for (std::uint32_t i = endpoints; i > 1; --i) {
    const std::uint32_t j = std::uint32_t(flow_hash(i, endpoints, 0x91acu, seed) % i);
    std::swap(all[i - 1], all[j]);
  }
  all.resize(ranks);
  return all;
}

std::vector<std::uint32_t> checked_list(const std::vector<std::uint32_t>& list, Rank ranks, std::uint32_t endpoints) {
  if (list.size() != ranks)
    throw Error(fmt::format("explicit placement lists {} endpoints for {} ranks", list.size(), ranks));
  std::vector<bool> used(endpoints, false);
  for (std::uint32_t e : list) {
    if (e >= endpoints) throw Error(fmt::format("explicit placement: endpoint {} does not exist (0..{})", e, endpoints - 1));
    if (used[e]) throw Error(fmt::format("explicit placement: endpoint {} is listed twice", e));
    used[e] = true;
  }
  return list;
}

}  // namespace

std::string_view to_string(Placement::Kind kind) {
  switch (kind) {
    case Placement::Kind::linear: return "linear";
    case Placement::Kind::round_robin: return "round-robin";
    case Placement::Kind::random: return "random";
    case Placement::Kind::explicit_list: return "explicit";
  }
  return "?";
}

Placement::Kind parse_placement_kind(std::string_view name) {
  for (auto k : {Placement::Kind::linear, Placement::Kind::round_robin, Placement::Kind::random,
                 Placement::Kind::explicit_list})
    if (to_string(k) == name) return k;
  throw Error(fmt::format("unknown placement '{}' (linear, round-robin, random, explicit)", name));
}

std::string describe(const Placement& p) {
  if (p.kind == Placement::Kind::random) return fmt::format("random (seed {})", p.seed);
  return std::string(to_string(p.kind));
}

std::vector<std::uint32_t> place_ranks(const Placement& p, Rank ranks, std::uint32_t endpoints,
                                       std::uint32_t endpoints_per_node) {
  if (ranks > endpoints)
    throw Error(fmt::format("{} ranks do not fit on {} endpoints", ranks, endpoints));
  switch (p.kind) {
    case Placement::Kind::linear: {
      std::vector<std::uint32_t> out(ranks);
      std::iota(out.begin(), out.end(), 0u);
      return out;
    }
    case Placement::Kind::round_robin: return round_robin(ranks, endpoints, endpoints_per_node);
    case Placement::Kind::random: return seeded_permutation(ranks, endpoints, p.seed);
    case Placement::Kind::explicit_list: return checked_list(p.endpoints, ranks, endpoints);
  }
  return {};
}

}  // namespace collsim
