// sim/cost_rule.hpp — the one cost rule: the only code that turns a link's numbers (its
// bandwidth_Bps, its latency_s, its class's alpha_s, efficiency and size factors) into time.
// Every engine asks it, and so does the SimGrid platform (docs/design.md section 3,
// docs/semantics.md):
//   alone:  a message of s bytes on a route first pays its start-up, the largest class alpha on
//           the route (once) plus the sum of its hop latencies, each times its class's latency
//           factor at s; then drains at the route's bottleneck, the smallest of bandwidth_Bps x
//           efficiency x bandwidth factor at s over its links. A slice of a pipelined
//           transfer (S slices back to back) takes its latency factors at its own size but its
//           bandwidth factors at the transfer's, S x s: the slices stream together, in the regime
//           (protocol, caches) of the whole transfer, while each still pays its own start-up. The analytic engine charges
//           start-up + s / bottleneck (as alpha + s * beta); the flow engine and SimGrid pay the
//           start-up before the bytes move.
//   shared: each link offers bandwidth_Bps x efficiency (its class's), divided max-min fairly
//           among the flows crossing it (the flow engine's MaxMinSharing, SimGrid's link
//           bandwidth); a flow never drains faster than its bandwidth alone, which its size
//           factors may make lower than any link's capacity: the flow engine then bounds the
//           flow, SimGrid sets the communication's rate (Comm::set_rate).
// Efficiency belongs to the link (framing and protocol take that share of every byte it
// carries); size factors belong to the message (a small message cannot fill the pipe). A
// message that is one half of an exchange (its receiver sends to its sender in the same step:
// collectives/transfer_context.hpp) takes its class's exchange_factors instead, where the class has
// them: both ranks then send and receive at once, and a CPU rank handles both messages'
// handshakes and copies on one core (validate/README.md has the measurements).
// With efficiency 1 and no size factors this is the datasheet rule, unchanged.
// A run's protocol (sim/protocol.hpp: LL, LL128, Simple) acts on every link alike: each
// message's alpha times its start-up factor, and every link's rate, alone and shared, times
// its payload fraction (the share of the wire's bytes that are data). Simple changes nothing.
// A rank's memory (topologies/topology.hpp, where the config gives memory_bandwidth_Bps) is a
// link of its own on every route into or out of the rank: no size factors, no protocol (it
// holds data, not the wire's lines). A reduction of b bytes moves 3b bytes through it (reads
// both operands, writes the result) at no more than 3/gamma, its reduction unit's pace: alone
// it takes b x max(gamma, 3 / memory bandwidth); shared, it takes its max-min share of the
// memory beside the rank's transfers (docs/semantics.md, "The rank's memory"). The cluster's
// reduction factors scale gamma by the reduction's size (data in cache reduces faster), and
// its reduction_into_sent_factors for a reduction into data its rank has just sent.
// A rank's core (where the config gives core_copy_Bps instead: a CPU rank that copies what
// it receives) is that link on the receiving end of every route only, and a reduction crosses
// it as b x gamma x core_copy_Bps bytes: alone it takes b x gamma, beside a receive the two
// share the core (docs/semantics.md, "The rank's core").
// Touches nothing but its arguments (and the cache an engine keeps per route).
#pragma once

#include <cstdint>
#include <limits>
#include <span>

#include "collectives/cost_model.hpp"
#include "collectives/transfer_context.hpp"
#include "sim/protocol.hpp"
#include "topologies/network.hpp"
#include "topologies/topology.hpp"

namespace collsim {

// The bandwidth of an empty route (both ranks on one vertex): nothing limits it.
inline constexpr double kNoBottleneck_Bps = std::numeric_limits<double>::infinity();

// What one message pays on a route it has to itself.
struct RouteCost {
  double startup_s = 0;                       // largest class alpha + summed hop latencies
  double bandwidth_Bps = kNoBottleneck_Bps;   // the bottleneck

  // The analytic engine's form: alpha = start-up, beta = 1 / bandwidth (0 on an empty route).
  LinkCost as_link_cost() const { return {startup_s, bandwidth_Bps == kNoBottleneck_Bps ? 0.0 : 1.0 / bandwidth_Bps}; }
};

// A message of `bytes` alone on `route` (the links it crosses, in order), one of the `segments`
// slices of a pipelined transfer (1: a message on its own), sent with `protocol`;
// `exchange_half`: one half of an exchange (exchange_factors where its classes have them).
RouteCost route_cost(const Network& network, std::span<const LinkId> route, std::uint64_t bytes, std::uint32_t segments,
                     const Protocol& protocol, bool exchange_half = false);

// What a step from `src` to `dst` crosses (flow 0's route), as a collective library tells
// transports apart (the runtime's step latency, sim/runtime.hpp): unknown where no cable says.
Transport pair_transport(const Topology& topology, Rank src, Rank dst);

// What `link` offers the flows that share it, in data bytes/s under `protocol`.
double shared_capacity_Bps(const Network& network, LinkId link, const Protocol& protocol);

// A route's cost at the last message size (and exchange or not) asked. A rank pair mostly
// sends one size (a ring's chunks), so the engines keep one of these per pair and ask the rule
// again only when the size changes: the rule stays a function of the size without costing
// the engines' speed.
// The segment count is one per run (the schedule's), so it is not part of the key.
// The protocol, like the segments, is one per run.
class RouteCostCache {
 public:
  const RouteCost& at(const Network& network, std::span<const LinkId> route, std::uint64_t bytes,
                      std::uint32_t segments, const Protocol& protocol, bool exchange_half = false) {
    if (!valid_ || bytes != bytes_ || exchange_half != exchange_half_) {
      cost_ = route_cost(network, route, bytes, segments, protocol, exchange_half);
      bytes_ = bytes;
      exchange_half_ = exchange_half;
      valid_ = true;
    }
    return cost_;
  }

