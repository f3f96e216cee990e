// sim/flow_shortcut.cpp — the flow engine's times in one pass over the list, where no link is
// shared by two rank pairs.
#include "sim/flow_shortcut.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "base/error.hpp"
#include "sim/cost_rule.hpp"
#include "sim/flow_queue.hpp"
#include "sim/flow_record.hpp"
#include "sim/flow_rules.hpp"
#include "sim/host_issue.hpp"

namespace collsim {
namespace {

struct PairRoute {
  std::uint32_t begin = 0, length = 0;  // links in the pool
  RouteCostCache cost;                  // by the cost rule, at the last message size
  flow::PairChannel channel;            // its transfers, each alone on the route
  double last_startup_over_s = 0;       // of the channel's latest transfer
};

constexpr std::uint32_t kNoPair = ~0u;

// The rank pairs met so far, each routed once; fails when a new route crosses a link that
// another pair already crosses.
class PairTable {
 public:
  // `segments`: the schedule's segments, for the cost rule (a slice streams with its transfer).
  PairTable(const Topology& t, std::uint32_t segments, const Protocol& protocol)
      : t_(t), segments_(segments), protocol_(protocol), owner_(t.network.link_count(), kNoPair) {}

  std::uint32_t find_or_route(Rank src, Rank dst, TransferId flow) {
    const std::uint32_t index = index_.find_or_add(src, dst, std::uint32_t(pairs_.size()));
    if (index == pairs_.size() && !route(src, dst, flow, index)) return kNoPair;
    return index;
  }
  PairRoute& operator[](std::uint32_t i) { return pairs_[i]; }
  std::span<const LinkId> links(const PairRoute& p) const { return {pool_.data() + p.begin, p.length}; }
  // A message of `bytes` alone on the pair's route (sim/cost_rule.hpp), half of an exchange or not.
  const RouteCost& cost(PairRoute& p, std::uint64_t bytes, bool exchange_half) const {
    return p.cost.at(t_.network, links(p), bytes, segments_, protocol_, exchange_half);
  }
  double utilization(LinkId l, double rate_Bps) const { return rate_Bps / shared_capacity_Bps(t_.network, l, protocol_); }

  // Each link carried only its owner's flows.
  void account(std::vector<LinkUsage>& links) const {
    for (const PairRoute& p : pairs_) {
      const flow::PairChannel::Carried& carried = p.channel.carried();
      for (LinkId l : this->links(p)) {
        links[l].bytes = carried.bytes;
        links[l].busy_s = carried.busy_s;
        if (carried.bytes > 0) links[l].peak_utilization = utilization(l, carried.fastest_Bps);
      }
    }
  }

 private:
  bool route(Rank src, Rank dst, TransferId flow, std::uint32_t index) {
    PairRoute& p = pairs_.emplace_back();
    p.begin = std::uint32_t(pool_.size());
    t_.route(src, dst, flow, pool_);
    p.length = std::uint32_t(pool_.size() - p.begin);
    for (LinkId l : links(p)) {
      if (owner_[l] != kNoPair) return false;  // two pairs cross this link
      owner_[l] = index;
    }
    return true;
  }

  const Topology& t_;
  std::uint32_t segments_;
  Protocol protocol_;
  std::vector<std::uint32_t> owner_;
  flow::PairIndex index_;
  std::vector<PairRoute> pairs_;
  std::vector<LinkId> pool_;
};

// What the cost rule prices a transfer by beyond its size (collectives/transfer_context.hpp).
struct PricedAs {
  bool exchange_half = false;
  bool into_sent = false;
};

// One transfer's times, from its ready time on.
struct Timing {
  TransferTimes times;
  TransferId pred = kNoTransfer;  // set when it waited for its channel or reduction unit
  Waited waited = Waited::nothing;
};

class ListTimer {
 public:
  // `options`: the run's protocol and the host's issue of each transfer.
  ListTimer(const Topology& t, Rank ranks, std::uint32_t segments, const FlowOptions& options, double gamma)
      : pairs_(t, segments, options.protocol), t_(t), gamma_(gamma), issue_s_(options.issue_s), segments_(segments),
        reducers_(ranks) {}

