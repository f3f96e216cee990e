// tests/sim/test_exchange_factors.cpp — a link class's exchange_factors in the one cost rule:
// a message that is half of an exchange (its receiver sends to its sender in the same step)
// takes those rows instead of size_factors; the config reader checks them as it checks
// size_factors; without them every message is priced as before; the analytic, flow and
// SimGrid engines agree, a ring on two ranks equals its closed form with the exchange rows,
// and a tree on two ranks (one way at a time) does not see them.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/transfer_stream.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/cost_rule.hpp"
#include "sim/flow_engine.hpp"
#include "tests/support/engine_times.hpp"
#include "tests/support/one_message.hpp"
#include "topologies/cluster_config.hpp"
#ifdef COLLSIM_HAVE_SIMGRID
#include "sim/simgrid_engine.hpp"
#endif

using namespace collsim;
using collsim::test::engine_times;
using collsim::test::route_between;
constexpr auto allreduce = collsim::test::allreduce_schedule;

namespace {

// One class: a message alone has twice the start-up below 4K; half of an exchange has three
// times the start-up below 4K and 1.5 times above, and 80% of the bandwidth from 4K on.
constexpr const char* kOneWayRows =
    "    size_factors: [{from_bytes: 0, bandwidth: 1.0, latency: 2.0}, {from_bytes: 4K, bandwidth: 1.0, latency: 1.0}]\n";
constexpr const char* kExchangeRows =
    "    exchange_factors: [{from_bytes: 0, bandwidth: 1.0, latency: 3.0}, {from_bytes: 4K, bandwidth: 0.8, latency: 1.5}]\n";

std::string classes(bool with_exchange_rows) {
  return std::string("link_classes:\n  x:\n    bandwidth_Bps: 5.0e+9\n    latency_s: 1.0e-7\n    alpha_s: 1.0e-6\n") +
         kOneWayRows + (with_exchange_rows ? kExchangeRows : "");
}

ClusterConfig mesh(Rank ranks, bool with_exchange_rows, double gamma) {
  return parse_cluster_config(fmt::format("name: t\n{}topology: {{kind: full, endpoints: {}, link: x}}\n"
                                          "gamma_s_per_byte: {}\n",
                                          classes(with_exchange_rows), ranks, gamma),
                              "t.yaml");
}

}  // namespace

TEST_CASE("half of an exchange takes the class's exchange rows, a message alone its size factors") {
  const ClusterConfig config = mesh(2, true, 0);
  const Topology& t = *config.topology;
  const std::vector<LinkId> route = route_between(t, 0, 1);
  REQUIRE(route.size() == 1);
  const auto cost = [&](std::uint64_t bytes, bool exchange_half) {
    return route_cost(t.network, route, bytes, 1, simple_protocol(), exchange_half);
  };
  CHECK(cost(1024, false).startup_s == Approx(2 * (1e-6 + 1e-7)));
  CHECK(cost(1024, true).startup_s == Approx(3 * (1e-6 + 1e-7)));
  CHECK(cost(1024, true).bandwidth_Bps == Approx(5e9));
  CHECK(cost(1 << 20, false).startup_s == Approx(1e-6 + 1e-7));
  CHECK(cost(1 << 20, false).bandwidth_Bps == Approx(5e9));
  CHECK(cost(1 << 20, true).startup_s == Approx(1.5 * (1e-6 + 1e-7)));
  CHECK(cost(1 << 20, true).bandwidth_Bps == Approx(4e9));
  // Without exchange rows, both kinds of message are priced by the size factors.
  const ClusterConfig plain = mesh(2, false, 0);
  const std::vector<LinkId> plain_route = route_between(*plain.topology, 0, 1);
  for (std::uint64_t bytes : {std::uint64_t(1024), std::uint64_t(1) << 20}) {
    const RouteCost alone = route_cost(plain.topology->network, plain_route, bytes, 1, simple_protocol(), false);
    const RouteCost half = route_cost(plain.topology->network, plain_route, bytes, 1, simple_protocol(), true);
    CHECK(alone.startup_s == half.startup_s);
    CHECK(alone.bandwidth_Bps == half.bandwidth_Bps);
  }
}

