// sim/pair_pricing.hpp — how a message between two ranks is priced on a network, decided once
// per topology (docs/design.md, "One priced run"): by the two link classes a flat network was
// generated from (topologies/flat_network.hpp), or by the routes of any other, through the cost
// rule (sim/cost_rule.hpp). Its callers take the one value and never ask which it is:
//   stand_in: the two-class flat model of the closed forms and the lower bound
//             (equivalent_cost_model below);
//   price:    what the analytic engine's pass reads per message, per reduction and per transfer's
//             context (sim/analytic_engine.cpp), as concrete types, so its loop stays templated on
//             them: a lookup per message, no virtual call.
// Touches nothing but the topology it reads (and the route cache of one pricing).
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <variant>
#include <vector>

#include "collectives/cost_model.hpp"
#include "collectives/schedule.hpp"
#include "collectives/transfer_context.hpp"
#include "sim/cost_rule.hpp"
#include "sim/protocol.hpp"
#include "topologies/topology.hpp"

namespace collsim {

// A flat network's messages: its classes under the run's protocol, exactly what its routes
// would cost, with the cluster's gamma for every reduction (a flat network has no memory links
// and no reduction factors). Also the pricing of a bare CostModel (run_analytic's flat form).
class ClassPricing {
 public:
  // `classes`: alpha and beta of the two classes and the node size; their gamma is replaced.
  ClassPricing(const CostModel& classes, double gamma_s_per_byte, const Protocol& protocol);

  CostModel stand_in(std::uint64_t /*message_bytes: the classes price every size alike*/) const { return sent_; }

  // Calls `run(link, gamma, context)`: link(src, dst, bytes, exchange_half) -> LinkCost,
  // gamma(rank, bytes, into_sent) -> seconds per byte, context: none priced apart.
  template <class Run>
  auto price(const Schedule&, Run&& run) const {
    const auto link = [this](Rank a, Rank b, std::uint64_t, bool) -> const LinkCost& { return sent_.link(a, b); };
    const auto gamma = [this](Rank, std::uint64_t, bool) { return sent_.gamma_s_per_byte; };
    return run(link, gamma, TransferContext{});
  }

 private:
  CostModel sent_;
};

// Messages between ranks on a topology: each pair routed once (a schedule reuses few pairs
// many times), each message costed by the rule at its size (and as half of an exchange or not).
class RoutedPairs {
 public:
  // `segments`: the schedule's segments, for the cost rule (a slice streams with its transfer).
  RoutedPairs(const Topology& topology, std::uint32_t segments, const Protocol& protocol)
      : topology_(topology), segments_(segments), protocol_(protocol) {}

  LinkCost operator()(Rank src, Rank dst, std::uint64_t bytes, bool exchange_half) {
    auto [it, fresh] = pairs_.try_emplace((std::uint64_t(src) << 32) | dst);
    Pair& p = it->second;
    if (fresh) topology_.route(src, dst, 0, p.route);
    return p.cost.at(topology_.network, p.route, bytes, segments_, protocol_, exchange_half).as_link_cost();
  }

 private:
  struct Pair {
    std::vector<LinkId> route;
    RouteCostCache cost;
  };
  const Topology& topology_;
  std::uint32_t segments_;
  const Protocol& protocol_;
  std::unordered_map<std::uint64_t, Pair> pairs_;
};

// A built fabric's messages: each its route's cost by the rule; a reduction its rank's pace
// (reduction factors, and with the ranks' memory modelled, its floor 3 / memory bandwidth).
class RoutePricing {
 public:
  RoutePricing(const Topology& topology, double gamma_s_per_byte, const Protocol& protocol)
      : topology_(&topology), gamma_s_per_byte_(gamma_s_per_byte), protocol_(protocol) {}

  // The cheapest alpha and beta among rank 0's routes to its node and to other nodes.
  CostModel stand_in(std::uint64_t message_bytes) const;

  template <class Run>
  auto price(const Schedule& s, Run&& run) const {
    const std::uint32_t segments = s.info().segments;
    // A reduction's memory floor is its rank's (reduction_s_per_byte at gamma 0), worked out
    // once here rather than at each of a schedule's millions of reductions.
    const std::vector<double> floor = memory_floors(s.info().ranks);
    const auto gamma = [&](Rank r, std::uint64_t bytes, bool into_sent) {
      return std::max(reduction_gamma(*topology_, gamma_s_per_byte_, bytes, segments, into_sent), floor[r]);
    };
    RoutedPairs pairs(*topology_, segments, protocol_);
    return run(pairs, gamma, context_for(s, *topology_));
  }

 private:
  std::vector<double> memory_floors(Rank ranks) const;

  const Topology* topology_;
  double gamma_s_per_byte_;
  Protocol protocol_;
};

// The one choice between the two, made where it is built.
class PairPricing {
 public:
  PairPricing(const Topology& topology, double gamma_s_per_byte, const Protocol& protocol = simple_protocol());

  CostModel stand_in(std::uint64_t message_bytes = kLargeMessage) const {
    return std::visit([&](const auto& how) { return how.stand_in(message_bytes); }, how_);
  }
  template <class Run>
  auto price(const Schedule& s, Run&& run) const {
    return std::visit([&](const auto& how) { return how.price(s, run); }, how_);
  }

 private:
  std::variant<ClassPricing, RoutePricing> how_;
};

// The two-class flat model closest to this network for messages of `message_bytes`, for the
// closed forms and the lower bound (PairPricing::stand_in): a flat network's own classes,
// exactly; elsewhere the cheapest alpha and beta among rank 0's routes (pair_cost, its memory
// links included) to ranks on its node (intra) and on other nodes (inter), gamma rank 0's
// reduction alone (reduction_s_per_byte) and ranks_per_node the node size.
CostModel equivalent_cost_model(const Topology& topology, double gamma_s_per_byte,
                                std::uint64_t message_bytes = kLargeMessage, const Protocol& protocol = simple_protocol());

}  // namespace collsim
