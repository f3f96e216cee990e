// sim/analytic_engine.cpp — one pass in list order (a topological order of the DAG).
#include "sim/analytic_engine.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "base/error.hpp"
#include "sim/host_issue.hpp"
#include "sim/pair_pricing.hpp"

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
    // Not before the host has issued it: then it waited for the host, not for a dependency.
    if (const double issued = issued_at(options.issue_s, id); issued > start) {
      start = issued;
      why = kNoTransfer;
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

// The pass with what `pricing` gives it (sim/pair_pricing.hpp), as the concrete types it chose.
template <class Pricing>
AnalyticResult run_priced(const Schedule& s, const Pricing& pricing, const AnalyticOptions& options) {
  return pricing.price(s, [&](auto&& link, auto&& gamma, const TransferContext& context) {
    return run(s, link, gamma, context, options);
  });
}

}  // namespace

AnalyticResult run_analytic(const Schedule& s, const CostModel& cost, const AnalyticOptions& options) {
  if (s.info().reducers > 0)
    throw Error(flat_network_has_no_switch(s.info().algorithm));
  return run_priced(s, ClassPricing(cost, cost.gamma_s_per_byte, options.protocol), options);
}

AnalyticResult run_analytic(const Schedule& s, const Topology& topology, double gamma_s_per_byte,
                            const AnalyticOptions& options) {
  topology.check_reducers(s);
  return run_priced(s, PairPricing(topology, gamma_s_per_byte, options.protocol), options);
}

}  // namespace collsim
