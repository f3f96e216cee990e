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

// Every transfer's times and critical predecessor (a held schedule), or none (a streamed one:
// too many to keep; every id then shares one scratch slot that nobody reads back).
class TransferLog {
 public:
  TransferLog(std::uint64_t transfers, bool keep_each)
      : mask_(keep_each ? ~0u : 0u), ready_(slots(transfers, keep_each), 0.0), start_(ready_.size(), 0.0),
        arrival_(ready_.size(), 0.0), done_(ready_.size(), 0.0), pred_(ready_.size(), kNoTransfer),
        waited_(ready_.size(), Waited::nothing) {}

  double ready_s(TransferId id) const { return ready_[at(id)]; }
  TransferId pred(TransferId id) const { return pred_[at(id)]; }
  void ready(TransferId id, double t) { ready_[at(id)] = t; }
  void started(TransferId id, double t) { start_[at(id)] = t; }
  void arrived(TransferId id, double t) { arrival_[at(id)] = t; }
  void done(TransferId id, double t) { done_[at(id)] = t; }
  void waited(TransferId id, TransferId pred, Waited why) {
    pred_[at(id)] = pred;
    waited_[at(id)] = why;
  }

  TransferRecord record(TransferId id) const {
    return {{ready_[id], start_[id], arrival_[id], done_[id]}, pred_[id], waited_[id]};
  }
  void fill_timeline(std::vector<TransferTimes>& timeline) const;

 private:
  static std::size_t slots(std::uint64_t transfers, bool keep_each) { return keep_each ? transfers : 1; }
  std::uint32_t at(TransferId id) const { return id & mask_; }

  std::uint32_t mask_;  // all ones: one slot per transfer; 0: the scratch slot
  std::vector<double> ready_, start_, arrival_, done_;
  std::vector<TransferId> pred_;
  std::vector<Waited> waited_;
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
  // A flow alone on its links (an exclusive channel's) drained `bytes` from start to
  // arrival at `utilization` of each link's capacity.
  void drained_alone(std::span<const LinkId> links, double start, double arrival, double bytes,
                     std::span<const double> capacity, double rate_Bps) {
    for (LinkId l : links) {
      usage_[l].bytes += bytes;
      usage_[l].busy_s += arrival - start;
      utilization(l, rate_Bps / capacity[l], start);
      if (timeline_) changes_.push_back({arrival, l, 0});
    }
    if (timeline_) in_order_ = false;  // an arrival is recorded ahead of the events before it
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
