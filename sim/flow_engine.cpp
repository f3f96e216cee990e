// sim/flow_engine.cpp — events in time buckets, flows on links, incremental max-min.
//
// Cost per network transfer: two events (its start; its end, moved in place when its rate
// changes), its route (cached per rank pair where routing ignores the flow id), and a
// re-rating of the flows its start and end can reach (MaxMinSharing, sim/max_min.hpp: near
// the change, not the whole connected component). A lone flow's rate is its route's
// bottleneck, without filling. Completion is handed on at once: a successor learns its ready
// time when its last dependency's arrival is processed, so there is no separate "done" event.
//
// Here: the event loop, the flows on their rank pairs' channels, and the reduction units.
// Which transfers a completion makes ready is sim/flow_dependencies.hpp's (a held schedule
// indexes its successors; a streamed one, a 16,384-rank ring of 537 M transfers, asks the
// stream and keeps only what is live); what the run records for its report (per-transfer
// times, link usage, the critical path) is sim/flow_record.hpp's.
#include "sim/flow_engine.hpp"

#include <algorithm>
#include <deque>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "base/error.hpp"
#include "sim/cost_rule.hpp"
#include "sim/flow_channels.hpp"
#include "sim/flow_dependencies.hpp"
#include "sim/flow_queue.hpp"
#include "sim/flow_record.hpp"
#include "sim/flow_shortcut.hpp"
#include "sim/host_issue.hpp"
#include "sim/max_min.hpp"

namespace collsim {
namespace {

using flow::Event;
using flow::EventKind;
using flow::EventQueue;
using flow::Drain;
using flow::Flow;
using flow::FlowChannels;
using flow::kIdMask;
using flow::kKindShift;
using flow::kNone;

using flow::TransferFacts;

// Thrown where the partial shortcut timed something ahead that the events could order
// otherwise (a reduction arriving before one timed ahead of it on the same rank, or a channel
// shared after it ran ahead): run_flow runs the events alone instead.
struct AheadOfOrder {};

// A start on an exclusive channel: the event's slot is the channel with this bit, and its
// payload the slot of waiting_ that holds the transfer's facts. It is ordered as any other
// start, so a channel that turns shared before it starts keeps its place among them.
constexpr std::uint32_t kOnExclusiveChannel = 1u << 31;

class FlowSimulation {
 public:
  // A held schedule: per-transfer state for every transfer. With the shortcut, every pair's
  // channel is routed and classified first, so none turns shared during the run.
  FlowSimulation(const Schedule& s, const Topology& t, double gamma, const FlowOptions& options)
      : FlowSimulation(s.info(), s.size(), t, gamma, options,
                       TransferLog(s.size(), options.critical_path || options.timeline ? TransferLog::Keep::records
                                                                                      : TransferLog::Keep::ready_times)) {
    s_ = &s;
    context_ = context_for(s, t);
    dependencies_.emplace(s, log_);
    if (options.shortcut)
      for (TransferId id = 0; id < s.size(); ++id)
        if (const Transfer x = s.transfer(id); !x.is_local()) channels_.channel_of(x.src, x.dst, id);
  }

  // A streamed schedule: per-transfer times are not kept.
  FlowSimulation(const TransferStream& stream, const Topology& t, double gamma, const FlowOptions& options)
      : FlowSimulation(stream.info(), stream.size(), t, gamma, options,
                       TransferLog(stream.size(), TransferLog::Keep::nothing)) {
    stream_ = &stream;
    dependencies_.emplace(stream);
  }
  FlowSimulation(const FlowSimulation&) = delete;  // its dependencies point into its log
  FlowSimulation& operator=(const FlowSimulation&) = delete;

