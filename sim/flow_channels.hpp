// sim/flow_channels.hpp — the flow engine's flows and the rank-pair channels they drain on
// (internal to sim/flow_engine.cpp). A flow slot holds a transfer from the moment it is ready
// until its last byte drains; each (source, destination) pair is one in-order channel, on
// which one flow drains at a time and the others queue in order of start. Where routing
// ignores the flow id (minimal, shortest-path) a channel routes once and keeps its route;
// ECMP and Valiant route every transfer afresh. Start-ups come from the cost rule
// (sim/cost_rule.hpp). What happens when, and at what rate, is the simulation's.
//
// Exclusive channels (the partial shortcut): where routes are kept per pair, a channel whose
// route crosses no link that another channel's route crosses (nor one link twice) is
// exclusive: its flows are alone on their links, so each drains at its bandwidth alone from
// start to end and the simulation times it without max-min. A channel met later that crosses
// an exclusive channel's link makes both shared (just_shared() names those that changed).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "collectives/schedule.hpp"
#include "sim/cost_rule.hpp"
#include "sim/flow_queue.hpp"
#include "sim/flow_rules.hpp"
#include "topologies/topology.hpp"

namespace collsim::flow {

// What the simulation reads of a transfer, read once when it is ready.
struct TransferFacts {
  Rank src = 0, dst = 0;
  std::uint64_t bytes = 0;
  Op op = Op::copy;
  bool exchange_half = false;  // priced by exchange_factors (collectives/transfer_context.hpp)
  bool into_sent = false;      // a reduction into sent data: reduction_into_sent_factors
  bool is_local() const { return src == dst; }
};

struct Flow {
  TransferId transfer = 0;
  std::uint32_t drain = kNone;  // while draining: its number in DrainingFlows
  TransferFacts facts;
  std::uint32_t channel = 0;
  std::uint32_t next = kNone;  // the next slot queued on its channel
  std::uint32_t route_begin = 0, route_length = 0;  // in the channels' pool, or the slot's own links
  bool cached = false;                              // its route is its channel's
  bool reduction = false;  // a reduction's bytes through its rank's memory link: no channel
  double alone_Bps = 0;  // its bandwidth alone by the cost rule: it never drains faster
};

// A flow while it drains: what the re-solves and the end events touch, numbered densely (a
// flow slot is held from ready to last byte: two-tree on 8 channels holds some 600 K slots at
// 1,024 ranks, most of them queued; the tens of thousands draining fit in cache this way).
struct Drain {
  TransferId transfer;
  std::uint32_t slot;  // its flow slot
  double remaining, rate, since;  // bytes left at `since`, and the rate since then
};

// Values in reusable numbered slots: a slot given back is the next one taken, so storage
// stays as large as the most values held at once.
template <class T>
class SlotPool {
 public:
  std::uint32_t put(const T& value) {
    if (free_.empty()) {
      values_.push_back(value);
      return std::uint32_t(values_.size() - 1);
    }
    const std::uint32_t i = free_.back();
    free_.pop_back();
    values_[i] = value;
    return i;
  }
  void give_back(std::uint32_t i) { free_.push_back(i); }
  // The value in slot i, which is given back.
  T take(std::uint32_t i) {
    free_.push_back(i);
    return values_[i];
  }
  T& operator[](std::uint32_t i) { return values_[i]; }

 private:
  std::vector<T> values_;
  std::vector<std::uint32_t> free_;
};

using DrainingFlows = SlotPool<Drain>;

class FlowChannels {
 public:
  // `segments`: the schedule's segments, for the cost rule (a slice streams with its transfer).
  // `exclusive`: tell exclusive channels apart (otherwise every channel is shared).
  // `protocol`: the run's (sim/protocol.hpp), for the cost rule.
  FlowChannels(const Topology& topology, std::uint32_t segments, const Protocol& protocol, bool exclusive)
      : topology_(topology),
        segments_(segments),
        protocol_(protocol),
        per_pair_routes_(topology.routing == RoutingMode::minimal || topology.routing == RoutingMode::shortest_path),
        owner_(exclusive && per_pair_routes_ ? topology.network.link_count() : 0, kNone) {}

