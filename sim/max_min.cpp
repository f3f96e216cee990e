// sim/max_min.cpp — progressive filling (the next link to fill found by a scan, or a radix heap
// of links keyed by their fair share), and the incremental re-solve around it.
//
// Why the incremental re-solve is exact. The allocation is the unique feasible one in which
// every flow has a bottleneck: a full link on which no flow is faster (max_min.hpp). After
// the last solve every flow g had one, recorded as g.bottleneck. Flows then come and go on
// the dirty links D. solve() takes a set S of flows to re-rate, starting with every flow on
// D, and the set C of links that can see a change: D and the links of S. It keeps the rate of
// every flow outside S, fills S progressively in the capacity the outside flows leave on each
// link, and checks the defining property where it can have broken:
//   - a flow outside S whose bottleneck is not in C still has it: no flow on that link was
//     added, removed or re-rated;
//   - every other flow (in S, or outside S on a link of C) is checked against the new rates;
//   - no link of C may be over capacity.
// If all pass, the rates are feasible and every flow has a bottleneck: they are the max-min
// allocation, the one a full progressive filling gives. Otherwise S grows and is filled again:
// a flow of S without a bottleneck takes in the outside flows that are faster on the link it
// filled up (they hold capacity it should share); a flow outside S that lost its bottleneck
// (capacity freed, or taken) joins S itself. S only grows, so this ends, at worst with S =
// the whole connected component: a plain progressive filling.
// (The filling makes each flow of S fastest on the link that froze it among the flows of S,
// so a flow of S fails only through faster outside flows, up to rounding.)
// "Full" and "fastest" are tested within kSlack relative, for the rounding of sums: the rates
// kept are the max-min allocation up to rounding. A test that is too strict only makes S
// larger.
//
// Speed: a solve re-rates about ten flows on some twenty links (two-tree on 8 channels), so
// its cost is per-call overhead and cache lines more than arithmetic. The small helpers called
// per flow or link (take, sum_outside, measure, bottlenecked, find_bottleneck, widen,
// push_share) are `inline`: left as calls, they were 8% of a run's instructions (cachegrind).
#include "sim/max_min.hpp"

#include <algorithm>
#include <limits>

