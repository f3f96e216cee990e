// sim/flow_engine.cpp — events in time buckets, flows on links, incremental max-min.
//
// Cost per network transfer: two events (its start, its end), its route (cached per rank
// pair where routing ignores the flow id), and a re-rating of the flows its start and end
// can reach (MaxMinSharing, sim/max_min.hpp: near the change, not the whole connected
// component). A lone flow's rate is its route's bottleneck, without filling. Completion is
// handed on at once: a successor learns its ready time when its last dependency's arrival
// is processed, so there is no separate "done" event.
#include "sim/flow_engine.hpp"

#include <algorithm>
#include <array>
#include <utility>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "collectives/error.hpp"
#include "sim/flow_queue.hpp"
#include "sim/flow_shortcut.hpp"
#include "sim/max_min.hpp"

namespace collsim {
namespace {

using flow::Event;
using flow::EventKind;
using flow::EventQueue;
using flow::kIdMask;
using flow::kKindShift;
using flow::kNone;
using flow::PairIndex;

struct RouteInfo {
  std::uint32_t begin = 0, length = 0;  // in the link pool, or the flow slot's own links
  double delay_s = 0;                   // largest alpha + summed latency
  double bottleneck_Bps = 0;            // smallest bandwidth
};

struct Flow {
  TransferId transfer = 0;
  std::uint32_t pair = 0;
  std::uint32_t next = 0;  // the next slot waiting on its pair's channel
  RouteInfo route;
  bool cached = false;  // route links live in the pair's entry of the link pool
  bool active = false;
  double remaining = 0, rate = 0, since = 0;
  std::uint32_t version = 0;
};

// A (source, destination) rank pair: one in-order channel, and its route where routing
// ignores the flow id (minimal, shortest-path). ECMP and Valiant route every transfer afresh.
struct Pair {
  RouteInfo route;
  std::uint32_t active = kNone;            // the flow slot draining now
  std::uint32_t head = kNone, tail = kNone;  // slots waiting, linked through Flow::next
  bool cached = false;                       // route holds for every transfer of the pair
};

class FlowSimulation {
 public:
  FlowSimulation(const Schedule& s, const Topology& t, double gamma, const FlowOptions& options)
      : s_(s), t_(t), gamma_(gamma), options_(options), per_pair_routes_(t.routing == RoutingMode::minimal || t.routing == RoutingMode::shortest_path),
        waiting_(s.size()), ready_(s.size(), 0.0),
        arrival_(s.size(), 0.0), done_(s.size(), 0.0), start_(s.size(), 0.0), pred_(s.size(), kNoTransfer), waited_(s.size(), Waited::nothing),
        successor_begin_(s.size() + 1, 0), reducer_free_(s.info().ranks, 0.0),
        reducer_last_(s.info().ranks, kNoTransfer),
        busy_since_(t.network.link_count(), 0.0), capacity_(t.network.link_count()) {
    for (LinkId l = 0; l < capacity_.size(); ++l) capacity_[l] = t.network.link(l).bandwidth_Bps;
    sharing_ = MaxMinSharing(capacity_);
    result_.rank_finish_s.assign(s.info().ranks, 0.0);
    result_.links.assign(t.network.link_count(), {});
    index_successors();
  }

  FlowResult run() {
    for (TransferId id = 0; id < s_.size(); ++id)
      if (waiting_[id] == 0) become_ready(id);
    while (!events_.empty()) step();
    if (completed_ != s_.size())
      throw Error(fmt::format("schedule cannot finish: {} of {} transfers never completed", s_.size() - completed_,
                              s_.size()));
    trace_critical_path();
    if (options_.timeline) fill_timeline();
    return std::move(result_);
  }

 private:
  void index_successors() {
    for (TransferId id = 0; id < s_.size(); ++id) {
      const Transfer x = s_.transfer(id);
      waiting_[id] = std::uint32_t(x.deps.size());
      for (TransferId d : x.deps) ++successor_begin_[d + 1];
    }
    for (std::size_t i = 0; i < s_.size(); ++i) successor_begin_[i + 1] += successor_begin_[i];
    successors_.resize(successor_begin_.back());
    std::vector<std::uint32_t> fill(successor_begin_.begin(), successor_begin_.end() - 1);
    for (TransferId id = 0; id < s_.size(); ++id)
      for (TransferId d : s_.transfer(id).deps) successors_[fill[d]++] = id;
  }