 private:
  RouteCost cost_;
  std::uint64_t bytes_ = 0;
  bool exchange_half_ = false;
  bool valid_ = false;
};

// The largest message size: what the rule gives for large messages (the last size-factor row).
inline constexpr std::uint64_t kLargeMessage = std::uint64_t(1) << 62;

// Bytes a reduction moves through its rank's memory per byte reduced: both operands read, the
// result written.
inline constexpr double kReductionMemoryBytes = 3;

// The memory rate a rank's reduction unit can draw: 3 / gamma (infinite with gamma 0).
double reduction_rate_cap_Bps(double gamma_s_per_byte);

// A reduction of `bytes` at `gamma_s_per_byte` (reduction_gamma) as a flow on its rank's own
// link (Topology::models_memory): with memory, 3 bytes per byte at no more than 3 / gamma; with
// a core, bytes x gamma x the core's rate (its time alone: bytes x gamma), rounded to whole
// bytes as SimGrid counts a message's, one at least (a byte of a core is a fraction of a
// nanosecond), at no more than the core's rate.
struct ReductionFlow {
  double bytes = 0;
  double cap_Bps = 0;
};
ReductionFlow reduction_flow(const Topology& topology, double gamma_s_per_byte, std::uint64_t bytes);

// The reduction unit's seconds per byte for a reduction of `bytes`, one of the `segments` slices of
// a pipelined transfer (1: a transfer on its own): gamma times the cluster's reduction factor
// at the transfer's size, segments x bytes (Topology::reduction_factors; 1 without them). As a
// slice streams in the regime of its whole transfer, so does its reduction: a 1 MiB slice of
// a 16 MiB tree is reduced from memory, not from the caches a lone 1 MiB reduction stays in
// (validate/README.md has a node's figures).
// `into_sent`: a reduction into data its rank has just sent (collectives/transfer_context.hpp),
// which takes reduction_into_sent_factors where the cluster has them.
double reduction_gamma(const Topology& topology, double gamma_s_per_byte, std::uint64_t bytes, std::uint32_t segments,
                       bool into_sent = false);

// Seconds per byte a reduction of `bytes` on `rank` takes alone: reduction_gamma, or with the
// rank's memory modelled, max(reduction_gamma, 3 / its memory bandwidth) (with a core:
// reduction_gamma, to the byte).
double reduction_s_per_byte(const Topology& topology, Rank rank, double gamma_s_per_byte,
                            std::uint64_t bytes = std::uint64_t(1) << 62, bool into_sent = false);

// What the route between two ranks offers (flow id 0's route) to a message of `bytes`: the
// start-up as alpha, 1 / the bottleneck as beta. For `collsim topo --route` and the flat
// stand-in (sim/pair_pricing.hpp equivalent_cost_model).
LinkCost pair_cost(const Topology& topology, Rank src, Rank dst, std::uint64_t bytes = kLargeMessage,
                   const Protocol& protocol = simple_protocol());

// Which of a schedule's transfers the rule prices apart on this topology: exchange halves
// where a link class has exchange_factors, reductions into sent data where the cluster has
// reduction_into_sent_factors (collectives/transfer_context.hpp); nothing is computed for the
// rest.
TransferContext context_for(const Schedule& schedule, const Topology& topology);
// Whether it prices any transfer by its context: a stream cannot tell it, so such a topology
// holds its schedules.
bool prices_transfer_context(const Topology& topology);

// 1 / the most data a rank can move per second through its own links under `protocol`: the
// smaller of the summed capacities of the links leaving its vertex and of those entering it.
// A GPU with NVLink and its own NIC sends through both at once (NCCL's channels do), so no
// single route's bottleneck bounds it; the lower bound (sim/prediction.cpp) uses this. Where
// ranks have memory links, sends and receives both cross the rank's: 2 / its bandwidth at least.
double rank_port_beta(const Topology& topology, Rank rank, const Protocol& protocol = simple_protocol());

}  // namespace collsim
