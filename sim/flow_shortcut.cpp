// sim/flow_shortcut.cpp — the flow engine's times in one pass over the list, where no link is
// shared by two rank pairs.
#include "sim/flow_shortcut.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace collsim {
namespace {

struct PairRoute {
  double delay_s = 0, bottleneck_Bps = std::numeric_limits<double>::infinity();
  std::uint32_t begin = 0, length = 0;  // links in the pool
  TransferId last = kNoTransfer;        // its channel's latest transfer
};

class Shortcut {
 public:
  Shortcut(const Schedule& s, const Topology& t, double gamma, const FlowOptions& options)
      : s_(s), t_(t), gamma_(gamma), options_(options), records_(s.size()), reducer_free_(s.info().ranks, 0.0),
        reducer_last_(s.info().ranks, kNoTransfer) {}

  // False when two pairs' routes share a link, or the list order disagrees with the engine's.
  bool run(FlowResult& result) {
    if (!route_pairs()) return false;
    result.rank_finish_s.assign(s_.info().ranks, 0.0);
    result.links.assign(t_.network.link_count(), {});
    TransferId last = kNoTransfer;
    for (TransferId id = 0; id < s_.size(); ++id) {
      if (!time_transfer(id)) return false;
      const Transfer x = s_.transfer(id);
      const TransferTimes& t = records_[id].times;
      result.rank_finish_s[x.src] = std::max(result.rank_finish_s[x.src], t.arrival_s);
      result.rank_finish_s[x.dst] = std::max(result.rank_finish_s[x.dst], t.done_s);
      if (last == kNoTransfer || t.done_s > result.time_s) {
        result.time_s = t.done_s;
        last = id;
      }
      if (!x.is_local()) account_links(id, result);
    }
    if (last != kNoTransfer) trace_critical_path(s_, t_, records_, last, result);
    if (options_.timeline) {
      result.timeline.reserve(s_.size());
      for (const TransferRecord& r : records_) result.timeline.push_back(r.times);
      std::stable_sort(result.utilization.begin(), result.utilization.end(),
                       [](const auto& a, const auto& b) { return a.time_s < b.time_s; });
    }
    return true;
  }

 private:
  bool route_pairs() {
    std::vector<std::uint32_t> owner(t_.network.link_count(), ~0u);
    for (TransferId id = 0; id < s_.size(); ++id) {
      const Transfer x = s_.transfer(id);
      if (x.is_local()) continue;
      auto [it, fresh] = pair_index_.try_emplace((std::uint64_t(x.src) << 32) | x.dst, std::uint32_t(pairs_.size()));
      if (!fresh) continue;
      PairRoute& p = pairs_.emplace_back();
      p.begin = std::uint32_t(pool_.size());
      t_.route(x.src, x.dst, id, pool_);
      p.length = std::uint32_t(pool_.size() - p.begin);
      const std::span<const LinkId> links(pool_.data() + p.begin, p.length);
      p.delay_s = route_alpha(t_.network, links) + route_latency(t_.network, links);
      for (LinkId l : links) {
        if (owner[l] != ~0u) return false;  // two pairs cross this link
        owner[l] = it->second;
        p.bottleneck_Bps = std::min(p.bottleneck_Bps, t_.network.link(l).bandwidth_Bps);
      }
    }
    return true;
  }

  bool time_transfer(TransferId id) {
    const Transfer x = s_.transfer(id);
    TransferRecord& r = records_[id];
    for (TransferId d : x.deps)
      if (r.pred == kNoTransfer || records_[d].times.done_s > r.times.ready_s) {
        r.times.ready_s = records_[d].times.done_s;
        r.pred = d;
        r.waited = Waited::dependency;
      }
    r.times.start_s = r.times.arrival_s = r.times.ready_s;
    if (!x.is_local() && !drain(id, x, r)) return false;
    r.times.done_s = r.times.arrival_s;
    if (x.op == Op::reduce) {
      const TransferId ahead = reducer_last_[x.dst];
      if (ahead != kNoTransfer && !(r.times.arrival_s > records_[ahead].times.arrival_s)) return false;
      if (reducer_free_[x.dst] > r.times.arrival_s) {
        r.pred = ahead;
        r.waited = Waited::reducer;
      }
      r.times.done_s = std::max(r.times.arrival_s, reducer_free_[x.dst]) + double(s_.transfer_bytes(id)) * gamma_;
      reducer_free_[x.dst] = r.times.done_s;
      reducer_last_[x.dst] = id;
    }
    return true;
  }