  // From the roots on, each completion hands its successors on. The options' progress hears
  // the count of completed transfers every `every` (a power of two). Throws AheadOfOrder (above).
  FlowResult run(std::uint64_t every) {
    progress_mask_ = every - 1;
    for (TransferId id : dependencies_->roots()) become_ready(id, 0.0);
    while (!events_.empty()) step();
    check_finished();
    for (std::uint32_t c = 0; c < channels_.channel_count(); ++c)
      if (channels_.exclusive(c)) flush_exclusive(c);
    links_.move_into(result_);
    for (Rank r = 0; r < first_reducer_; ++r) result_.rank_finish_s.push_back(ranks_[r].finish_s);
    result_.protocol = options_.protocol;
    result_.issue_s = options_.issue_s;
    if (s_ && completed_ > 0 && log_.keeps_records())
      trace_critical_path(*s_, t_, last_, [this](TransferId id) { return log_.record(id); }, result_);
    if (options_.timeline) log_.fill_timeline(result_.timeline);
    return std::move(result_);
  }

 private:
  // Per rank, in one record (a transfer touches its two ranks' records, not several arrays):
  // its reducer (sim/flow_rules.hpp) and its last completion. Switch reducers have records
  // too (after the ranks'), but reduce on their link, not here.
  struct RankState {
    flow::RankReducer reducer;
    double finish_s = 0;  // last completion as source or destination
  };

  // The ranks' memory modelled: a rank's reducer is a flow on its memory link, one at a time
  // in order of arrival; those that arrive while it is busy wait here.
  struct WaitingReduction {
    TransferId id;
    TransferFacts facts;
  };
  struct MemoryReducer {
    bool busy = false;
    std::deque<WaitingReduction> waiting;
  };

  FlowSimulation(const ScheduleInfo& info, std::uint64_t total, const Topology& t, double gamma,
                 const FlowOptions& options, TransferLog log)
      : total_(total), t_(t), gamma_(gamma), options_(options), log_(std::move(log)),
        channels_(t, info.segments, options.protocol, options.shortcut), ranks_(info.endpoints()),
        memory_reducers_(t.models_memory() ? info.ranks : 0), first_reducer_(info.ranks), segments_(info.segments),
        capacity_(t.network.link_count()), links_(t.network.link_count(), options.timeline) {
    for (LinkId l = 0; l < capacity_.size(); ++l) capacity_[l] = shared_capacity_Bps(t.network, l, options.protocol);
    sharing_ = MaxMinSharing(capacity_);
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
    return {x.src, x.dst, s_->transfer_bytes(id), x.op, context_.exchange_half(id), context_.reduction_into_sent(id)};
  }

  void push(double time, EventKind kind, TransferId id, std::uint32_t slot = 0, std::uint32_t payload = 0) {
    events_.push({time, (std::uint32_t(kind) << kKindShift) | id, payload, slot});
  }

  // One instant: every event within 1e-12 relative of the earliest is part of the batch.
  void step() {
    now_ = events_.next_time();
    const double limit = now_ + std::max(now_, 1e-9) * 1e-12;
    while (!events_.empty() && events_.next_time() <= limit) {
      const Event e = events_.pop();
      ++result_.events;
      switch (e.kind()) {
        case EventKind::flow_end: {  // a draining flow's one end (by drain number): never stale
          const std::uint32_t slot = draining_[e.slot].slot;
          if (channels_[slot].reduction) {
            finish_reduction(slot, now_);
          } else {
            finish_flow(slot, now_);
          }
          break;
        }
        case EventKind::flow_start:
          if (e.slot & kOnExclusiveChannel) {
            start_exclusive(e.id(), e.slot & ~kOnExclusiveChannel, e.payload, now_);
          } else {
            start_flow(e.slot, e.payload, now_);
          }
          break;
        case EventKind::local_ready: arrive(e.id(), facts(e.id()), now_); break;
      }
    }
    resolve(now_);
  }

