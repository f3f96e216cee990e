// sim/max_min.cpp — progressive filling with a heap of links keyed by their fair share.
#include "sim/max_min.hpp"

#include <algorithm>
#include <limits>
#include <queue>

namespace collsim {

void FlowLinks::add_flow(std::span<const std::uint32_t> route) {
  links.insert(links.end(), route.begin(), route.end());
  first.push_back(std::uint32_t(links.size()));
}

namespace {

// Flows crossing each link, as compressed rows over the links that appear.
struct LinkFlows {
  std::vector<std::uint32_t> first, flows;

  LinkFlows(std::size_t link_count, const FlowLinks& f) : first(link_count + 1, 0) {
    for (std::uint32_t l : f.links) ++first[l + 1];
    for (std::size_t l = 0; l < link_count; ++l) first[l + 1] += first[l];
    flows.resize(f.links.size());
    std::vector<std::uint32_t> fill(first.begin(), first.end() - 1);
    for (std::size_t x = 0; x < f.flows(); ++x)
      for (std::uint32_t l : f.route(x)) flows[fill[l]++] = std::uint32_t(x);
  }
};

}  // namespace

std::vector<double> max_min_rates(std::span<const double> capacity, const FlowLinks& f) {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  const std::size_t n = f.flows();
  std::vector<double> rate(n, kInfinity);
  std::vector<bool> frozen(n, false);
  const LinkFlows by_link(capacity.size(), f);
  std::vector<double> remaining(capacity.begin(), capacity.end());
  std::vector<std::uint32_t> unfrozen(capacity.size());
  for (std::size_t l = 0; l < capacity.size(); ++l) unfrozen[l] = by_link.first[l + 1] - by_link.first[l];

  // (share, link): the link whose remaining capacity split over its unfrozen flows is the
  // smallest fills first. Entries go stale when a link changes; the current share is rechecked.
  using Entry = std::pair<double, std::uint32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  auto share = [&](std::uint32_t l) { return std::max(remaining[l], 0.0) / unfrozen[l]; };
  for (std::uint32_t l = 0; l < capacity.size(); ++l)
    if (unfrozen[l] > 0) heap.emplace(share(l), l);

  while (!heap.empty()) {
    const auto [key, l] = heap.top();
    heap.pop();
    if (unfrozen[l] == 0 || key != share(l)) continue;  // stale
    const double fair = key;
    for (std::uint32_t i = by_link.first[l]; i < by_link.first[l + 1]; ++i) {
      const std::uint32_t x = by_link.flows[i];
      if (frozen[x]) continue;
      frozen[x] = true;
      rate[x] = fair;
      for (std::uint32_t other : f.route(x)) {
        remaining[other] -= fair;
        if (--unfrozen[other] > 0 && other != l) heap.emplace(share(other), other);
      }
    }
  }
  return rate;
}

}  // namespace collsim
