// sim/flow_engine.cpp — events in time buckets, flows on links, incremental max-min.
//
// Cost per network transfer: two events (its start, its end), its route (cached per rank
// pair where routing ignores the flow id), and a re-rating of the flows its start and end
// can reach (MaxMinSharing, sim/max_min.hpp: near the change, not the whole connected
// component). A lone flow's rate is its route's bottleneck, without filling. Completion is
// handed on at once: a successor learns its ready time when its last dependency's arrival
// is processed, so there is no separate "done" event.
//
// A held schedule keeps per-transfer times (for the critical path and the timeline). A
// streamed one (a 16,384-rank ring has 537 M transfers) keeps only what is live: the flows
// in flight and the transfers some but not all of whose deciding dependencies are done
// (collectives/transfer_stream.hpp); the stream tells each transfer and its successors
// when they are needed.
#include "sim/flow_engine.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <utility>
#include <unordered_map>

#include <fmt/format.h>

#include "collectives/error.hpp"
#include "sim/cost_rule.hpp"
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
  RouteCostCache cost;                       // of the cached route
  std::uint32_t active = kNone;            // the flow slot draining now
  std::uint32_t head = kNone, tail = kNone;  // slots waiting, linked through Flow::next
  bool cached = false;                       // route holds for every transfer of the pair
};

// What the simulation reads of a transfer.
struct TransferFacts {
  Rank src = 0, dst = 0;
  std::uint64_t bytes = 0;
  Op op = Op::copy;
  bool is_local() const { return src == dst; }
};

// A streamed transfer with some of its deciding dependencies done.
struct Pending {
  double ready_s = 0;
  std::uint32_t waiting = 0;
};

class FlowSimulation {
 public:
  // A held schedule: per-transfer state for every transfer.
  FlowSimulation(const Schedule& s, const Topology& t, double gamma, const FlowOptions& options)
      : FlowSimulation(&s, s.info().ranks, s.size(), s.size(), t, gamma, options) {
    index_successors();
  }

  // A streamed schedule: per-transfer times are not kept (one scratch slot takes them).
  FlowSimulation(const TransferStream& stream, const Topology& t, double gamma)
      : FlowSimulation(nullptr, stream.info().ranks, stream.size(), 1, t, gamma, {}) {
    stream_ = &stream;
    mask_ = 0;
  }

  FlowResult run() {
    for (TransferId id = 0; id < total_; ++id)
      if (waiting_[id] == 0) become_ready(id, 0.0);
    while (!events_.empty()) step();
    check_finished();
    trace_critical_path();
    if (options_.timeline) fill_timeline();
    return std::move(result_);
  }

  // From the stream's roots on, each completion asks the stream for its successors.
  FlowResult run_streamed(const std::function<void(std::uint64_t)>& progress) {
    progress_ = progress;
    for (TransferId id : stream_->roots()) become_ready(id, 0.0);
    while (!events_.empty()) step();
    check_finished();
    return std::move(result_);
  }

 private:
  FlowSimulation(const Schedule* s, Rank ranks, std::uint64_t total, std::uint64_t slots, const Topology& t,
                 double gamma, const FlowOptions& options)
      : s_(s), total_(total), t_(t), gamma_(gamma), options_(options),
        per_pair_routes_(t.routing == RoutingMode::minimal || t.routing == RoutingMode::shortest_path),
        waiting_(slots), ready_(slots, 0.0), arrival_(slots, 0.0), start_(slots, 0.0), pred_(slots, kNoTransfer),
        waited_(slots, Waited::nothing), done_(slots, 0.0), reducer_free_(ranks, 0.0), reducer_last_(ranks, kNoTransfer),
        busy_since_(t.network.link_count(), 0.0), capacity_(t.network.link_count()) {
    for (LinkId l = 0; l < capacity_.size(); ++l) capacity_[l] = shared_capacity_Bps(t.network, l);
    sharing_ = MaxMinSharing(capacity_);
    result_.rank_finish_s.assign(ranks, 0.0);
    result_.links.assign(t.network.link_count(), {});
  }

