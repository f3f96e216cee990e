// sim/cost_rule.cpp — the cost rule (see the header): the datasheet rule with each class's
// efficiency and size factors, and what the route between two ranks offers.
#include "sim/cost_rule.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace collsim {
namespace {

// The share of a link's bytes that are data under `protocol`: the wire's lines carry flags,
// a rank's memory holds the data alone.
double payload_of(const Link& link, const Protocol& protocol) {
  return link.kind == LinkKind::memory ? 1.0 : protocol.payload_fraction;
}

// A message of `bytes` on `route`: alpha is a per-message overhead, so the route pays its
// largest once; latencies add up hop by hop; the slowest link limits the bytes. Each link
// class contributes its efficiency (a share of its datasheet rate) and, on the cables a
// message crosses, the row of its size factors for this size: a factor on the bandwidth, and
// on the alpha and latency. A capacity link (a switch's backplane, a node's memory bus) is a
// budget every flow draws on, not a hop where a message's size costs it anything: no factors.
// The transport a route's step crosses, as a collective library tells them apart: a network
// where any cable is one (a GPU's PCIe hop to its NIC is part of a network step), else PCIe,
// else NVLink; unknown where no cable says.
Transport route_transport(const Network& network, std::span<const LinkId> route) {
  Transport widest = Transport::unknown;
  for (LinkId l : route) {
    const Link& link = network.link(l);
    if (link.kind != LinkKind::cable) continue;
    widest = std::max(widest, network.link_class(link.link_class).transport);
  }
  return widest;
}

RouteCost corrected_cost(const Network& network, std::span<const LinkId> route, std::uint64_t bytes,
                         std::uint32_t segments, const Protocol& protocol, bool exchange_half) {
  double alpha_s = 0, latency_s = 0, bottleneck_Bps = kNoBottleneck_Bps;
  const std::uint64_t transfer_bytes = bytes * std::max<std::uint32_t>(segments, 1);
  for (LinkId l : route) {
    const Link& link = network.link(l);
    const LinkClass& c = network.link_class(link.link_class);
    const bool capacity = link.kind != LinkKind::cable;
    const SizeFactor start = capacity ? SizeFactor{} : c.factor_at(bytes, exchange_half);
    const SizeFactor stream = capacity || transfer_bytes == bytes ? start : c.factor_at(transfer_bytes, exchange_half);
    alpha_s = std::max(alpha_s, c.alpha_s * start.latency * protocol.startup_factor);
    latency_s += link.latency_s * start.latency;
    bottleneck_Bps = std::min(bottleneck_Bps, link.bandwidth_Bps * c.efficiency * stream.bandwidth * payload_of(link, protocol));
  }
  // The library's step synchronization replaces the classes' alpha, and its rate per channel
  // caps the message (sim/runtime.hpp), on routes between GPUs (a known transport).
  if (protocol.step.active || protocol.rate.active())
    if (const Transport t = route_transport(network, route); t != Transport::unknown) {
      if (protocol.step.active) alpha_s = protocol.step.at(t);
      if (!protocol.rate.network_only || t == Transport::net)
        bottleneck_Bps = std::min(bottleneck_Bps, protocol.rate.cap_Bps);
    }
  return {alpha_s + latency_s, bottleneck_Bps};
}

// The route of flow 0 between two ranks (minimal and shortest-path routing ignore the flow id).
std::span<const LinkId> route_of(const Topology& topology, Rank src, Rank dst) {
  thread_local std::vector<LinkId> links;
  links.clear();
  topology.route(src, dst, 0, links);
  return links;
}

}  // namespace

RouteCost route_cost(const Network& network, std::span<const LinkId> route, std::uint64_t bytes, std::uint32_t segments,
                     const Protocol& protocol, bool exchange_half) {
  return corrected_cost(network, route, bytes, segments, protocol, exchange_half);
}

Transport pair_transport(const Topology& topology, Rank src, Rank dst) {
  return route_transport(topology.network, route_of(topology, src, dst));
}

// Efficiency is the link's own (its framing and protocol take that share of every byte it
// carries, whoever sends it); size factors belong to each message (route_cost), not the link.
// The protocol's payload fraction is every flow's alike, so it scales what the link offers.
double shared_capacity_Bps(const Network& network, LinkId link, const Protocol& protocol) {
  const Link& l = network.link(link);
  return l.bandwidth_Bps * network.link_class(l.link_class).efficiency * payload_of(l, protocol);
}

double reduction_rate_cap_Bps(double gamma_s_per_byte) {
  return gamma_s_per_byte > 0 ? kReductionMemoryBytes / gamma_s_per_byte : kNoBottleneck_Bps;
}

ReductionFlow reduction_flow(const Topology& topology, double gamma_s_per_byte, std::uint64_t bytes) {
  if (!topology.models_core())
    return {kReductionMemoryBytes * double(bytes), reduction_rate_cap_Bps(gamma_s_per_byte)};
  const double core_Bps = topology.network.link(topology.memory_links.front()).bandwidth_Bps;
  const double core_bytes = double(bytes) * gamma_s_per_byte * core_Bps;
  return {core_bytes > 0 ? std::max(1.0, std::round(core_bytes)) : 0.0, core_Bps};
}

double reduction_gamma(const Topology& topology, double gamma_s_per_byte, std::uint64_t bytes, std::uint32_t segments,
                       bool into_sent) {
  const std::uint64_t n = std::max<std::uint32_t>(segments, 1);
  const std::uint64_t whole = bytes > kLargeMessage / n ? kLargeMessage : bytes * n;
  return gamma_s_per_byte * topology.reduction_factor_at(whole, into_sent);
}

double reduction_s_per_byte(const Topology& topology, Rank rank, double gamma_s_per_byte, std::uint64_t bytes,
                            bool into_sent) {
  const double gamma = reduction_gamma(topology, gamma_s_per_byte, bytes, 1, into_sent);
  const LinkId memory = topology.memory_of(rank);
  if (memory == kNoLink || topology.models_core()) return gamma;
  return std::max(gamma, kReductionMemoryBytes / shared_capacity_Bps(topology.network, memory, simple_protocol()));
}

LinkCost pair_cost(const Topology& topology, Rank src, Rank dst, std::uint64_t bytes, const Protocol& protocol) {
  return corrected_cost(topology.network, route_of(topology, src, dst), bytes, 1, protocol, false).as_link_cost();
}

TransferContext context_for(const Schedule& schedule, const Topology& topology) {
  return transfer_context(schedule, topology.network.prices_exchanges(), topology.prices_reductions_into_sent());
}

bool prices_transfer_context(const Topology& topology) {
  return topology.network.prices_exchanges() || topology.prices_reductions_into_sent();
}

double rank_port_beta(const Topology& topology, Rank rank, const Protocol& protocol) {
  // Its cables as data (Topology::port_Bps), every flow's payload share of them alike.
  const double port_Bps = topology.port_Bps[topology.rank_endpoint[rank]] * protocol.payload_fraction;
  double beta = port_Bps > 0 ? 1.0 / port_Bps : 0.0;
  // Every byte sent is read from the rank's memory and every byte received written to it: as
  // many bytes each way cross it twice per byte of one direction. A core copies the received
  // bytes only.
  const double crossings = topology.models_core() ? 1.0 : 2.0;
  if (topology.models_memory())
    beta = std::max(beta, crossings / shared_capacity_Bps(topology.network, topology.memory_of(rank), protocol));
  return beta;
}

}  // namespace collsim
