// tests/sim/test_max_min.cpp — max-min fair sharing: hand-computed cases, and on random
// instances the defining property (feasible, and every flow has a bottleneck link).
#include <catch2/catch.hpp>

#include <limits>
#include <random>

#include "sim/max_min.hpp"

using namespace collsim;

namespace {

FlowLinks flows_of(std::initializer_list<std::vector<std::uint32_t>> routes) {
  FlowLinks f;
  for (const auto& r : routes) f.add_flow(r);
  return f;
}

}  // namespace

TEST_CASE("two flows on one link share it equally") {
  const std::vector<double> rate = max_min_rates(std::vector<double>{10.0}, flows_of({{0}, {0}}));
  REQUIRE(rate == std::vector<double>{5.0, 5.0});
}

TEST_CASE("a flow bottlenecked elsewhere leaves its unused share to the others") {
  // Link 0 (capacity 1) carries flows a and b; link 1 (capacity 10) carries a and c.
  // a and b split link 0 at 0.5 each; c takes the 9.5 that a leaves on link 1.
  const std::vector<double> rate = max_min_rates(std::vector<double>{1.0, 10.0}, flows_of({{0, 1}, {0}, {1}}));
  REQUIRE(rate[0] == Approx(0.5));
  REQUIRE(rate[1] == Approx(0.5));
  REQUIRE(rate[2] == Approx(9.5));
}

TEST_CASE("the Bertsekas-Gallager line: a long flow and one short flow per link") {
  // Links 0,1,2 of capacity 1, 1, 2; flow 0 crosses all three, flows 1, 2, 3 one link each.
  const std::vector<double> rate =
      max_min_rates(std::vector<double>{1.0, 1.0, 2.0}, flows_of({{0, 1, 2}, {0}, {1}, {2}}));
  REQUIRE(rate[0] == Approx(0.5));
  REQUIRE(rate[1] == Approx(0.5));
  REQUIRE(rate[2] == Approx(0.5));
  REQUIRE(rate[3] == Approx(1.5));
}

TEST_CASE("a flow that crosses no link is not limited, one that crosses a link twice pays twice") {
  const std::vector<double> rate = max_min_rates(std::vector<double>{6.0}, flows_of({{}, {0, 0}, {0}}));
  REQUIRE(rate[0] == std::numeric_limits<double>::infinity());
  REQUIRE(rate[1] == Approx(2.0));  // 2 x 2 + 2 = 6
  REQUIRE(rate[2] == Approx(2.0));
}

TEST_CASE("on random instances the rates are feasible and every flow has a bottleneck link") {
  std::mt19937 random(12345);
  for (int instance = 0; instance < 300; ++instance) {
    const std::uint32_t links = 1 + random() % 12, count = 1 + random() % 20;
    std::vector<double> capacity(links);
    for (double& c : capacity) c = 1 + random() % 100;
    FlowLinks f;
    for (std::uint32_t x = 0; x < count; ++x) {
      std::vector<std::uint32_t> route;
      for (std::uint32_t l = 0; l < links; ++l)
        if (random() % 3 == 0) route.push_back(l);
      if (route.empty()) route.push_back(random() % links);
      f.add_flow(route);
    }
    const std::vector<double> rate = max_min_rates(capacity, f);
    std::vector<double> load(links, 0.0), fastest(links, 0.0);
    for (std::size_t x = 0; x < f.flows(); ++x)
      for (std::uint32_t l : f.route(x)) {
        load[l] += rate[x];
        fastest[l] = std::max(fastest[l], rate[x]);
      }
    for (std::uint32_t l = 0; l < links; ++l) REQUIRE(load[l] <= capacity[l] * (1 + 1e-12));
    for (std::size_t x = 0; x < f.flows(); ++x) {
      INFO("instance " << instance << " flow " << x);
      bool bottlenecked = false;
      for (std::uint32_t l : f.route(x))
        bottlenecked |= load[l] >= capacity[l] * (1 - 1e-9) && rate[x] >= fastest[l] * (1 - 1e-9);
      REQUIRE(bottlenecked);
    }
  }
}