  // After alpha and latency, and after the pair's previous transfer has drained.
  bool drain(TransferId id, const Transfer& x, TransferRecord& r) {
    PairRoute& p = pairs_[pair_index_.at((std::uint64_t(x.src) << 32) | x.dst)];
    r.times.start_s = r.times.ready_s + p.delay_s;
    if (p.last != kNoTransfer) {
      const TransferRecord& before = records_[p.last];
      if (!(r.times.ready_s > before.times.ready_s)) return false;  // the engine could order them otherwise
      if (before.times.arrival_s > r.times.start_s) {
        r.times.start_s = before.times.arrival_s;
        r.pred = p.last;
        r.waited = Waited::channel;
      }
    }
    r.times.arrival_s = r.times.start_s + double(s_.transfer_bytes(id)) / p.bottleneck_Bps;
    p.last = id;
    return true;
  }

  void account_links(TransferId id, FlowResult& result) {
    const Transfer x = s_.transfer(id);
    const PairRoute& p = pairs_[pair_index_.at((std::uint64_t(x.src) << 32) | x.dst)];
    const TransferTimes& t = records_[id].times;
    const double bytes = double(s_.transfer_bytes(id));
    for (std::uint32_t i = p.begin; i < p.begin + p.length; ++i) {
      const LinkId l = pool_[i];
      LinkUsage& u = result.links[l];
      const double utilization = p.bottleneck_Bps / t_.network.link(l).bandwidth_Bps;
      u.bytes += bytes;
      u.busy_s += t.arrival_s - t.start_s;
      u.peak_utilization = std::max(u.peak_utilization, utilization);
      if (options_.timeline) {
        result.utilization.push_back({t.start_s, l, utilization});
        result.utilization.push_back({t.arrival_s, l, 0});
      }
    }
  }

  const Schedule& s_;
  const Topology& t_;
  double gamma_;
  FlowOptions options_;
  std::vector<TransferRecord> records_;
  std::vector<double> reducer_free_;
  std::vector<TransferId> reducer_last_;
  std::unordered_map<std::uint64_t, std::uint32_t> pair_index_;
  std::vector<PairRoute> pairs_;
  std::vector<LinkId> pool_;
};

}  // namespace

std::optional<FlowResult> run_flow_without_sharing(const Schedule& schedule, const Topology& topology,
                                                   double gamma_s_per_byte, const FlowOptions& options) {
  if (topology.routing != RoutingMode::minimal && topology.routing != RoutingMode::shortest_path) return std::nullopt;
  FlowResult result;
  if (!Shortcut(schedule, topology, gamma_s_per_byte, options).run(result)) return std::nullopt;
  return result;
}

void trace_critical_path(const Schedule& s, const Topology& t, const std::vector<TransferRecord>& records,
                         TransferId last, FlowResult& result) {
  std::vector<LinkId> route;
  std::unordered_map<LinkId, CriticalLink> links;
  for (TransferId id = last; id != kNoTransfer; id = records[id].pred) {
    const Transfer x = s.transfer(id);
    const TransferRecord& r = records[id];
    CriticalTransfer c{id, r.times, 0, r.waited};
    if (!x.is_local()) {
      route.clear();
      t.route(x.src, x.dst, id, route);
      double bottleneck = std::numeric_limits<double>::infinity();
      for (LinkId l : route) {
        bottleneck = std::min(bottleneck, t.network.link(l).bandwidth_Bps);
        CriticalLink& cl = links[l];
        cl.link = l;
        cl.drain_s += r.times.arrival_s - r.times.start_s;
        ++cl.transfers;
      }
      c.ideal_drain_s = double(s.transfer_bytes(id)) / bottleneck;
    }
    result.critical_path.push_back(c);
    if (r.waited == Waited::nothing) break;
  }
  std::reverse(result.critical_path.begin(), result.critical_path.end());
  for (const auto& [l, cl] : links) result.critical_links.push_back(cl);
  std::sort(result.critical_links.begin(), result.critical_links.end(), [](const auto& a, const auto& b) {
    return a.drain_s != b.drain_s ? a.drain_s > b.drain_s : a.link < b.link;
  });
}

}  // namespace collsim
