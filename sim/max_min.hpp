// sim/max_min.hpp — max-min fair rates of flows sharing links, by progressive filling: every
// flow's rate grows at the same pace until a link it crosses is full; that link's flows are
// frozen at their share and the rest keep growing (Bertsekas & Gallager, "Data Networks",
// 6.5.2). It is the sharing rule of SimGrid's CM02 model without cross-traffic, and the rate
// rule of the flow engine (docs/design.md section 6).
//
// Result: each flow has a bottleneck link, one that is full and on which no other flow is
// faster; that property defines the allocation, which is unique. A flow crossing no link (both
// ends on one vertex) gets an infinite rate.
//
// MaxMinSharing keeps the allocation of a changing set of flows and, after flows come and go,
// re-solves only the flows the change can reach (see max_min.cpp for why it stays exact);
// max_min_rates solves one set from scratch.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "sim/radix_heap.hpp"

namespace collsim {

// The links of each flow, as compressed rows: flow f crosses links[first[f] .. first[f+1]).
struct FlowLinks {
  std::vector<std::uint32_t> first{0};
  std::vector<std::uint32_t> links;

  void add_flow(std::span<const std::uint32_t> route);
  void clear() {
    first.assign(1, 0);
    links.clear();
  }
  std::size_t flows() const { return first.size() - 1; }
  std::span<const std::uint32_t> route(std::size_t f) const {
    return {links.data() + first[f], links.data() + first[f + 1]};
  }
};

// capacity[l] in bytes/s for every link index used; rates come back in bytes/s, one per flow.
std::vector<double> max_min_rates(std::span<const double> capacity, const FlowLinks& flows);

// The max-min allocation of flows that come and go. Flow ids are the caller's: small, dense,
// and reusable once removed. Rates are valid after solve().
class MaxMinSharing {
 public:
  struct Stats {
    std::size_t solves = 0;        // solve() calls that had something to do
    std::size_t fills = 0;         // progressive fillings run (one or more per solve)
    std::size_t filled_flows = 0;  // flows re-rated over all fillings
  };

  explicit MaxMinSharing(std::span<const double> capacity);

  // A flow on `route`; `bound_Bps` caps its rate (a message that cannot fill its links alone,
  // sim/cost_rule.hpp): below its route's smallest capacity, the flow gets a private link of
  // that capacity, which max-min treats as any other (SimGrid's per-communication rate).
  void add(std::uint32_t flow, std::span<const std::uint32_t> route,
           double bound_Bps = std::numeric_limits<double>::infinity());
  void remove(std::uint32_t flow);

  // Brings every rate to the max-min allocation of the flows present. Returns the flows whose
  // rate changed, added ones included, in an order that depends only on the calls made.
  std::span<const std::uint32_t> solve();

  double rate(std::uint32_t flow) const { return flows_[flow].rate; }
  // The links whose load the last solve() may have changed, and their load (sum of rates).
  std::span<const std::uint32_t> changed_links() const {
    return links_.size() == real_links_ ? std::span<const std::uint32_t>(changed_) : std::span<const std::uint32_t>(reported_);
  }
  double load(std::uint32_t link) const { return links_[link].load; }
  std::size_t flows_on(std::uint32_t link) const { return links_[link].flows.size(); }
  const Stats& stats() const { return stats_; }

 private:
  // 40 bytes, its route apart (routes_): a solve reads a few dozen flows scattered over the
  // draining ones, and each read costs a cache line, not a line and a heap block.
  struct Flow {
    double rate = 0, before = 0;   // before: the rate when the current solve took it in
    std::uint32_t bottleneck = 0;  // a full link on which it is fastest
    std::uint32_t length = 0;      // links on its route
    std::uint64_t taken = 0;       // == epoch_: re-rated by the current solve
    std::uint64_t round = 0;       // == round_: frozen by the current filling, or visited by its check
  };
  struct Link {
    double capacity = 0;
    std::vector<std::uint32_t> flows;  // with repeats where a route crosses it twice
    std::uint64_t changed = 0;         // == epoch_: in the current solve's link set
    std::uint64_t measured = 0;        // == round_: load and fastest are current
    double load = 0, fastest = 0;      // sum and largest of its flows' rates
    double residual = 0;               // filling: capacity left to the unfrozen flows
    std::uint32_t unfrozen = 0;        // filling: flows taken and not yet frozen
    double fair_share = 0;             // filling: residual / unfrozen, kept as they change
    double heap_share = 0;             // filling by heap: its lowest entry's share
    std::uint64_t outside_epoch = 0;   // == epoch_: the two sums below are current
    double outside_load = 0, outside_fastest = 0;  // of its flows outside S
  };

  std::span<const std::uint32_t> route(std::uint32_t flow) const {
    return {routes_.data() + std::size_t(flow) * stride_, flows_[flow].length};
  }
  void restride(std::size_t stride);
  void take(std::uint32_t flow);
  void take_component();
  void mark(std::uint32_t link) {
    if (links_[link].changed == epoch_) return;
    links_[link].changed = epoch_;
    changed_.push_back(link);
  }
  void rate_lone_flows();
  void fill();
  void fill_by_scan();
  void fill_by_heap();
  void push_share(std::uint32_t link);
  void freeze(std::uint32_t link, double fair, bool heap);
  static double share(const Link& k) { return k.residual > 0 ? k.residual / k.unfrozen : 0.0; }
  bool check();
  void sum_outside(Link& link);
  void measure(std::uint32_t link);
  bool bottlenecked(std::uint32_t flow, std::uint32_t link);
  bool find_bottleneck(std::uint32_t flow);
  void widen(std::uint32_t link, double faster_than);

  std::vector<Flow> flows_;
  // Flow f's route is routes_[f * stride_ ..], stride_ the longest route seen (routes are a
  // few links; a longer one lays them out again).
  std::vector<std::uint32_t> routes_;
  std::size_t stride_ = 0;
  std::vector<Link> links_;              // the network's, then one private link per bounded flow slot
  std::size_t real_links_ = 0;
  std::vector<std::uint32_t> reported_;  // changed_ without private links
  std::vector<std::uint32_t> dirty_;    // links of flows added or removed since the last solve
  std::vector<std::uint32_t> taken_;    // flows the current solve re-rates (the set S)
  std::vector<std::uint32_t> changed_;  // links the current solve may change (the set C)
  std::vector<std::uint32_t> lone_;     // flows of S alone on their links, rated apart
  std::vector<std::uint32_t> wider_, result_;
  std::vector<std::uint32_t> open_;  // filling: links of C with unfrozen flows
  RadixHeap heap_;                   // filling by heap: open links by share
  std::uint64_t epoch_ = 0, round_ = 0;
  Stats stats_;
};

}  // namespace collsim
