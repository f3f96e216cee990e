// sim/flow_rules.hpp — the flow engine's two timing rules besides max-min sharing, each written
// once (internal to the flow engine): the one-pass shortcut (sim/flow_shortcut.cpp) and the
// event simulation's exclusive channels and reductions (sim/flow_engine.cpp) time by them, for
// held and streamed schedules alike, so the paths cannot drift apart.
//
// A rank's reducer (RankReducer). A reduction into rank d arrives when its last byte has
// drained and is done at
//   done = max(arrival, when d's reducer is free) + its cost (bytes x gamma, sim/cost_rule.hpp),
// one reduction at a time, in order of arrival: a rank reduces with one unit (its cores or its
// GPU's SMs), and a reduction takes all of it, so one that arrives while another reduces waits
// for it (on the critical path: Waited::reducer). The event simulation meets arrivals in time
// order; a shortcut times some ahead of the events (the one-pass shortcut in list order, an
// exclusive channel when its bytes start), and might reduce them in an order the events would
// not: keeps_order() says when the order is sure, and the caller otherwise hands over to the
// events. (With the ranks' memory modelled a reduction is a flow on the memory link instead,
// in the same order: sim/flow_engine.cpp.)
//
// A pair's in-order channel (PairChannel). Each (src, dst) pair is one in-order channel, as an
// MPI connection or an NCCL channel is: a transfer whose start-up (alpha and latency) is over
// while an earlier transfer of its pair still drains waits for it (Waited::channel):
//   start   = max(start-up over, the pair's previous arrival);
//   arrival = start + bytes / rate;
// so a pipeline's segments on one edge follow each other at the link's full rate rather than
// splitting it, and the start-up overlaps the earlier drain. PairChannel times a pair whose
// flows drain alone on their links, at one rate from start to arrival (nothing else re-rates
// them); where pairs share links the event simulation queues a pair's flows behind the one
// draining (sim/flow_channels.hpp), which is the same rule with rates max-min sets.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include "collectives/schedule.hpp"

namespace collsim::flow {

class RankReducer {
 public:
  struct Reduced {
    double done_s;
    TransferId behind;  // the reduction it waited for, or kNoTransfer
  };

  // Whether a reduction arriving at `arrival_s` surely reduces after the previous one, as the
  // events would order them. `ahead`: its arrival was timed ahead of the events. A tie with
  // the previous arrival is sure only where neither was timed ahead (the events then break
  // it in their own order); otherwise only a strictly later arrival is.
  bool keeps_order(double arrival_s, bool ahead) const {
    return ahead || last_ahead_ ? !(arrival_s <= last_arrival_s_) : !(arrival_s < last_arrival_s_);
  }

  // Reduction `id` arrives at `arrival_s` and takes `cost_s` on the reducer.
  Reduced reduce(TransferId id, double arrival_s, double cost_s, bool ahead) {
    const TransferId behind = free_s_ > arrival_s ? last_ : kNoTransfer;
    free_s_ = std::max(arrival_s, free_s_) + cost_s;
    last_arrival_s_ = arrival_s;
    last_ = id;
    last_ahead_ = ahead;
    return {free_s_, behind};
  }

 private:
  double free_s_ = 0;             // when its last reduction is done
  double last_arrival_s_ = -1;    // when that one arrived
  TransferId last_ = kNoTransfer;
  bool last_ahead_ = false;       // that arrival was timed ahead of the events
};

class PairChannel {
 public:
  struct Drained {
    double start_s, arrival_s;
    TransferId behind;  // the pair's earlier transfer it waited for, or kNoTransfer
  };
  // What the channel's links carried: its flows' bytes, the time one of them drained, and the
  // fastest rate one drained at.
  struct Carried {
    double bytes = 0, busy_s = 0, fastest_Bps = 0;
  };

  // Transfer `id`, its start-up over at `startup_over_s`, drains `bytes` alone at `rate_Bps`.
  Drained drain(TransferId id, double startup_over_s, std::uint64_t bytes, double rate_Bps) {
    Drained d{startup_over_s, 0, kNoTransfer};
    if (last_arrival_s_ > startup_over_s) {
      d.start_s = last_arrival_s_;
      d.behind = last_;
    }
    d.arrival_s = d.start_s + double(bytes) / rate_Bps;
    last_arrival_s_ = d.arrival_s;
    last_ = id;
    carried_.bytes += double(bytes);
    carried_.busy_s += d.arrival_s - d.start_s;
    carried_.fastest_Bps = std::max(carried_.fastest_Bps, rate_Bps);
    return d;
  }

  TransferId last() const { return last_; }  // kNoTransfer before its first transfer
  double last_arrival_s() const { return last_arrival_s_; }
  const Carried& carried() const { return carried_; }
  // What it carried since the last call (or the start), counted from zero again.
  Carried take_carried() { return std::exchange(carried_, {}); }

 private:
  double last_arrival_s_ = 0;  // when its latest transfer's last byte arrived
  TransferId last_ = kNoTransfer;
  Carried carried_;
};

}  // namespace collsim::flow
