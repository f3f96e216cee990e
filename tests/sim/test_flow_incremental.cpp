// tests/sim/test_flow_incremental.cpp — MaxMinSharing, the incremental max-min re-solve of
// the flow engine: after every batch of random arrivals and departures its rates equal a
// from-scratch max_min_rates of the flows present, it reports every flow whose rate changed,
// and its link loads are the sums of their flows' rates.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "sim/max_min.hpp"

using namespace collsim;

namespace {

struct Shape {
  std::uint32_t links, max_flows, route_min, route_max;
  bool equal_capacities;  // many ties, as on a fabric of one link class
};

std::vector<std::uint32_t> random_route(std::mt19937& random, const Shape& shape) {
  const std::uint32_t length = shape.route_min + random() % (shape.route_max - shape.route_min + 1);
  std::vector<std::uint32_t> route;
  while (route.size() < length) {
    const std::uint32_t l = random() % shape.links;
    if (std::find(route.begin(), route.end(), l) == route.end()) route.push_back(l);
  }
  return route;
}

// Runs random add/remove batches against a from-scratch solve of the flows present.
void exercise(const Shape& shape, std::uint32_t seed, int batches) {
  std::mt19937 random(seed);
  std::vector<double> capacity(shape.links);
  for (double& c : capacity) c = shape.equal_capacities ? 25e9 : 1e9 * (1 + random() % 100);
  MaxMinSharing sharing(capacity);
  std::vector<std::vector<std::uint32_t>> routes(shape.max_flows);
  std::vector<bool> present(shape.max_flows, false);
  std::vector<double> before(shape.max_flows, 0.0);
  for (int batch = 0; batch < batches; ++batch) {
    for (int op = 1 + random() % 4; op > 0; --op) {
      const std::uint32_t f = random() % shape.max_flows;
      if (present[f]) {
        sharing.remove(f);
      } else {
        routes[f] = random_route(random, shape);
        sharing.add(f, routes[f]);
      }
      present[f] = !present[f];
    }
    const auto reported = sharing.solve();
    const std::vector<std::uint32_t> changed(reported.begin(), reported.end());

    FlowLinks scratch;
    std::vector<std::uint32_t> ids;
    for (std::uint32_t f = 0; f < shape.max_flows; ++f)
      if (present[f]) {
        ids.push_back(f);
        scratch.add_flow(routes[f]);
      }
    const std::vector<double> expected = max_min_rates(capacity, scratch);
    std::vector<double> load(shape.links, 0.0);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const std::uint32_t f = ids[i];
      INFO("seed " << seed << " batch " << batch << " flow " << f);
      REQUIRE(sharing.rate(f) == Approx(expected[i]).epsilon(1e-9));
      const bool listed = std::find(changed.begin(), changed.end(), f) != changed.end();
      if (sharing.rate(f) != before[f]) REQUIRE(listed);
      before[f] = sharing.rate(f);
      for (std::uint32_t l : routes[f]) load[l] += sharing.rate(f);
    }
    for (std::uint32_t l : sharing.changed_links()) {
      REQUIRE(sharing.load(l) == Approx(load[l]).epsilon(1e-9).margin(1e-3));
      REQUIRE(sharing.load(l) <= capacity[l] * (1 + 1e-9));
    }
  }
}

}  // namespace

TEST_CASE("incremental max-min equals a from-scratch solve after every batch of arrivals and departures") {
  SECTION("few links, many flows crossing several: wide coupling") {
    for (std::uint32_t seed = 1; seed <= 100; ++seed) exercise({8, 24, 1, 4, false}, seed, 60);
  }
  SECTION("equal capacities: ties everywhere") {
    for (std::uint32_t seed = 1; seed <= 100; ++seed) exercise({12, 30, 1, 3, true}, seed, 60);
  }
  SECTION("a fabric-like shape: many links, short routes, long sequences") {
    for (std::uint32_t seed = 1; seed <= 20; ++seed) exercise({64, 200, 2, 4, true}, seed, 400);
  }
}

TEST_CASE("a flow alone on its links gets its route's smallest capacity, a removed one frees its links") {
  MaxMinSharing sharing(std::vector<double>{4.0, 2.0, 8.0});
  sharing.add(0, std::vector<std::uint32_t>{0, 1});
  REQUIRE(sharing.solve().size() == 1);
  REQUIRE(sharing.rate(0) == 2.0);
  sharing.add(1, std::vector<std::uint32_t>{2});
  const auto changed = sharing.solve();
  REQUIRE(std::vector<std::uint32_t>(changed.begin(), changed.end()) == std::vector<std::uint32_t>{1});
  REQUIRE(sharing.rate(1) == 8.0);
  sharing.add(2, std::vector<std::uint32_t>{1, 2});  // shares link 1 with flow 0, link 2 with flow 1
  sharing.solve();
  REQUIRE(sharing.rate(0) == 1.0);
  REQUIRE(sharing.rate(2) == 1.0);
  REQUIRE(sharing.rate(1) == 7.0);
  sharing.remove(0);
  sharing.solve();
  REQUIRE(sharing.rate(2) == 2.0);
  REQUIRE(sharing.rate(1) == 6.0);
  REQUIRE(sharing.load(0) == 0.0);
  REQUIRE(sharing.flows_on(0) == 0);
}