TEST_CASE("exchange_factors are read and checked as size_factors are") {
  CHECK(mesh(2, true, 0).topology->network.prices_exchanges());
  CHECK_FALSE(mesh(2, false, 0).topology->network.prices_exchanges());
  const auto parse = [](const std::string& rows) {
    return parse_cluster_config("name: t\nlink_classes:\n  x: {bandwidth_Bps: 5.0e+9, exchange_factors: " + rows +
                                    "}\ntopology: {kind: full, endpoints: 2, link: x}\ngamma_s_per_byte: 0\n",
                                "t.yaml");
  };
  CHECK_THROWS_WITH(parse("[{from_bytes: 1K, bandwidth: 1}]"), Catch::Contains("exchange_factors must start at from_bytes 0"));
  CHECK_THROWS_WITH(parse("[{from_bytes: 0, bandwidth: 1.5}]"), Catch::Contains("exchange_factors bandwidth 1.5"));
  CHECK_THROWS_WITH(parse("[{from_bytes: 0}, {from_bytes: 0}]"), Catch::Contains("exchange_factors must be sorted"));
  CHECK_THROWS_WITH(parse("[{from_bytes: 0, speed: 1}]"), Catch::Contains("speed"));
}

TEST_CASE("a ring on two ranks equals its closed form with the exchange rows, and a tree does not see them") {
  // On two ranks the ring is one exchange of N/2 each way, a reduction of N/2, and a second
  // exchange of N/2: 2 (start-up + N/2 / bandwidth) + N/2 gamma, with the exchange rows.
  const double gamma = 1e-10;
  for (std::uint64_t bytes : {std::uint64_t(4096), std::uint64_t(1) << 20}) {
    const ClusterConfig with = mesh(2, true, gamma), without = mesh(2, false, gamma);
    const std::vector<LinkId> route = route_between(*with.topology, 0, 1);
    const RouteCost half = route_cost(with.topology->network, route, bytes / 2, 1, simple_protocol(), true);
    const double formula = 2 * (half.startup_s + double(bytes / 2) / half.bandwidth_Bps) + double(bytes / 2) * gamma;
    const Schedule ring = allreduce("ring", 2, bytes), tree = allreduce("tree", 2, bytes);
    for (const auto& [engine, time_s] : engine_times(ring, *with.topology, gamma)) {
      INFO(bytes << " bytes, ring, engine " << engine);
      CHECK(time_s == Approx(formula).epsilon(engine == "simgrid" ? 1e-6 : 1e-9));
    }
    const auto tree_with = engine_times(tree, *with.topology, gamma), tree_without = engine_times(tree, *without.topology, gamma);
    for (std::size_t i = 0; i < tree_with.size(); ++i) {
      INFO(bytes << " bytes, tree, engine " << tree_with[i].first);
      CHECK(tree_with[i].second == tree_without[i].second);
    }
    CHECK(run_flow(ring, *with.topology, gamma).time_s > run_flow(ring, *without.topology, gamma).time_s);
  }
}

TEST_CASE("with exchange rows the engines agree on every allreduce algorithm") {
  const double gamma = 1e-11;
  for (Rank p : {2u, 4u})
    for (const char* algorithm : {"ring", "recursive-doubling", "rabenseifner", "two-tree", "tree", "naive", "binomial"})
      for (std::uint64_t bytes : {std::uint64_t(8192), std::uint64_t(3) << 20}) {
        const ClusterConfig config = mesh(p, true, gamma);
        const Schedule s = allreduce(algorithm, p, bytes);
        const auto times = engine_times(s, *config.topology, gamma);
        for (const auto& [engine, time_s] : times) {
          if (engine == "analytic") continue;  // one-port, not contention: compared in the ring above
          INFO(algorithm << ", P = " << p << ", " << bytes << " bytes, engine " << engine);
          CHECK(time_s == Approx(times[1].second).epsilon(1e-6));
        }
      }
}

TEST_CASE("a stream cannot tell its exchanges, so a network that prices them refuses it") {
  ScheduleRequest r;
  r.ranks = 2;
  r.bytes = 4096;
  const ClusterConfig config = mesh(2, true, 0);
  const std::unique_ptr<TransferStream> stream = stream_ring(r);
  CHECK_THROWS_WITH(run_flow(*stream, *config.topology, 0), Catch::Contains("exchange_factors"));
}
