// sim/flow_record.hpp — what a flow-engine run records for its report (internal to the flow
// engine and its shortcut): per transfer, its times and the predecessor it waited for; per
// link, the bytes it carried, its busy time and utilization; and from those, the critical
// path. Recording never decides a time: the simulation (sim/flow_engine.cpp) and the
// shortcut (sim/flow_shortcut.cpp) do, and tell it here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "collectives/schedule.hpp"
#include "sim/flow_result.hpp"
#include "topologies/topology.hpp"

namespace collsim {

// Per transfer, what the critical path needs: times, the critical predecessor and why.
struct TransferRecord {
  TransferTimes times;
  TransferId pred = kNoTransfer;
  Waited waited = Waited::nothing;
};

// Every transfer's times and critical predecessor (a held schedule, for the critical path and
// the timeline), its ready time alone (a held schedule whose critical path nobody asked for:
// 8 bytes a transfer, not 40), or nothing (a streamed one: every id then shares one scratch
// record that nobody reads back). One record per transfer: handling a transfer touches one
// cache line, not six arrays.
class TransferLog {
 public:
  enum class Keep { records, ready_times, nothing };
  TransferLog(std::uint64_t transfers, Keep keep)
      : mask_(keep == Keep::records ? ~0u : 0u),
        records_(keep == Keep::records ? transfers : 1),
        ready_only_(keep == Keep::ready_times ? transfers : 0) {}

  bool keeps_records() const { return mask_ != 0; }
  double ready_s(TransferId id) const { return ready_only_.empty() ? records_[at(id)].times.ready_s : ready_only_[id]; }
  // Dependency `dep` of `id` is done at `done`: the latest decides its ready time and is its
  // critical predecessor; of dependencies done at once, the lowest id (they may be handled in
  // any order).
  void dependency_done(TransferId id, TransferId dep, double done) {
    if (!ready_only_.empty()) {
      ready_only_[id] = std::max(ready_only_[id], done);
      return;
    }
    TransferRecord& r = records_[at(id)];
    if (r.pred == kNoTransfer || done > r.times.ready_s || (done == r.times.ready_s && dep < r.pred)) {
      r.times.ready_s = done;
      r.pred = dep;
      r.waited = Waited::dependency;
    }
  }
  void ready(TransferId id, double t) { records_[at(id)].times.ready_s = t; }
  void started(TransferId id, double t) { records_[at(id)].times.start_s = t; }
  void arrived(TransferId id, double t) { records_[at(id)].times.arrival_s = t; }
  void done(TransferId id, double t) { records_[at(id)].times.done_s = t; }
  void waited(TransferId id, TransferId pred, Waited why) {
    TransferRecord& r = records_[at(id)];
    r.pred = pred;
    r.waited = why;
  }

  const TransferRecord& record(TransferId id) const { return records_[id]; }
  void fill_timeline(std::vector<TransferTimes>& timeline) const;

 private:
  std::uint32_t at(TransferId id) const { return id & mask_; }

  std::uint32_t mask_;  // all ones: one record per transfer; 0: the scratch record
  std::vector<TransferRecord> records_;
  std::vector<double> ready_only_;
};

// Per directed link: bytes carried, time busy (at least one flow draining), peak utilization
// and, with a timeline, each change of utilization in time order.
class LinkLog {
 public:
  LinkLog(std::size_t links, bool timeline) : timeline_(timeline), busy_since_(links, 0.0), usage_(links) {}

  void busy_from(LinkId l, double now) { busy_since_[l] = now; }
  // Its last flow left; counted once, should a route cross the link twice.
  void idle_from(LinkId l, double now) {
    if (busy_since_[l] < 0) return;
    usage_[l].busy_s += now - busy_since_[l];
    busy_since_[l] = -1;
  }
  void carried(std::span<const LinkId> links, double bytes) {
    for (LinkId l : links) usage_[l].bytes += bytes;
  }
  bool timeline() const { return timeline_; }
  // With a timeline: a flow alone on its links (an exclusive channel's) drained from start to
  // arrival at `rate_Bps`.
  void drained_alone(std::span<const LinkId> links, double start, double arrival, std::span<const double> capacity,
                     double rate_Bps) {
    for (LinkId l : links) {
      changes_.push_back({start, l, rate_Bps / capacity[l]});
      changes_.push_back({arrival, l, 0});
    }
    in_order_ = false;  // an arrival is recorded ahead of the events before it
  }
  // Links only one channel's flows crossed: what they carried, their time busy and their
  // fastest flow.
  void carried_alone(std::span<const LinkId> links, double bytes, double busy_s, std::span<const double> capacity,
                     double fastest_Bps) {
    for (LinkId l : links) {
      usage_[l].bytes += bytes;
      usage_[l].busy_s += busy_s;
      usage_[l].peak_utilization = std::max(usage_[l].peak_utilization, fastest_Bps / capacity[l]);
    }
  }
  void utilization(LinkId l, double utilization, double now) {
    usage_[l].peak_utilization = std::max(usage_[l].peak_utilization, utilization);
    if (timeline_) changes_.push_back({now, l, utilization});
  }
  void move_into(FlowResult& result) {
    if (!in_order_)
      std::stable_sort(changes_.begin(), changes_.end(), [](const auto& a, const auto& b) { return a.time_s < b.time_s; });
    result.links = std::move(usage_);
    result.utilization = std::move(changes_);
  }

 private:
  bool timeline_;
  std::vector<double> busy_since_;
  std::vector<LinkUsage> usage_;
  std::vector<UtilizationChange> changes_;
  bool in_order_ = true;  // changes_ in time order
};

// The critical path from `last` back through the predecessors, and the links it drained across
// (routes recomputed: they are a pure function of the pair and transfer id).
void trace_critical_path(const Schedule& schedule, const Topology& topology, TransferId last,
                         const std::function<TransferRecord(TransferId)>& record, FlowResult& result);

}  // namespace collsim