namespace collsim {
namespace {

constexpr double kSlack = 1e-12;
constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr std::size_t kScanLinks = 48;  // up to this many links, fill() scans instead of a heap
constexpr int kRoundsBeforeComponent = 8;  // fillings of a growing S before S = the component

}  // namespace

void FlowLinks::add_flow(std::span<const std::uint32_t> route) {
  links.insert(links.end(), route.begin(), route.end());
  first.push_back(std::uint32_t(links.size()));
}

std::vector<double> max_min_rates(std::span<const double> capacity, const FlowLinks& f) {
  MaxMinSharing sharing(capacity);
  for (std::size_t x = 0; x < f.flows(); ++x) sharing.add(std::uint32_t(x), f.route(x));
  sharing.solve();
  std::vector<double> rate(f.flows());
  for (std::size_t x = 0; x < f.flows(); ++x) rate[x] = sharing.rate(std::uint32_t(x));
  return rate;
}

MaxMinSharing::MaxMinSharing(std::span<const double> capacity) : links_(capacity.size()), real_links_(capacity.size()) {
  for (std::size_t l = 0; l < capacity.size(); ++l) links_[l].capacity = capacity[l];
}

// A flow crossing no link gets its infinite rate at once; solve() never sees it.
void MaxMinSharing::add(std::uint32_t flow, std::span<const std::uint32_t> route, double bound_Bps) {
  double smallest = std::numeric_limits<double>::infinity();
  for (std::uint32_t l : route) smallest = std::min(smallest, links_[l].capacity);
  const bool bounded = !route.empty() && bound_Bps < smallest;  // its private link: real_links_ + flow slot
  if (route.size() + bounded > stride_) restride(route.size() + bounded);
  if (flow >= flows_.size()) {
    flows_.resize(flow + 1);
    routes_.resize(flows_.size() * stride_);
  }
  Flow& f = flows_[flow];
  std::uint32_t* links = routes_.data() + std::size_t(flow) * stride_;
  std::copy(route.begin(), route.end(), links);
  f.length = std::uint32_t(route.size());
  if (bounded) {
    const std::uint32_t own = std::uint32_t(real_links_ + flow);
    if (own >= links_.size()) links_.resize(own + 1);
    links_[own].capacity = bound_Bps;
    links[f.length++] = own;
  }
  f.rate = route.empty() ? kInfinity : -1;  // -1: not rated yet, so solve() reports it
  f.taken = f.round = 0;
  for (std::uint32_t l : this->route(flow)) {
    links_[l].flows.push_back(flow);
    dirty_.push_back(l);
  }
  if (!route.empty()) f.bottleneck = links[0];
}

void MaxMinSharing::restride(std::size_t stride) {
  std::vector<std::uint32_t> wider(flows_.size() * stride);
  for (std::size_t f = 0; f < flows_.size(); ++f)
    std::copy_n(routes_.data() + f * stride_, flows_[f].length, wider.data() + f * stride);
  routes_.swap(wider);
  stride_ = stride;
}

void MaxMinSharing::remove(std::uint32_t flow) {
  for (std::uint32_t l : route(flow)) {
    std::vector<std::uint32_t>& on = links_[l].flows;
    *std::find(on.begin(), on.end(), flow) = on.back();
    on.pop_back();
    dirty_.push_back(l);
  }
}

std::span<const std::uint32_t> MaxMinSharing::solve() {
  result_.clear();
  changed_.clear();
  if (dirty_.empty()) return {};
  ++epoch_;
  ++stats_.solves;
  taken_.clear();
  for (std::uint32_t l : dirty_) {
    mark(l);
    for (std::uint32_t f : links_[l].flows) take(f);
  }
  dirty_.clear();
  rate_lone_flows();
  if (taken_.empty()) {
    for (std::uint32_t l : changed_) measure(l);
  } else {
    fill();
    for (int round = 1; !check(); ++round) {
      if (round < kRoundsBeforeComponent) {
        for (std::uint32_t f : wider_) take(f);
      } else {
        take_component();
      }
      fill();
    }
  }
  for (const auto* flows : {&lone_, &taken_})
    for (std::uint32_t f : *flows)
      if (flows_[f].rate != flows_[f].before) result_.push_back(f);
  if (links_.size() > real_links_) {
    reported_.clear();
    for (std::uint32_t l : changed_)
      if (l < real_links_) reported_.push_back(l);
  }
  return result_;
}

inline void MaxMinSharing::take(std::uint32_t flow) {
  Flow& f = flows_[flow];
  if (f.taken == epoch_) return;
  f.taken = epoch_;
  f.before = f.rate;
  taken_.push_back(flow);
  for (std::uint32_t l : route(flow)) {
    mark(l);
    links_[l].outside_epoch = 0;  // it was outside until now
  }
}

// A change that keeps spreading: S takes in the whole connected component at once, which
// bounds a solve's cost by a few fillings of it.
void MaxMinSharing::take_component() {
  for (std::size_t i = 0; i < changed_.size(); ++i)
    for (std::uint32_t f : links_[changed_[i]].flows) take(f);
}

// The common case, handled without filling: a flow alone on each of its links gets its
// route's smallest capacity. It leaves S for lone_ (keeping its stamp: it shares no link
// with anything the filling or the check looks at).
void MaxMinSharing::rate_lone_flows() {
  lone_.clear();
  std::size_t kept = 0;
  for (std::uint32_t x : taken_) {
    Flow& f = flows_[x];
    const std::span<const std::uint32_t> links = route(x);
    const bool alone =
        std::all_of(links.begin(), links.end(), [&](std::uint32_t l) { return links_[l].flows.size() == 1; });
    if (!alone) {
      taken_[kept++] = x;
      continue;
    }
    lone_.push_back(x);
    f.rate = kInfinity;
    for (std::uint32_t l : links)
      if (links_[l].capacity < f.rate) {
        f.rate = links_[l].capacity;
        f.bottleneck = l;
      }
  }
  taken_.resize(kept);
}

// Progressive filling of the flows of S in what the flows outside S leave of each link of C.
// A flow's `round` stamp marks it frozen.
// It leaves each link's load and fastest rate current for check().
void MaxMinSharing::fill() {
  ++round_;
  ++stats_.fills;
  stats_.filled_flows += taken_.size();
  for (std::uint32_t l : changed_) {
    Link& k = links_[l];
    if (k.outside_epoch != epoch_) sum_outside(k);
    k.residual = k.capacity - k.outside_load;
    k.load = k.outside_load;
    k.fastest = k.outside_fastest;
    k.measured = round_;
    k.unfrozen = 0;
  }
  for (std::uint32_t x : lone_)  // alone on their links, rated already
    for (std::uint32_t l : route(x)) links_[l].load = links_[l].fastest = flows_[x].rate;
  for (std::uint32_t f : taken_)
    for (std::uint32_t l : route(f)) ++links_[l].unfrozen;
  open_.clear();
  for (std::uint32_t l : changed_)
    if (links_[l].unfrozen > 0) {
      links_[l].fair_share = share(links_[l]);
      open_.push_back(l);
    }

  // The link whose remaining capacity split over its unfrozen flows is the smallest fills
  // first, ties to the lower link number. Among few links a scan finds it; among many, a heap
  // of (share, link) entries.
  if (open_.size() <= kScanLinks) return fill_by_scan();
  fill_by_heap();
}

// The open links are scanned for the smallest share; those filled up drop out.
void MaxMinSharing::fill_by_scan() {
  for (;;) {
    std::uint32_t fullest = 0;
    double fair = kInfinity;
    std::size_t kept = 0;
    for (std::uint32_t l : open_) {
      const Link& k = links_[l];
      if (k.unfrozen == 0) continue;
      open_[kept++] = l;
      if (k.fair_share < fair || (k.fair_share == fair && l < fullest)) {
        fullest = l;
        fair = k.fair_share;
      }
    }
    open_.resize(kept);
    if (fair == kInfinity) return;
    freeze(fullest, fair, false);
  }
}

// A freeze only raises the shares of the links it touches (up to rounding: (r - f)/(n - 1) >=
// r/n when f <= r/n), so an entry is pushed only where a share fell below the link's lowest
// entry (heap_share); an entry that pops below its link's share is pushed again at the share
// if it was that lowest entry, else dropped. Each open link keeps an entry at or below its
// share, so the pops freeze links in the order of a heap refreshed at every change. The shares
// popped never fall, so the heap is a radix heap (sim/radix_heap.hpp): pushes are appends.
void MaxMinSharing::fill_by_heap() {
  heap_.clear();
  for (std::uint32_t l : open_) {
    links_[l].heap_share = links_[l].fair_share;
    heap_.push(links_[l].fair_share, l);
  }
  while (!heap_.empty()) {
    const auto [fair, l] = heap_.pop();
    Link& k = links_[l];
    if (k.unfrozen == 0) continue;
    if (fair == k.fair_share) {
      freeze(l, fair, true);
    } else if (fair == k.heap_share) {
      push_share(l);
    }
  }
}

inline void MaxMinSharing::push_share(std::uint32_t link) {
  Link& k = links_[link];
  k.heap_share = k.fair_share;
  heap_.push(k.fair_share, link);
}

// The unfrozen flows of S on `link` get `fair`; their other links lose it from their
// remaining capacity (and, with `heap`, get an entry where their share fell below their
// lowest one).
void MaxMinSharing::freeze(std::uint32_t link, double fair, bool heap) {
  for (std::uint32_t x : links_[link].flows) {
    Flow& f = flows_[x];
    if (f.taken != epoch_ || f.round == round_) continue;
    f.round = round_;
    f.rate = fair;
    f.bottleneck = link;
    for (std::uint32_t other : route(x)) {
      Link& o = links_[other];
      o.residual -= fair;
      o.load += fair;
      o.fastest = std::max(o.fastest, fair);
      if (--o.unfrozen == 0 || other == link) continue;
      o.fair_share = share(o);
      if (heap && o.fair_share < o.heap_share) push_share(other);
    }
  }
}

// True when the rates are the max-min allocation (see the top of the file); else wider_
// holds the outside flows S must take in. The `round` stamp marks an outside flow visited.
bool MaxMinSharing::check() {
  wider_.clear();
  for (std::uint32_t l : changed_) {
    if (links_[l].load > links_[l].capacity * (1 + kSlack)) widen(l, -kInfinity);
  }
  const std::size_t taken = taken_.size();
  for (std::size_t i = 0; i < taken; ++i) {
    const std::uint32_t f = taken_[i];
    if (find_bottleneck(f)) continue;
    const std::size_t before = wider_.size();
    widen(flows_[f].bottleneck, flows_[f].rate);
    if (wider_.size() == before)
      for (std::uint32_t l : route(f)) widen(l, flows_[f].rate);
  }
  for (std::uint32_t l : changed_)
    for (std::uint32_t x : links_[l].flows) {
      Flow& g = flows_[x];
      if (g.taken == epoch_ || g.round == round_) continue;
      g.round = round_;
      if (links_[g.bottleneck].changed != epoch_ || find_bottleneck(x)) continue;
      wider_.push_back(x);
    }
  return wider_.empty();
}

// The load and fastest rate of the flows outside S, summed once per solve: a link carries
// many flows, S few.
inline void MaxMinSharing::sum_outside(Link& k) {
  k.outside_epoch = epoch_;
  k.outside_load = k.outside_fastest = 0;
  for (std::uint32_t x : k.flows)
    if (flows_[x].taken != epoch_) {
      k.outside_load += flows_[x].rate;
      k.outside_fastest = std::max(k.outside_fastest, flows_[x].rate);
    }
}

inline void MaxMinSharing::measure(std::uint32_t link) {
  Link& k = links_[link];
  k.measured = round_;
  k.load = k.fastest = 0;
  for (std::uint32_t x : k.flows) {
    k.load += flows_[x].rate;
    k.fastest = std::max(k.fastest, flows_[x].rate);
  }
}

inline bool MaxMinSharing::bottlenecked(std::uint32_t flow, std::uint32_t link) {
  Link& k = links_[link];
  if (k.measured != round_) measure(link);
  return k.load >= k.capacity * (1 - kSlack) && flows_[flow].rate >= k.fastest * (1 - kSlack);
}

// Keeps the recorded bottleneck if it still holds, else records another link that does.
inline bool MaxMinSharing::find_bottleneck(std::uint32_t flow) {
  Flow& f = flows_[flow];
  if (bottlenecked(flow, f.bottleneck)) return true;
  for (std::uint32_t l : route(flow))
    if (l != f.bottleneck && bottlenecked(flow, l)) {
      f.bottleneck = l;
      return true;
    }
  return false;
}

// The outside flows on `link` faster than `faster_than` join S.
inline void MaxMinSharing::widen(std::uint32_t link, double faster_than) {
  for (std::uint32_t x : links_[link].flows) {
    Flow& g = flows_[x];
    if (g.taken == epoch_ || g.round == round_ || g.rate <= faster_than * (1 + kSlack)) continue;
    g.round = round_;
    wider_.push_back(x);
  }
}

}  // namespace collsim
