// sim/max_min.hpp — max-min fair rates of flows sharing links, by progressive filling: every
// flow's rate grows at the same pace until a link it crosses is full; that link's flows are
// frozen at their share and the rest keep growing (Bertsekas & Gallager, "Data Networks",
// 6.5.2). It is the sharing rule of SimGrid's CM02 model without cross-traffic, and the rate
// rule of the flow engine (DESIGN.md section 6).
//
// Result: each flow has a bottleneck link, one that is full and on which no other flow is
// faster. A flow crossing no link (both ends on one vertex) gets an infinite rate.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

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

}  // namespace collsim