  // All dependencies are done: route the transfer and wait out the host's issue of it, then
  // its alpha and latency (a stream hands out the held schedule's ids: its issue is the same).
  void become_ready(TransferId id, double ready) { become_ready(id, ready, facts(id)); }
  void become_ready(TransferId id, double ready, const TransferFacts& x) {
    log_.ready(id, ready);
    const double issued = std::max(ready, issued_at(options_.issue_s, id));
    if (x.is_local()) {  // a reduction of staged data: no bytes to move
      log_.started(id, issued);
      return push(issued, EventKind::local_ready, id);
    }
    const std::uint32_t channel = channels_.channel_of(x.src, x.dst, id);
    for (std::uint32_t c : channels_.just_shared()) {  // a stream met a new pair
      if (channels_.alone(c).last_arrival_s() > now_) throw AheadOfOrder{};
      flush_exclusive(c);
    }
    if (channels_.exclusive(channel)) {
      const double startup = channels_.cost(channel, x).startup_s;
      return push(issued + startup, EventKind::flow_start, id, channel | kOnExclusiveChannel, waiting_.put(x));
    }
    const FlowChannels::Opened flow = channels_.open(id, x);
    push(issued + flow.startup_s, EventKind::flow_start, id, flow.slot, channel);
  }

  // The partial shortcut: on an exclusive channel the bytes drain alone, in order on the pair's
  // channel (sim/flow_rules.hpp), at the route's rate from start to arrival. The arrival is
  // handled at once, ahead of the events between now and then.
  void start_exclusive(TransferId id, std::uint32_t channel, std::uint32_t held, double now) {
    const TransferFacts x = waiting_.take(held);
    if (!channels_.exclusive(channel)) {  // shared since it was ready: the general path
      const FlowChannels::Opened flow = channels_.open(id, x);
      return start_flow(flow.slot, channel, now);
    }
    const double rate = channels_.drain_rate_Bps(channel, channels_.cost(channel, x).bandwidth_Bps);
    const flow::PairChannel::Drained drained = channels_.alone(channel).drain(id, now, x.bytes, rate);
    if (drained.behind != kNoTransfer) log_.waited(id, drained.behind, Waited::channel);
    log_.started(id, drained.start_s);
    if (links_.timeline())
      links_.drained_alone(channels_.channel_links(channel), drained.start_s, drained.arrival_s, capacity_, rate);
    ++result_.exclusive_transfers;
    arrive(id, x, drained.arrival_s, true);
  }

  // What an exclusive channel's links carried, into the link log (at the end, or when the
  // channel turns shared).
  void flush_exclusive(std::uint32_t channel) {
    const flow::PairChannel::Carried carried = channels_.alone(channel).take_carried();
    links_.carried_alone(channels_.channel_links(channel), carried.bytes, carried.busy_s, capacity_,
                         carried.fastest_Bps);
  }

  // Alpha and latency are over. The bytes drain now, or after those queued ahead of them on
  // the pair's channel.
  void start_flow(std::uint32_t slot, std::uint32_t channel, double now) {
    if (!channels_.queue_if_busy(slot, channel)) drain(slot, now);
  }

  // `behind`: the pair's transfer it waited for, if it queued.
  void drain(std::uint32_t slot, double now, TransferId behind = kNoTransfer) {
    Flow& f = channels_[slot];
    log_.started(f.transfer, now);
    if (behind != kNoTransfer) log_.waited(f.transfer, behind, Waited::channel);
    if (f.route_length == 0) {  // both ranks on one vertex: nothing to share
      const TransferId id = f.transfer;
      const TransferFacts x = f.facts;
      channels_.release(slot);
      return arrive(id, x, now);
    }
    channels_.occupy(slot);
    join_links(slot, double(f.facts.bytes), now);
  }

  // The flow in `slot` starts draining `bytes` across its links (a transfer, or a reduction
  // through its rank's memory), at a rate the next re-solve sets.
  void join_links(std::uint32_t slot, double bytes, double now) {
    Flow& f = channels_[slot];
    f.drain = draining_.put({f.transfer, slot, bytes, 0, now});
    for (LinkId l : channels_.links(slot))
      if (sharing_.flows_on(l) == 0) links_.busy_from(l, now);
    sharing_.add(f.drain, channels_.links(slot), f.alone_Bps);
  }