  // The channel of the pair, routed and classified on first sight (see just_shared()).
  std::uint32_t channel_of(Rank src, Rank dst, TransferId id);
  bool exclusive(std::uint32_t channel) const { return channels_[channel].exclusive; }
  std::uint32_t channel_count() const { return std::uint32_t(channels_.size()); }
  // Exclusive channels the last channel_of() made shared (their flows now meet another's).
  std::span<const std::uint32_t> just_shared() const { return just_shared_; }
  // An exclusive channel's transfers, timed by the in-order rule (sim/flow_rules.hpp) in
  // sim/flow_engine.cpp; what its links carried is told to the link log once (flush).
  PairChannel& alone(std::uint32_t channel) { return channels_[channel].alone; }
  std::span<const LinkId> channel_links(std::uint32_t channel) const {
    return {pool_.data() + channels_[channel].route_begin, channels_[channel].route_length};
  }
  // A message of `bytes` alone on an exclusive channel's route (sim/cost_rule.hpp), and the
  // rate it drains at: the bandwidth alone, capped by the route's smallest link capacity.
  const RouteCost& cost(std::uint32_t channel, const TransferFacts& x) {
    return channels_[channel].cost.at(topology_.network, channel_links(channel), x.bytes, segments_, protocol_,
                                      x.exchange_half);
  }
  double drain_rate_Bps(std::uint32_t channel, double alone_Bps) const {
    return std::min(alone_Bps, channels_[channel].smallest_capacity_Bps);
  }

  struct Opened {
    std::uint32_t slot;
    double startup_s;  // alpha and the route's latency: its bytes may drain that much later
  };
  // A slot for transfer `id`, routed.
  Opened open(TransferId id, const TransferFacts& x);
  // A slot for the reduction of transfer `id` on its rank's memory link (a route of that one
  // link, on no channel), drawing at most `cap_Bps` (sim/cost_rule.hpp).
  std::uint32_t open_reduction(TransferId id, const TransferFacts& x, LinkId memory, double cap_Bps);

  Flow& operator[](std::uint32_t slot) { return flows_[slot]; }
  std::span<const LinkId> links(std::uint32_t slot) const {
    const Flow& f = flows_[slot];
    const LinkId* base = f.cached ? pool_.data() : own_route_[slot].data();
    return {base + f.route_begin, f.route_length};
  }

  // The slot's channel (given: its start event carries it, so a slot queued behind a busy
  // channel is not read) is busy: it queues (returns true). Otherwise it may drain (false).
  bool queue_if_busy(std::uint32_t slot, std::uint32_t channel);
  void occupy(std::uint32_t slot) { queues_[flows_[slot].channel].active = slot; }
  void vacate(std::uint32_t slot) { queues_[flows_[slot].channel].active = kNone; }
  // The first slot queued behind `slot` on its channel, taken off the queue (kNone if none).
  std::uint32_t take_next(std::uint32_t slot);
  void release(std::uint32_t slot) { free_.push_back(slot); }

 private:
  struct Channel {
    std::uint32_t route_begin = 0, route_length = 0;  // in the pool, where cached
    RouteCostCache cost;                               // of the cached route
    bool cached = false;                               // route holds for every transfer of the pair
    bool exclusive = false;                            // no other channel crosses its links
    double smallest_capacity_Bps = 0;                  // of its route's links, where exclusive
    PairChannel alone;                                 // where exclusive
  };

  // A channel's draining slot and its queue, apart from the rest: every start and end reads
  // them, and 12 bytes a channel stay in cache where the whole record (routes' costs, the
  // exclusive state) would not.
  struct Queue {
    std::uint32_t active = kNone;              // the slot draining now
    std::uint32_t head = kNone, tail = kNone;  // slots queued, linked through Flow::next
  };

  void classify(std::uint32_t channel);
  void make_shared(std::uint32_t channel);
  std::uint32_t new_flow(TransferId id, const TransferFacts& x, std::uint32_t channel, bool cached);
  std::uint32_t new_slot();

  const Topology& topology_;
  std::uint32_t segments_;
  Protocol protocol_;
  bool per_pair_routes_;
  PairIndex pair_index_;
  std::vector<Channel> channels_;
  std::vector<Queue> queues_;  // by channel
  std::vector<LinkId> pool_;  // links of the channels' routes
  std::vector<Flow> flows_;
  std::vector<std::vector<LinkId>> own_route_;  // per slot, for routes not kept per channel
  std::vector<std::uint32_t> free_;
  // Per link, the one channel whose route crosses it, kShared where several do, kNone where
  // none has yet; empty when exclusive channels are not told apart.
  std::vector<std::uint32_t> owner_;
  std::vector<std::uint32_t> just_shared_;
  static constexpr std::uint32_t kShared = kNone - 1;
};

}  // namespace collsim::flow