  void push(double time, EventKind kind, std::uint32_t id, std::uint32_t version = 0) {
    events_.push({time, (std::uint32_t(kind) << kKindShift) | id, version});
  }

  // One instant: every event within 1e-12 relative of the earliest is part of the batch.
  void step() {
    const double now = events_.next_time();
    const double limit = now + std::max(now, 1e-9) * 1e-12;
    while (!events_.empty() && events_.next_time() <= limit) {
      const Event e = events_.pop();
      ++result_.events;
      switch (e.kind()) {
        case EventKind::flow_end:
          if (flows_[e.id()].active && flows_[e.id()].version == e.version) finish_flow(e.id(), now);
          break;
        case EventKind::flow_start: start_flow(e.id(), now); break;
        case EventKind::local_ready: arrive(e.id(), now); break;
      }
    }
    resolve(now);
  }

  // All dependencies are done: route the transfer and wait out its alpha and latency.
  void become_ready(TransferId id) {
    const Transfer x = s_.transfer(id);
    if (x.is_local()) {  // a reduction of staged data: no bytes to move
      start_[id] = ready_[id];
      return push(ready_[id], EventKind::local_ready, id);
    }
    const std::uint32_t pair = pair_of(x.src, x.dst, id);
    const std::uint32_t slot = new_flow();
    Flow& f = flows_[slot];
    f.transfer = id;
    f.pair = pair;
    f.cached = pairs_[pair].cached;
    if (f.cached) {
      f.route = pairs_[pair].route;
    } else {
      own_route_[slot].clear();
      t_.route(x.src, x.dst, id, own_route_[slot]);
      f.route = describe_route(own_route_[slot], 0);
    }
    push(ready_[id] + f.route.delay_s, EventKind::flow_start, slot);
  }

  std::uint32_t pair_of(Rank src, Rank dst, TransferId id) {
    const std::uint32_t index = pair_index_.find_or_add((std::uint64_t(src) << 32) | dst, std::uint32_t(pairs_.size()));
    if (index < pairs_.size()) return index;
    Pair& p = pairs_.emplace_back();
    if (per_pair_routes_) {
      const std::size_t begin = pool_.size();
      t_.route(src, dst, id, pool_);
      p.route = describe_route({pool_.data() + begin, pool_.size() - begin}, std::uint32_t(begin));
      p.cached = true;
    }
    return index;
  }

  RouteInfo describe_route(std::span<const LinkId> links, std::uint32_t begin) const {
    RouteInfo info{begin, std::uint32_t(links.size()), 0, std::numeric_limits<double>::infinity()};
    info.delay_s = route_alpha(t_.network, links) + route_latency(t_.network, links);
    info.bottleneck_Bps = route_bandwidth(t_.network, links);
    return info;
  }

  std::uint32_t new_flow() {
    if (!free_.empty()) {
      const std::uint32_t slot = free_.back();
      free_.pop_back();
      return slot;
    }
    flows_.emplace_back();
    own_route_.emplace_back();
    return std::uint32_t(flows_.size() - 1);
  }

  std::span<const LinkId> links_of(std::uint32_t slot) const {
    const Flow& f = flows_[slot];
    const LinkId* base = f.cached ? pool_.data() : own_route_[slot].data();
    return {base + f.route.begin, f.route.length};
  }

  // Alpha and latency are over. The bytes drain now, or after those queued ahead of them on
  // the pair's channel.
  void start_flow(std::uint32_t slot, double now) {
    Pair& p = pairs_[flows_[slot].pair];
    if (p.active == kNone) return drain(slot, now);
    flows_[slot].next = kNone;
    (p.head == kNone ? p.head : flows_[p.tail].next) = slot;
    p.tail = slot;
  }

