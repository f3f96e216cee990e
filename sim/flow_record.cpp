// sim/flow_record.cpp — the timeline and the critical path of a flow-engine run (see the header).
#include "sim/flow_record.hpp"

#include <algorithm>
#include <unordered_map>

#include "sim/cost_rule.hpp"

namespace collsim {

void TransferLog::fill_timeline(std::vector<TransferTimes>& timeline) const {
  timeline.resize(records_.size());
  for (TransferId id = 0; id < records_.size(); ++id) timeline[id] = records_[id].times;
}

void trace_critical_path(const Schedule& s, const Topology& t, TransferId last,
                         const std::function<TransferRecord(TransferId)>& record, FlowResult& result) {
  std::vector<LinkId> route;
  std::unordered_map<LinkId, CriticalLink> links;
  const TransferContext context = context_for(s, t);
  for (TransferId id = last; id != kNoTransfer;) {
    const Transfer x = s.transfer(id);
    const TransferRecord r = record(id);
    CriticalTransfer c{id, r.times, 0, r.waited};
    if (!x.is_local()) {
      route.clear();
      t.route(x.src, x.dst, id, route);
      for (LinkId l : route) {
        CriticalLink& cl = links[l];
        cl.link = l;
        cl.drain_s += r.times.arrival_s - r.times.start_s;
        ++cl.transfers;
      }
      const std::uint64_t bytes = s.transfer_bytes(id);
      const bool exchange_half = context.exchange_half(id);
      c.ideal_drain_s =
          double(bytes) / route_cost(t.network, route, bytes, s.info().segments, result.protocol, exchange_half).bandwidth_Bps;
    }
    result.critical_path.push_back(c);
    id = r.waited == Waited::nothing ? kNoTransfer : r.pred;
  }
  std::reverse(result.critical_path.begin(), result.critical_path.end());
  for (const auto& [l, cl] : links) result.critical_links.push_back(cl);
  std::sort(result.critical_links.begin(), result.critical_links.end(), [](const auto& a, const auto& b) {
    return a.drain_s != b.drain_s ? a.drain_s > b.drain_s : a.link < b.link;
  });
}

}  // namespace collsim