  // Issued (sim/host_issue.hpp), drains on its pair's channel, then reduces (sim/flow_rules.hpp).
  // False when the list order could differ from the event simulation's order.
  bool time(TransferId id, Rank src, Rank dst, std::uint64_t bytes, Op op, PricedAs priced, Timing& t) {
    const double issued = std::max(t.times.ready_s, issued_at(issue_s_, id));
    t.times.start_s = t.times.arrival_s = issued;
    if (src != dst && !drain(id, src, dst, bytes, priced.exchange_half, issued, t)) return false;
    t.times.done_s = t.times.arrival_s;
    if (op != Op::reduce) return true;
    // Every arrival is timed ahead of the events here, so only a strictly later one is sure.
    flow::RankReducer& reducer = reducers_[dst];
    if (!reducer.keeps_order(t.times.arrival_s, true))
      return decline("two reductions arrive at one rank out of list order");
    const double cost_s = double(bytes) * reduction_gamma(t_, gamma_, bytes, segments_, priced.into_sent);
    const flow::RankReducer::Reduced reduced = reducer.reduce(id, t.times.arrival_s, cost_s, true);
    if (reduced.behind != kNoTransfer) {
      t.pred = reduced.behind;
      t.waited = Waited::reducer;
    }
    t.times.done_s = reduced.done_s;
    return true;
  }

  PairTable& pairs() { return pairs_; }
  std::uint32_t last_pair() const { return last_pair_; }
  // Why time() last returned false, in words.
  const std::string& declined_because() const { return declined_because_; }

 private:
  bool decline(std::string why) {
    declined_because_ = std::move(why);
    return false;
  }

  // Alpha and latency from `issued` on, then after the pair's previous transfer has drained.
  bool drain(TransferId id, Rank src, Rank dst, std::uint64_t bytes, bool exchange_half, double issued, Timing& t) {
    last_pair_ = pairs_.find_or_route(src, dst, id);
    if (last_pair_ == kNoPair) return decline("two rank pairs' routes share a link");
    PairRoute& p = pairs_[last_pair_];
    const RouteCost& cost = pairs_.cost(p, bytes, exchange_half);
    const double startup_over_s = issued + cost.startup_s;
    // The events queue a pair's transfers in the order their start-ups end, equal ends in
    // order of id (sim/flow_queue.hpp), which is list order: so list order is theirs unless
    // a later transfer's start-up ends strictly earlier. (C channels on one pair, a ring's
    // channels on a flat or fat-tree fabric, end theirs at the same instant.)
    if (p.channel.last() != kNoTransfer && startup_over_s < p.last_startup_over_s)
      return decline("a later transfer of one rank pair ends its start-up first");
    const flow::PairChannel::Drained drained = p.channel.drain(id, startup_over_s, bytes, cost.bandwidth_Bps);
    t.times.start_s = drained.start_s;
    t.times.arrival_s = drained.arrival_s;
    if (drained.behind != kNoTransfer) {
      t.pred = drained.behind;
      t.waited = Waited::channel;
    }
    p.last_startup_over_s = startup_over_s;
    return true;
  }

