// sim/analytic_engine.cpp — one pass in list order (a topological order of the DAG).
#include "sim/analytic_engine.hpp"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "base/error.hpp"
#include "sim/cost_rule.hpp"

namespace collsim {
namespace {

// When a rank's resource (send port, receive port, reduction unit) frees, and which
// transfer last held it, so the critical path can be traced through resource waits too.
struct Resource {
  double free_at = 0;
  TransferId holder = kNoTransfer;

  void raise(double& time, TransferId& cause) const {
    if (free_at > time) {
      time = free_at;
      cause = holder;
    }
  }
};

// Messages between ranks on a topology: each pair routed once (a schedule reuses few pairs
// many times), each message costed by the rule at its size (and as half of an exchange or not).
class RoutedPairs {
 public:
  // `segments`: the schedule's segments, for the cost rule (a slice streams with its transfer).
  RoutedPairs(const Topology& topology, std::uint32_t segments, const Protocol& protocol)
      : topology_(topology), segments_(segments), protocol_(protocol) {}

  LinkCost operator()(Rank src, Rank dst, std::uint64_t bytes, bool exchange_half) {
    auto [it, fresh] = pairs_.try_emplace((std::uint64_t(src) << 32) | dst);
    Pair& p = it->second;
    if (fresh) topology_.route(src, dst, 0, p.route);
    return p.cost.at(topology_.network, p.route, bytes, segments_, protocol_, exchange_half).as_link_cost();
  }

 private:
  struct Pair {
    std::vector<LinkId> route;
    RouteCostCache cost;
  };
  const Topology& topology_;
  std::uint32_t segments_;
  const Protocol& protocol_;
  std::unordered_map<std::uint64_t, Pair> pairs_;
};

// `link(src, dst, bytes, exchange_half)` is the LinkCost a message of `bytes` sees between two
// ranks; `gamma(r, bytes, into_sent)` the seconds per byte of a reduction of `bytes` on rank r;
// `context` which transfers are priced by their neighbours (collectives/transfer_context.hpp).
template <class LinkOf, class GammaOf>
AnalyticResult run(const Schedule& s, LinkOf&& link, GammaOf&& gamma, const TransferContext& context,
                   const AnalyticOptions& options) {
  const ScheduleInfo& info = s.info();
  std::vector<double> done(s.size());
  std::vector<TransferId> cause(s.size(), kNoTransfer);
  std::vector<Resource> send_port(info.endpoints()), recv_port(info.endpoints()), reducer(info.endpoints());
  AnalyticResult result;
  result.rank_finish_s.assign(info.endpoints(), 0.0);

  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer t = s.transfer(id);
    const std::uint64_t bytes = s.transfer_bytes(id);
    double start = 0;
    TransferId why = kNoTransfer;
    for (TransferId d : t.deps)
      if (why == kNoTransfer || done[d] > start) {
        start = std::max(start, done[d]);
        why = d;
      }
    double arrival = start;
    if (!t.is_local()) {
      // A switch reducer has a port per GPU: the one-port model binds ranks only.
      if (options.one_port && !info.is_reducer(t.src)) send_port[t.src].raise(start, why);
      if (options.one_port && !info.is_reducer(t.dst)) recv_port[t.dst].raise(start, why);
      arrival = start + link(t.src, t.dst, bytes, context.exchange_half(id)).message_s(bytes);
      send_port[t.src] = recv_port[t.dst] = {arrival, id};
    }
    double finish = arrival;
    if (t.op == Op::reduce && !is_in_network_reduction(info, t)) {  // a switch's reduction is its link
      reducer[t.dst].raise(finish, why);
      finish += double(bytes) * gamma(t.dst, bytes, context.reduction_into_sent(id));
      reducer[t.dst] = {finish, id};
    }
    done[id] = finish;
    cause[id] = why;
    result.rank_finish_s[t.src] = std::max(result.rank_finish_s[t.src], arrival);
    result.rank_finish_s[t.dst] = std::max(result.rank_finish_s[t.dst], finish);
  }

  result.rank_finish_s.resize(info.ranks);
  if (s.size() == 0) return result;
  TransferId last = TransferId(std::max_element(done.begin(), done.end()) - done.begin());
  result.time_s = done[last];
  for (TransferId x = last; x != kNoTransfer; x = cause[x]) result.critical_path.push_back(x);
  std::reverse(result.critical_path.begin(), result.critical_path.end());
  return result;
}

}  // namespace

AnalyticResult run_analytic(const Schedule& s, const CostModel& cost, const AnalyticOptions& options) {
  if (s.info().reducers > 0)
    throw Error(flat_network_has_no_switch(s.info().algorithm));
  const CostModel sent = with_protocol(cost, options.protocol);
  const auto link = [&sent](Rank a, Rank b, std::uint64_t, bool) -> const LinkCost& { return sent.link(a, b); };
  const auto gamma = [&cost](Rank, std::uint64_t, bool) { return cost.gamma_s_per_byte; };
  return run(s, link, gamma, {}, options);
}

AnalyticResult run_analytic(const Schedule& s, const Topology& topology, double gamma_s_per_byte,
                            const AnalyticOptions& options) {
  // Kept branch (docs/design.md, "One priced run"): a flat network's routes cost exactly its
  // classes (topologies/flat_network.hpp): priced by them, its ranks need no routes (an implicit
  // one has none), and a pair costs no lookup, as the closed forms price it.
  if (topology.flat) {
    CostModel classes = *topology.flat;
    classes.gamma_s_per_byte = gamma_s_per_byte;
    return run_analytic(s, classes, options);
  }
  topology.check_reducers(s);
  // With the ranks' memory modelled, a reduction alone draws on it too (sim/cost_rule.hpp): its
  // floor, 3 / memory bandwidth, is the rank's (reduction_s_per_byte at gamma 0), worked out
  // once here rather than at each of a schedule's millions of reductions.
  std::vector<double> memory_floor(s.info().ranks);
  for (Rank r = 0; r < memory_floor.size(); ++r) memory_floor[r] = reduction_s_per_byte(topology, r, 0);
  const auto gamma = [&](Rank r, std::uint64_t bytes, bool into_sent) {
    return std::max(reduction_gamma(topology, gamma_s_per_byte, bytes, s.info().segments, into_sent), memory_floor[r]);
  };
  return run(s, RoutedPairs(topology, s.info().segments, options.protocol), gamma, context_for(s, topology), options);
}

}  // namespace collsim