  // The last byte drained. The channel's next transfer takes over: on the same route, with the
  // same bandwidth alone (its size factors), it keeps the flow and its rate (no link sees a
  // change, nothing to re-solve); else the flow leaves its links and the next one joins.
  void finish_flow(std::uint32_t slot, double now) {
    Flow& f = channels_[slot];
    const TransferId finished = f.transfer;
    const TransferFacts x = f.facts;
    links_.carried(channels_.links(slot), double(x.bytes));
    const std::uint32_t next = channels_.take_next(slot);
    if (next != kNone && f.cached && channels_[next].alone_Bps == f.alone_Bps) {
      f.transfer = channels_[next].transfer;
      f.facts = channels_[next].facts;
      Drain& d = draining_[f.drain];
      d.transfer = f.transfer;
      d.remaining = double(f.facts.bytes);
      d.since = now;
      events_.set_end(f.drain, now + d.remaining / d.rate, d.transfer);
      log_.started(f.transfer, now);
      log_.waited(f.transfer, finished, Waited::channel);
      channels_.release(next);
    } else {
      leave_links(slot, now);
      if (next != kNone) drain(next, now, finished);
    }
    arrive(finished, x, now);
  }

  void leave_links(std::uint32_t slot, double now) {
    Flow& f = channels_[slot];
    if (!f.reduction) channels_.vacate(slot);  // a reduction holds no rank pair's channel
    sharing_.remove(f.drain);
    draining_.give_back(f.drain);
    for (LinkId l : channels_.links(slot))
      if (sharing_.flows_on(l) == 0) links_.idle_from(l, now);
    channels_.release(slot);
  }

  // Bytes are at the destination at `at` (now, or ahead of now on an exclusive channel):
  // reduce them on the rank's reducer (sim/flow_rules.hpp) or be done.
  void arrive(TransferId id, const TransferFacts& x, double at, bool ahead = false) {
    log_.arrived(id, at);
    ranks_[x.src].finish_s = std::max(ranks_[x.src].finish_s, at);
    if (x.op == Op::reduce && !memory_reducers_.empty() && x.dst < first_reducer_) return reduce_in_memory(id, x);
    double done = at;
    if (x.op == Op::reduce && x.dst < first_reducer_) {  // a switch's reduction is its link: no gamma
      flow::RankReducer& reducer = ranks_[x.dst].reducer;
      // Timed ahead, an arrival may pass one the events would have reduced first.
      if (!reducer.keeps_order(at, ahead)) throw AheadOfOrder{};
      const double cost_s = double(x.bytes) * reduction_gamma(t_, gamma_, x.bytes, segments_, x.into_sent);
      const flow::RankReducer::Reduced reduced = reducer.reduce(id, at, cost_s, ahead);
      if (reduced.behind != kNoTransfer) log_.waited(id, reduced.behind, Waited::reducer);
      done = reduced.done_s;
    }
    complete(id, x.dst, done);
  }

  // The ranks' memory (or cores) modelled: a reduction is a flow across its rank's memory link
  // of 3 bytes per byte, capped at its reduction unit's pace (or across its core of bytes x
  // gamma x the core's rate: sim/cost_rule.hpp's reduction_flow), one at a time per rank in
  // order of arrival. It arrives now (no shortcut runs ahead with memory modelled).
  void reduce_in_memory(TransferId id, const TransferFacts& x) {
    MemoryReducer& r = memory_reducers_[x.dst];
    if (r.busy) return r.waiting.push_back({id, x});
    start_reduction(id, x, now_);
  }