  // `behind`: the pair's transfer it waited for, if it queued.
  void drain(std::uint32_t slot, double now, TransferId behind = kNoTransfer) {
    Flow& f = flows_[slot];
    start_[f.transfer] = now;
    if (behind != kNoTransfer) waited_for_channel(f.transfer, behind);
    if (f.route.length == 0) {  // both ranks on one vertex: nothing to share
      free_.push_back(slot);
      return arrive(f.transfer, now);
    }
    pairs_[f.pair].active = slot;
    f.remaining = double(s_.transfer_bytes(f.transfer));
    f.rate = 0;
    f.since = now;
    f.active = true;
    for (LinkId l : links_of(slot))
      if (sharing_.flows_on(l) == 0) busy_since_[l] = now;
    sharing_.add(slot, links_of(slot));
  }

  // The last byte drained. The channel's next transfer takes over: on the same route it keeps
  // the flow and its rate (no link sees a change, nothing to re-solve); else the flow leaves
  // its links and the next one joins.
  void finish_flow(std::uint32_t slot, double now) {
    Flow& f = flows_[slot];
    const TransferId finished = f.transfer;
    const double bytes = double(s_.transfer_bytes(finished));
    for (LinkId l : links_of(slot)) result_.links[l].bytes += bytes;
    Pair& p = pairs_[f.pair];
    const std::uint32_t next = p.head;
    if (next != kNone) {
      p.head = flows_[next].next;
      if (p.head == kNone) p.tail = kNone;
    }
    if (next != kNone && f.cached) {
      f.transfer = flows_[next].transfer;
      f.remaining = double(s_.transfer_bytes(f.transfer));
      f.since = now;
      ++f.version;
      push(now + f.remaining / f.rate, EventKind::flow_end, slot, f.version);
      start_[f.transfer] = now;
      waited_for_channel(f.transfer, finished);
      free_.push_back(next);
    } else {
      leave_links(slot, now);
      if (next != kNone) drain(next, now, finished);
    }
    arrive(finished, now);
  }

  void waited_for_channel(TransferId id, TransferId behind) {
    pred_[id] = behind;
    waited_[id] = Waited::channel;
  }

  void leave_links(std::uint32_t slot, double now) {
    Flow& f = flows_[slot];
    f.active = false;
    ++f.version;
    pairs_[f.pair].active = kNone;
    sharing_.remove(slot);
    for (LinkId l : links_of(slot))
      if (sharing_.flows_on(l) == 0 && busy_since_[l] >= 0) {  // once, should the route cross it twice
        result_.links[l].busy_s += now - busy_since_[l];
        busy_since_[l] = -1;
      }
    free_.push_back(slot);
  }

  // Bytes are at the destination: reduce them (one reduction at a time per rank, in order of
  // arrival) or be done.
  void arrive(TransferId id, double now) {
    const Transfer x = s_.transfer(id);
    arrival_[id] = now;
    result_.rank_finish_s[x.src] = std::max(result_.rank_finish_s[x.src], now);
    double done = now;
    if (x.op == Op::reduce) {
      if (reducer_free_[x.dst] > now) {
        pred_[id] = reducer_last_[x.dst];
        waited_[id] = Waited::reducer;
      }
      done = std::max(now, reducer_free_[x.dst]) + double(s_.transfer_bytes(id)) * gamma_;
      reducer_free_[x.dst] = done;
      reducer_last_[x.dst] = id;
    }
    complete(id, done);
  }

  // Done at `done` (now or, after a reduction, later): successors learn their ready time.
  void complete(TransferId id, double done) {
    const Rank dst = s_.transfer(id).dst;
    done_[id] = done;
    result_.rank_finish_s[dst] = std::max(result_.rank_finish_s[dst], done);
    if (completed_ == 0 || done > result_.time_s) {
      result_.time_s = done;
      last_ = id;
    }
    ++completed_;
    for (std::uint32_t i = successor_begin_[id]; i < successor_begin_[id + 1]; ++i) {
      const TransferId next = successors_[i];
      if (pred_[next] == kNoTransfer || done > ready_[next]) {
        ready_[next] = done;
        pred_[next] = id;
        waited_[next] = Waited::dependency;
      }
      if (--waiting_[next] == 0) become_ready(next);
    }
  }