  void index_successors() {
    successor_begin_.assign(total_ + 1, 0);
    for (TransferId id = 0; id < total_; ++id) {
      const Transfer x = s_->transfer(id);
      waiting_[id] = std::uint32_t(x.deps.size());
      for (TransferId d : x.deps) ++successor_begin_[d + 1];
    }
    for (std::size_t i = 0; i < total_; ++i) successor_begin_[i + 1] += successor_begin_[i];
    successors_.resize(successor_begin_.back());
    std::vector<std::uint32_t> fill(successor_begin_.begin(), successor_begin_.end() - 1);
    for (TransferId id = 0; id < total_; ++id)
      for (TransferId d : s_->transfer(id).deps) successors_[fill[d]++] = id;
  }

  void check_finished() const {
    if (completed_ != total_)
      throw Error(fmt::format("schedule cannot finish: {} of {} transfers never completed", total_ - completed_, total_));
  }

  TransferFacts facts(TransferId id) {
    if (stream_) {
      const StreamedTransfer x = stream_->transfer(id, facts_deps_);
      return {x.src, x.dst, x.bytes, x.op};
    }
    const Transfer x = s_->transfer(id);
    return {x.src, x.dst, s_->transfer_bytes(id), x.op};
  }
  std::uint32_t at(TransferId id) const { return id & mask_; }

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
  void become_ready(TransferId id, double ready) {
    const TransferFacts x = facts(id);
    ready_[at(id)] = ready;
    if (x.is_local()) {  // a reduction of staged data: no bytes to move
      start_[at(id)] = ready;
      return push(ready, EventKind::local_ready, id);
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
      f.route = {0, std::uint32_t(own_route_[slot].size())};
    }
    push(ready + startup_s(slot, x.bytes), EventKind::flow_start, slot);
  }

  // Alpha and the route's latency, by the cost rule (sim/cost_rule.hpp).
  double startup_s(std::uint32_t slot, std::uint64_t bytes) {
    const Flow& f = flows_[slot];
    if (f.cached) return pairs_[f.pair].cost.at(t_.network, links_of(slot), bytes).startup_s;
    return route_cost(t_.network, links_of(slot), bytes).startup_s;
  }

  std::uint32_t pair_of(Rank src, Rank dst, TransferId id) {
    const std::uint32_t index = pair_index_.find_or_add(src, dst, std::uint32_t(pairs_.size()));
    if (index < pairs_.size()) return index;
    Pair& p = pairs_.emplace_back();
    if (per_pair_routes_) {
      const std::size_t begin = pool_.size();
      t_.route(src, dst, id, pool_);
      p.route = {std::uint32_t(begin), std::uint32_t(pool_.size() - begin)};
      p.cached = true;
    }
    return index;
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
    start_[at(f.transfer)] = now;
    if (behind != kNoTransfer) waited_for_channel(f.transfer, behind);
    if (f.route.length == 0) {  // both ranks on one vertex: nothing to share
      free_.push_back(slot);
      return arrive(f.transfer, now);
    }
    pairs_[f.pair].active = slot;
    f.remaining = double(facts(f.transfer).bytes);
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
    const double bytes = double(facts(finished).bytes);
    for (LinkId l : links_of(slot)) result_.links[l].bytes += bytes;
    Pair& p = pairs_[f.pair];
    const std::uint32_t next = p.head;
    if (next != kNone) {
      p.head = flows_[next].next;
      if (p.head == kNone) p.tail = kNone;
    }
    if (next != kNone && f.cached) {
      f.transfer = flows_[next].transfer;
      f.remaining = double(facts(f.transfer).bytes);
      f.since = now;
      ++f.version;
      push(now + f.remaining / f.rate, EventKind::flow_end, slot, f.version);
      start_[at(f.transfer)] = now;
      waited_for_channel(f.transfer, finished);
      free_.push_back(next);
    } else {
      leave_links(slot, now);
      if (next != kNone) drain(next, now, finished);
    }
    arrive(finished, now);
  }

  void waited_for_channel(TransferId id, TransferId behind) {
    pred_[at(id)] = behind;
    waited_[at(id)] = Waited::channel;
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
    const TransferFacts x = facts(id);
    arrival_[at(id)] = now;
    result_.rank_finish_s[x.src] = std::max(result_.rank_finish_s[x.src], now);
    double done = now;
    if (x.op == Op::reduce) {
      if (reducer_free_[x.dst] > now) {
        pred_[at(id)] = reducer_last_[x.dst];
        waited_[at(id)] = Waited::reducer;
      }
      done = std::max(now, reducer_free_[x.dst]) + double(x.bytes) * gamma_;
      reducer_free_[x.dst] = done;
      reducer_last_[x.dst] = id;
    }
    complete(id, done);
  }