  void start_reduction(TransferId id, const TransferFacts& x, double now) {
    memory_reducers_[x.dst].busy = true;
    const ReductionFlow flow = reduction_flow_of(x);
    const std::uint32_t slot = channels_.open_reduction(id, x, t_.memory_of(x.dst), flow.cap_Bps);
    join_links(slot, flow.bytes, now);
  }

  ReductionFlow reduction_flow_of(const TransferFacts& x) const {
    return reduction_flow(t_, reduction_gamma(t_, gamma_, x.bytes, segments_, x.into_sent), x.bytes);
  }

  // The reduction's bytes went through memory: it is done, and the rank's next one starts.
  void finish_reduction(std::uint32_t slot, double now) {
    const Flow& f = channels_[slot];
    const TransferId id = f.transfer;
    const TransferFacts x = f.facts;
    links_.carried(channels_.links(slot), reduction_flow_of(x).bytes);
    leave_links(slot, now);
    MemoryReducer& r = memory_reducers_[x.dst];
    r.busy = false;
    if (!r.waiting.empty()) {
      const WaitingReduction next = r.waiting.front();
      r.waiting.pop_front();
      log_.waited(next.id, id, Waited::reducer);
      start_reduction(next.id, next.facts, now);
    }
    complete(id, x.dst, now);
  }

  // Done at `done` (now or, after a reduction, later): successors learn their ready time.
  // Of equal finishes, the lowest id ends the run (the order they are handled in varies).
  void complete(TransferId id, Rank dst, double done) {
    log_.done(id, done);
    ranks_[dst].finish_s = std::max(ranks_[dst].finish_s, done);
    if (completed_ == 0 || done > result_.time_s || (done == result_.time_s && id < last_)) {
      result_.time_s = done;
      last_ = id;
    }
    ++completed_;
    if (options_.progress && (completed_ & progress_mask_) == 0) options_.progress(completed_, total_);
    for (const FlowDependencies::Ready& next : dependencies_->done(id, done)) {
      if (stream_) {
        become_ready(next.id, next.ready_s, {next.facts.src, next.facts.dst, next.facts.bytes, next.facts.op});
      } else {
        become_ready(next.id, next.ready_s);
      }
    }
  }

  // Re-rate the flows the instant's starts and ends can reach (sim/max_min.hpp), and record
  // the utilization of the links whose load may have changed.
  void resolve(double now) {
    for (std::uint32_t drain : sharing_.solve()) set_rate(drain, sharing_.rate(drain), now);
    for (LinkId l : sharing_.changed_links()) links_.utilization(l, sharing_.load(l) / capacity_[l], now);
    result_.rate_solves = sharing_.stats().fills;
  }

  // Account the bytes drained at the old rate; a changed rate moves the flow's end.
  void set_rate(std::uint32_t drain, double rate, double now) {
    Drain& d = draining_[drain];
    d.remaining = std::max(0.0, d.remaining - d.rate * (now - d.since));
    d.since = now;
    if (rate == d.rate) return;  // its pending end event still holds
    d.rate = rate;
    events_.set_end(drain, now + d.remaining / rate, d.transfer);
  }

  const Schedule* s_ = nullptr;            // held
  const TransferStream* stream_ = nullptr;  // streamed
  TransferContext context_;                 // held: what the cost rule prices apart
  std::uint64_t total_;                    // transfers
  const Topology& t_;
  double gamma_;
  FlowOptions options_;
  TransferLog log_;
  std::optional<FlowDependencies> dependencies_;
  std::vector<TransferId> facts_deps_;  // scratch for the stream's answer
  std::uint64_t progress_mask_ = 0;
  FlowChannels channels_;  // flows, by slot, on their rank pairs' channels
  // Facts of the transfers waiting out their start-up on exclusive channels (read once).
  flow::SlotPool<TransferFacts> waiting_;
  std::vector<RankState> ranks_;
  std::vector<MemoryReducer> memory_reducers_;  // per rank; empty without memory links
  Rank first_reducer_;
  std::uint32_t segments_;  // the schedule's segments: a slice's reduction paces as its transfer's
  // Per link.
  std::vector<double> capacity_;
  flow::DrainingFlows draining_;  // the flows draining now, by drain number
  MaxMinSharing sharing_{{}};  // their rates, by drain number
  LinkLog links_;
  EventQueue events_;
  double now_ = 0;