  // Re-rate the flows the instant's starts and ends can reach (sim/max_min.hpp), and record
  // the utilization of the links whose load may have changed.
  void resolve(double now) {
    for (std::uint32_t slot : sharing_.solve()) set_rate(slot, sharing_.rate(slot), now);
    for (LinkId l : sharing_.changed_links()) record_utilization(l, sharing_.load(l) / capacity_[l], now);
    result_.rate_solves = sharing_.stats().fills;
  }

  // Account the bytes drained at the old rate; a changed rate gets a new end event (the old
  // one goes stale through the version).
  void set_rate(std::uint32_t slot, double rate, double now) {
    Flow& f = flows_[slot];
    f.remaining = std::max(0.0, f.remaining - f.rate * (now - f.since));
    f.since = now;
    if (rate == f.rate) return;  // its pending end event still holds
    f.rate = rate;
    ++f.version;
    push(now + f.remaining / rate, EventKind::flow_end, slot, f.version);
  }

  void record_utilization(LinkId l, double utilization, double now) {
    LinkUsage& usage = result_.links[l];
    usage.peak_utilization = std::max(usage.peak_utilization, utilization);
    if (options_.timeline) result_.utilization.push_back({now, l, utilization});
  }

  void trace_critical_path() {
    if (completed_ == 0) return;
    collsim::trace_critical_path(s_, t_, last_, [this](TransferId id) { return record(id); }, result_);
  }

  TransferRecord record(TransferId id) const {
    return {{ready_[id], start_[id], arrival_[id], done_[id]}, pred_[id], waited_[id]};
  }

  void fill_timeline() {
    result_.timeline.resize(s_.size());
    for (TransferId id = 0; id < s_.size(); ++id) result_.timeline[id] = record(id).times;
  }

  const Schedule& s_;
  const Topology& t_;
  double gamma_;
  FlowOptions options_;
  bool per_pair_routes_;
  PairIndex pair_index_;
  std::vector<Pair> pairs_;
  std::vector<LinkId> pool_;  // links of the pairs' routes
  // Per transfer.
  std::vector<std::uint32_t> waiting_;  // dependencies not yet done
  std::vector<double> ready_, arrival_, done_, start_;
  std::vector<TransferId> pred_;        // critical predecessor
  std::vector<Waited> waited_;
  std::vector<std::uint32_t> successor_begin_;
  std::vector<TransferId> successors_;
  // Per rank.
  std::vector<double> reducer_free_;
  std::vector<TransferId> reducer_last_;
  // Per link.
  std::vector<double> busy_since_, capacity_;
  MaxMinSharing sharing_{{}};  // the active flows' rates, by flow slot
  // Flows and events.
  std::vector<Flow> flows_;
  std::vector<std::vector<LinkId>> own_route_;  // per slot, for routes not kept per pair
  std::vector<std::uint32_t> free_;
  EventQueue events_;

  std::size_t completed_ = 0;
  TransferId last_ = kNoTransfer;
  FlowResult result_;
};

}  // namespace

FlowResult run_flow(const Schedule& schedule, const Topology& topology, double gamma_s_per_byte,
                    const FlowOptions& options) {
  if (topology.ranks() < schedule.info().ranks)
    throw Error(fmt::format("the schedule has {} ranks but the topology places {}", schedule.info().ranks,
                            topology.ranks()));
  if (schedule.size() > kIdMask)
    throw Error(fmt::format("the flow engine handles at most {} transfers; this schedule has {}", kIdMask,
                            schedule.size()));
  if (options.shortcut)
    if (std::optional<FlowResult> result = run_flow_without_sharing(schedule, topology, gamma_s_per_byte, options))
      return std::move(*result);
  return FlowSimulation(schedule, topology, gamma_s_per_byte, options).run();
}

std::string link_name(const Network& network, LinkId link) {
  const Link& l = network.link(link);
  return fmt::format("{}->{}", network.vertex(l.from).name, network.vertex(l.to).name);
}

}  // namespace collsim