  // Done at `done` (now or, after a reduction, later): successors learn their ready time.
  void complete(TransferId id, double done) {
    const Rank dst = facts(id).dst;
    done_[at(id)] = done;
    result_.rank_finish_s[dst] = std::max(result_.rank_finish_s[dst], done);
    if (completed_ == 0 || done > result_.time_s) {
      result_.time_s = done;
      last_ = id;
    }
    ++completed_;
    if (stream_) return hand_on_streamed(done, id);
    for (std::uint32_t i = successor_begin_[id]; i < successor_begin_[id + 1]; ++i) {
      const TransferId next = successors_[i];
      if (pred_[next] == kNoTransfer || done > ready_[next]) {
        ready_[next] = done;
        pred_[next] = id;
        waited_[next] = Waited::dependency;
      }
      if (--waiting_[next] == 0) become_ready(next, ready_[next]);
    }
  }

  // A successor with one deciding dependency is ready now; one with more waits in pending_.
  void hand_on_streamed(double done, TransferId id) {
    if (progress_ && (completed_ & 0xFFFFFF) == 0) progress_(completed_);
    stream_->successors(id, next_);
    for (TransferId next : next_) {
      stream_->deciding_dependencies(next, deps_);
      const std::size_t deps = deps_.size();
      if (deps == 1) {
        become_ready(next, done);
        continue;
      }
      const auto [it, fresh] = pending_.try_emplace(next, Pending{done, std::uint32_t(deps)});
      it->second.ready_s = std::max(it->second.ready_s, done);
      if (--it->second.waiting == 0) {
        const double ready = it->second.ready_s;
        pending_.erase(it);
        become_ready(next, ready);
      }
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
    collsim::trace_critical_path(*s_, t_, last_, [this](TransferId id) { return record(id); }, result_);
  }

  TransferRecord record(TransferId id) const {
    return {{ready_[id], start_[id], arrival_[id], done_[id]}, pred_[id], waited_[id]};
  }

  void fill_timeline() {
    result_.timeline.resize(total_);
    for (TransferId id = 0; id < total_; ++id) result_.timeline[id] = record(id).times;
  }

  const Schedule* s_;     // null when streamed
  std::uint64_t total_;  // transfers
  const Topology& t_;
  double gamma_;
  FlowOptions options_;
  bool per_pair_routes_;
  PairIndex pair_index_;
  std::vector<Pair> pairs_;
  std::vector<LinkId> pool_;  // links of the pairs' routes
  // Per transfer, at id & mask_ (held: mask all ones; streamed: 0, one scratch slot nobody reads).
  std::uint32_t mask_ = ~0u;
  std::vector<std::uint32_t> waiting_;  // dependencies not yet done
  std::vector<double> ready_, arrival_, start_;
  std::vector<TransferId> pred_;        // critical predecessor
  std::vector<Waited> waited_;
  std::vector<double> done_;
  std::vector<std::uint32_t> successor_begin_;  // held: successors in one array (CSR)
  std::vector<TransferId> successors_;
  // Streamed.
  const TransferStream* stream_ = nullptr;
  std::vector<TransferId> next_, deps_, facts_deps_;  // scratch for the stream's answers
  std::unordered_map<TransferId, Pending> pending_;
  std::function<void(std::uint64_t)> progress_;
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

FlowResult run_flow(const TransferStream& stream, const Topology& topology, double gamma_s_per_byte,
                    const std::function<void(const std::string&)>& progress) {
  if (stream.size() > kIdMask)
    throw Error(fmt::format("the flow engine handles at most {} transfers; this schedule has {}", kIdMask,
                            stream.size()));
  const auto count = [&](std::uint64_t id) {
    if (progress) progress(fmt::format("{:.0f}% of {} transfers", 100.0 * double(id) / double(stream.size()), stream.size()));
  };
  if (std::optional<FlowResult> result = run_stream_without_sharing(stream, topology, gamma_s_per_byte, count))
    return std::move(*result);
  if (progress) progress("two rank pairs' routes share a link: simulating events");
  return FlowSimulation(stream, topology, gamma_s_per_byte).run_streamed(count);
}

std::string link_name(const Network& network, LinkId link) {
  const Link& l = network.link(link);
  return fmt::format("{}->{}", network.vertex(l.from).name, network.vertex(l.to).name);
}

}  // namespace collsim