  std::size_t completed_ = 0;
  TransferId last_ = kNoTransfer;
  FlowResult result_;
};

// The event simulation, with the partial shortcut where `options` allow it; where that gave
// up, again with every flow as events. Progress every `every` completed transfers.
template <class Source>
FlowResult simulate_events(const Source& source, const Topology& topology, double gamma_s_per_byte,
                           FlowOptions options, std::uint64_t every) {
  try {
    return FlowSimulation(source, topology, gamma_s_per_byte, options).run(every);
  } catch (const AheadOfOrder&) {
    if (options.on_fallback) options.on_fallback("the partial shortcut gave up: simulating every flow as events");
    options.shortcut = false;
    return FlowSimulation(source, topology, gamma_s_per_byte, options).run(every);
  }
}

void check_size(std::uint64_t transfers) {
  if (transfers > kIdMask)
    throw Error(fmt::format("the flow engine handles at most {} transfers; this schedule has {}", kIdMask, transfers));
}

}  // namespace

FlowResult run_flow(const Schedule& schedule, const Topology& topology, double gamma_s_per_byte,
                    const FlowOptions& options) {
  if (topology.ranks() < schedule.info().ranks)
    throw Error(fmt::format("the schedule has {} ranks but the topology places {}", schedule.info().ranks,
                            topology.ranks()));
  check_size(schedule.size());
  topology.check_reducers(schedule);
  // The shortcuts time transfers alone on their links; a rank's memory link is every one of
  // its transfers' and reductions': with memory modelled, every flow is an event.
  FlowOptions run_options = options;
  if (topology.models_memory()) run_options.shortcut = false;
  if (run_options.shortcut)
    if (std::optional<FlowResult> result = run_flow_without_sharing(schedule, topology, gamma_s_per_byte, options))
      return std::move(*result);
  return simulate_events(schedule, topology, gamma_s_per_byte, run_options, kProgressEvery);
}

FlowResult run_flow(const TransferStream& stream, const Topology& topology, double gamma_s_per_byte,
                    const FlowOptions& options) {
  check_size(stream.size());
  // A stream does not tell which of its transfers are halves of an exchange (a step's reverse
  // may come later in it) or reduce into sent data: such a network needs the schedule held.
  if (prices_transfer_context(topology))
    throw Error("a streamed schedule cannot be priced by exchange_factors or reduction_into_sent_factors: hold it "
                "(--stream never)");
  FlowOptions run_options = options;
  run_options.timeline = false;  // a stream keeps no per-transfer times
  std::string declined_because = "the one-pass shortcut is off";
  if (topology.models_memory()) {
    run_options.shortcut = false;
    declined_because = "the ranks' memory is modelled";
  }
  if (run_options.shortcut)
    if (std::optional<FlowResult> result =
            run_stream_without_sharing(stream, topology, gamma_s_per_byte, options, &declined_because))
      return std::move(*result);
  if (options.on_fallback)
    options.on_fallback(fmt::format("{}: simulating events (the one-pass shortcut cannot time it)", declined_because));
  return simulate_events(stream, topology, gamma_s_per_byte, run_options, kStreamProgressEvery);
}

std::string link_name(const Network& network, LinkId link) {
  const Link& l = network.link(link);
  if (l.kind == LinkKind::memory)
    return fmt::format("{}.{}", network.vertex(l.from).name,
                       network.link_class(l.link_class).name == kCoreClass ? "core" : "memory");
  return fmt::format("{}->{}", network.vertex(l.from).name, network.vertex(l.to).name);
}

}  // namespace collsim
