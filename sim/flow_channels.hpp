// sim/flow_channels.hpp — the flow engine's flows and the rank-pair channels they drain on
// (internal to sim/flow_engine.cpp). A flow slot holds a transfer from the moment it is ready
// until its last byte drains; each (source, destination) pair is one in-order channel, on
// which one flow drains at a time and the others queue in order of start. Where routing
// ignores the flow id (minimal, shortest-path) a channel routes once and keeps its route;
// ECMP and Valiant route every transfer afresh. Start-ups come from the cost rule
// (sim/cost_rule.hpp). What happens when, and at what rate, is the simulation's.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/cost_rule.hpp"
#include "sim/flow_queue.hpp"
#include "topologies/topology.hpp"

namespace collsim::flow {

struct Flow {
  TransferId transfer = 0;
  std::uint32_t channel = 0;
  std::uint32_t next = kNone;  // the next slot queued on its channel
  std::uint32_t route_begin = 0, route_length = 0;  // in the channels' pool, or the slot's own links
  bool cached = false;                              // its route is its channel's
  bool active = false;                              // draining
  double remaining = 0, rate = 0, since = 0;
  double alone_Bps = 0;  // its bandwidth alone by the cost rule: it never drains faster
  std::uint32_t version = 0;  // stale end events carry an older one
};

class FlowChannels {
 public:
  // `slices`: the schedule's segments, for the cost rule (a slice streams with its transfer).
  FlowChannels(const Topology& topology, std::uint32_t slices)
      : topology_(topology),
        slices_(slices),
        per_pair_routes_(topology.routing == RoutingMode::minimal || topology.routing == RoutingMode::shortest_path) {}

  struct Opened {
    std::uint32_t slot;
    double startup_s;  // alpha and the route's latency: its bytes may drain that much later
  };
  // A slot for transfer `id` of `bytes` from src to dst, routed.
  Opened open(TransferId id, Rank src, Rank dst, std::uint64_t bytes);

  Flow& operator[](std::uint32_t slot) { return flows_[slot]; }
  std::span<const LinkId> links(std::uint32_t slot) const {
    const Flow& f = flows_[slot];
    const LinkId* base = f.cached ? pool_.data() : own_route_[slot].data();
    return {base + f.route_begin, f.route_length};
  }

  // The slot's channel is busy: it queues (returns true). Otherwise it may drain (false).
  bool queue_if_busy(std::uint32_t slot);
  void occupy(std::uint32_t slot) { channels_[flows_[slot].channel].active = slot; }
  void vacate(std::uint32_t slot) { channels_[flows_[slot].channel].active = kNone; }
  // The first slot queued behind `slot` on its channel, taken off the queue (kNone if none).
  std::uint32_t take_next(std::uint32_t slot);
  void release(std::uint32_t slot) { free_.push_back(slot); }

 private:
  struct Channel {
    std::uint32_t route_begin = 0, route_length = 0;  // in the pool, where cached
    RouteCostCache cost;                               // of the cached route
    std::uint32_t active = kNone;                      // the slot draining now
    std::uint32_t head = kNone, tail = kNone;          // slots queued, linked through Flow::next
    bool cached = false;                               // route holds for every transfer of the pair
  };

  std::uint32_t channel_of(Rank src, Rank dst, TransferId id);
  std::uint32_t new_slot();

  const Topology& topology_;
  std::uint32_t slices_;
  bool per_pair_routes_;
  PairIndex pair_index_;
  std::vector<Channel> channels_;
  std::vector<LinkId> pool_;  // links of the channels' routes
  std::vector<Flow> flows_;
  std::vector<std::vector<LinkId>> own_route_;  // per slot, for routes not kept per channel
  std::vector<std::uint32_t> free_;
};

}  // namespace collsim::flow