  PairTable pairs_;
  const Topology& t_;
  double gamma_;
  double issue_s_;
  std::uint32_t segments_;  // a slice's reduction paces as its transfer's (reduction_gamma)
  std::vector<flow::RankReducer> reducers_;  // per rank
  std::uint32_t last_pair_ = kNoPair;
  std::string declined_because_;
};

void finish_rank(FlowResult& result, Rank src, Rank dst, const TransferTimes& t) {
  result.rank_finish_s[src] = std::max(result.rank_finish_s[src], t.arrival_s);
  result.rank_finish_s[dst] = std::max(result.rank_finish_s[dst], t.done_s);
}

// A held schedule: every transfer's record is kept, for the critical path and the timeline.
bool time_schedule(const Schedule& s, const Topology& topology, double gamma, const FlowOptions& options,
                   FlowResult& result) {
  ListTimer timer(topology, s.info().ranks, s.info().segments, options, gamma);
  const TransferContext context = context_for(s, topology);
  // Reserved (address space only) and filled as ids come: a schedule declined early (a
  // shared link met in its first step) costs little, not a zeroed record per transfer.
  std::vector<TransferRecord> records;
  records.reserve(s.size());
  result.rank_finish_s.assign(s.info().ranks, 0.0);
  result.protocol = options.protocol;
  result.issue_s = options.issue_s;
  TransferId last = kNoTransfer;
  for (TransferId id = 0; id < s.size(); ++id) {
    if (options.progress && id > 0 && id % kProgressEvery == 0) options.progress(id, s.size());
    const Transfer x = s.transfer(id);
    Timing t;
    for (TransferId d : x.deps) {
      if (d >= id) return false;  // not in list order: the event simulation reports what never completes
      if (t.pred == kNoTransfer || records[d].times.done_s > t.times.ready_s) {
        t.times.ready_s = records[d].times.done_s;
        t.pred = d;
        t.waited = Waited::dependency;
      }
    }
    const bool exchange_half = context.exchange_half(id);
    if (!timer.time(id, x.src, x.dst, s.transfer_bytes(id), x.op, {exchange_half, context.reduction_into_sent(id)}, t))
      return false;
    records.push_back({t.times, t.pred, t.waited});
    finish_rank(result, x.src, x.dst, t.times);
    if (last == kNoTransfer || t.times.done_s > result.time_s) {
      result.time_s = t.times.done_s;
      last = id;
    }
    if (options.timeline && !x.is_local()) {
      PairRoute& p = timer.pairs()[timer.last_pair()];
      const double rate_Bps = timer.pairs().cost(p, s.transfer_bytes(id), exchange_half).bandwidth_Bps;
      for (LinkId l : timer.pairs().links(p)) {
        result.utilization.push_back({t.times.start_s, l, timer.pairs().utilization(l, rate_Bps)});
        result.utilization.push_back({t.times.arrival_s, l, 0});
      }
    }
  }
  result.links.assign(topology.network.link_count(), {});
  timer.pairs().account(result.links);
  if (last != kNoTransfer)
    trace_critical_path(s, topology, last, [&records](TransferId id) { return records[id]; }, result);
  if (options.timeline) {
    for (const TransferRecord& r : records) result.timeline.push_back(r.times);
    std::stable_sort(result.utilization.begin(), result.utilization.end(),
                     [](const auto& a, const auto& b) { return a.time_s < b.time_s; });
  }
  return true;
}

}  // namespace

std::optional<FlowResult> run_flow_without_sharing(const Schedule& schedule, const Topology& topology,
                                                   double gamma_s_per_byte, const FlowOptions& options) {
  if (topology.routing != RoutingMode::minimal && topology.routing != RoutingMode::shortest_path) return std::nullopt;
  // A switch reducer's link carries every reduction into it: the events share it.
  if (schedule.info().reducers > 0) return std::nullopt;
  FlowResult result;
  if (!time_schedule(schedule, topology, gamma_s_per_byte, options, result)) return std::nullopt;
  return result;
}

// A stream: only a window of done times, as far back as a dependency reaches.
std::optional<FlowResult> run_stream_without_sharing(const TransferStream& stream, const Topology& topology,
                                                    double gamma_s_per_byte, const FlowOptions& options,
                                                    std::string* declined_because) {
  const Rank ranks = stream.info().ranks;
  if (topology.ranks() < ranks)
    throw Error(fmt::format("the schedule has {} ranks but the topology places {}", ranks, topology.ranks()));
  if (topology.routing != RoutingMode::minimal && topology.routing != RoutingMode::shortest_path)
    throw Error("a streamed schedule needs routes fixed per rank pair (minimal or shortest-path routing)");
  ListTimer timer(topology, ranks, stream.info().segments, options, gamma_s_per_byte);
  // Done times at id % window, as far back as a deciding dependency reaches (one that is not
  // deciding is done before one that is, so it never sets a ready time: a ring's allgather
  // waits on the reduce-scatter P^2 S transfers back, a window of 2 GB at 16,384 ranks, where
  // its deciding dependency is P S back). Reserved (address space only) and filled as ids
  // come, so memory is touched only as far as the stream gets.
  const std::uint64_t transfers = stream.size();  // asked once: a stream's size is a virtual call
  const std::uint64_t window = std::min<std::uint64_t>(stream.max_deciding_distance() + 1, transfers + 1);
  std::vector<double> done;
  done.reserve(window);
  FlowResult result;
  result.rank_finish_s.assign(ranks, 0.0);
  result.protocol = options.protocol;
  result.issue_s = options.issue_s;
  std::vector<TransferId> deps;
  for (TransferId id = 0; id < transfers; ++id) {
    const StreamedTransfer x = stream.deciding_transfer(id, deps);
    Timing t;
    for (TransferId d : x.deps) t.times.ready_s = std::max(t.times.ready_s, done[d % window]);
    // Streams are never priced by their context (run_flow refuses a stream on such a network).
    if (!timer.time(id, x.src, x.dst, x.bytes, x.op, PricedAs{}, t)) {
      if (declined_because) *declined_because = timer.declined_because();
      return std::nullopt;
    }
    if (id % window == done.size()) done.push_back(0);
    done[id % window] = t.times.done_s;
    finish_rank(result, x.src, x.dst, t.times);
    result.time_s = std::max(result.time_s, t.times.done_s);
    if (options.progress && (id & (kStreamProgressEvery - 1)) == 0) options.progress(id, transfers);
  }
  result.links.assign(topology.network.link_count(), {});
  timer.pairs().account(result.links);
  return result;
}

}  // namespace collsim
