// sim/flow_channels.cpp — flow slots, rank-pair channels and their routes (see the header).
#include "sim/flow_channels.hpp"

#include <limits>

namespace collsim::flow {

FlowChannels::Opened FlowChannels::open(TransferId id, const TransferFacts& x) {
  const Rank src = x.src, dst = x.dst;
  const std::uint64_t bytes = x.bytes;
  const std::uint32_t channel = channel_of(src, dst, id);
  const std::uint32_t slot = new_flow(id, x, channel, channels_[channel].cached);
  Flow& f = flows_[slot];
  if (f.cached) {
    f.route_begin = channels_[channel].route_begin;
    f.route_length = channels_[channel].route_length;
    const RouteCost& cost =
        channels_[channel].cost.at(topology_.network, links(slot), bytes, segments_, protocol_, x.exchange_half);
    f.alone_Bps = cost.bandwidth_Bps;
    return {slot, cost.startup_s};
  }
  own_route_[slot].clear();
  topology_.route(src, dst, id, own_route_[slot]);
  f.route_begin = 0;
  f.route_length = std::uint32_t(own_route_[slot].size());
  const RouteCost cost = route_cost(topology_.network, links(slot), bytes, segments_, protocol_, x.exchange_half);
  f.alone_Bps = cost.bandwidth_Bps;
  return {slot, cost.startup_s};
}

std::uint32_t FlowChannels::open_reduction(TransferId id, const TransferFacts& x, LinkId memory, double cap_Bps) {
  const std::uint32_t slot = new_flow(id, x, kNone, false);
  Flow& f = flows_[slot];
  own_route_[slot].assign(1, memory);
  f.route_begin = 0;
  f.route_length = 1;
  f.alone_Bps = cap_Bps;
  return slot;
}

std::uint32_t FlowChannels::channel_of(Rank src, Rank dst, TransferId id) {
  const std::uint32_t index = pair_index_.find_or_add(src, dst, std::uint32_t(channels_.size()));
  if (index < channels_.size()) {
    just_shared_.clear();
    return index;
  }
  Channel& c = channels_.emplace_back();
  queues_.emplace_back();
  if (per_pair_routes_) {
    c.route_begin = std::uint32_t(pool_.size());
    topology_.route(src, dst, id, pool_);
    c.route_length = std::uint32_t(pool_.size() - c.route_begin);
    c.cached = true;
  }
  classify(index);
  return index;
}

// Exclusive while every link of its route is its own; a link another channel crosses makes
// both shared, and so does a route crossing one link twice (its flow shares with itself).
// A route of no links (both ranks on one vertex) stays with the general path.
void FlowChannels::classify(std::uint32_t channel) {
  just_shared_.clear();
  Channel& c = channels_[channel];
  if (owner_.empty() || c.route_length == 0) return;
  bool alone = true;
  for (LinkId l : channel_links(channel)) {
    const std::uint32_t owner = owner_[l];
    if (owner == kNone) {
      owner_[l] = channel;
      continue;
    }
    alone = false;
    owner_[l] = kShared;
    if (owner != channel && owner != kShared && channels_[owner].exclusive) make_shared(owner);
  }
  c.exclusive = alone;
  if (!alone) return;
  c.smallest_capacity_Bps = std::numeric_limits<double>::infinity();
  for (LinkId l : channel_links(channel))
    c.smallest_capacity_Bps = std::min(c.smallest_capacity_Bps, shared_capacity_Bps(topology_.network, l, protocol_));
}

void FlowChannels::make_shared(std::uint32_t channel) {
  channels_[channel].exclusive = false;
  just_shared_.push_back(channel);
}

// A slot for transfer `id`: on `channel`, or kNone for a reduction through memory.
std::uint32_t FlowChannels::new_flow(TransferId id, const TransferFacts& x, std::uint32_t channel, bool cached) {
  const std::uint32_t slot = new_slot();
  Flow& f = flows_[slot];
  f.transfer = id;
  f.facts = x;
  f.channel = channel;
  f.next = kNone;
  f.reduction = channel == kNone;
  f.cached = cached;
  return slot;
}

std::uint32_t FlowChannels::new_slot() {
  if (!free_.empty()) {
    const std::uint32_t slot = free_.back();
    free_.pop_back();
    return slot;
  }
  flows_.emplace_back();
  own_route_.emplace_back();
  return std::uint32_t(flows_.size() - 1);
}

bool FlowChannels::queue_if_busy(std::uint32_t slot, std::uint32_t channel) {
  Queue& c = queues_[channel];
  if (c.active == kNone) return false;
  (c.head == kNone ? c.head : flows_[c.tail].next) = slot;
  c.tail = slot;
  return true;
}

std::uint32_t FlowChannels::take_next(std::uint32_t slot) {
  Queue& c = queues_[flows_[slot].channel];
  const std::uint32_t next = c.head;
  if (next != kNone) {
    c.head = flows_[next].next;
    if (c.head == kNone) c.tail = kNone;
  }
  return next;
}

}  // namespace collsim::flow
