// tests/sim/test_size_factors.cpp — link efficiency and size factors (SimGrid SMPI style) in
// the one cost rule, and the engines held to them: a class's efficiency lowers what its links
// offer everyone; a message of s bytes uses its classes' size-factor rows for s, bandwidth
// and latency; a table of ones changes nothing; a message held below its links by its factor
// leaves the rest of the link to others; a slice of a pipelined transfer takes its start-up
// at its own size and its bandwidth at the transfer's; the analytic, flow and SimGrid engines
// agree, and a ring equals its closed form with those factors.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "collectives/algorithm.hpp"
#include "collectives/closed_forms.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/cost_rule.hpp"
#include "sim/flow_engine.hpp"
#include "sim/pair_pricing.hpp"
#include "topologies/cluster_config.hpp"
#include "tests/support/engine_times.hpp"
#include "tests/support/one_message.hpp"
#ifdef COLLSIM_HAVE_SIMGRID
#include "sim/simgrid_engine.hpp"
#endif

using namespace collsim;
using collsim::test::one_message;
using collsim::test::engine_times;
using collsim::test::route_between;

namespace {

// Two classes with corrections: `e` runs at 80% of its datasheet, and small messages are
// slower (half the bandwidth below 4K, with twice the start-up); `f` has factors only.
constexpr const char* kClasses =
    "  e:\n"
    "    bandwidth_Bps: 10.0e+9\n    latency_s: 1.0e-7\n    alpha_s: 2.0e-6\n    efficiency: 0.8\n"
    "    size_factors:\n"
    "      - {from_bytes: 0, bandwidth: 0.5, latency: 2.0}\n"
    "      - {from_bytes: 4K, bandwidth: 0.9, latency: 1.5}\n"
    "      - {from_bytes: 1M, bandwidth: 1.0, latency: 1.0}\n"
    "  f:\n"
    "    bandwidth_Bps: 4.0e+9\n    latency_s: 3.0e-7\n    alpha_s: 1.0e-6\n"
    "    size_factors: [{from_bytes: 0, bandwidth: 0.25, latency: 3.0}, {from_bytes: 64K, bandwidth: 1.0}]\n";

ClusterConfig cluster(const std::string& topology, double gamma = 0) {
  return parse_cluster_config(
      "name: t\nlink_classes:\n" + std::string(kClasses) + topology + "gamma_s_per_byte: " + std::to_string(gamma) + "\n",
      "t.yaml");
}




}  // namespace

TEST_CASE("a message of s bytes uses the size-factor row with the largest from_bytes <= s") {
  LinkClass c{"c", 1e9, 0, 0};
  CHECK(c.factor_at(12345) == SizeFactor{0, 1, 1});  // no table: ones
  c.size_factors = {{0, 0.5, 2}, {4096, 0.9, 1.5}, {1 << 20, 1, 1}};
  CHECK(c.factor_at(0) == SizeFactor{0, 0.5, 2});
  CHECK(c.factor_at(4095) == SizeFactor{0, 0.5, 2});
  CHECK(c.factor_at(4096) == SizeFactor{4096, 0.9, 1.5});
  CHECK(c.factor_at((1 << 20) - 1) == SizeFactor{4096, 0.9, 1.5});
  CHECK(c.factor_at(std::uint64_t(1) << 40) == SizeFactor{1 << 20, 1, 1});
}

TEST_CASE("the rule applies each class's efficiency to its links and its size factors to each message") {
  const ClusterConfig config = cluster("topology: {kind: xgft, m: [2, 2], w: [1, 2], links: [e, f]}\n");
  const Topology& t = *config.topology;
  const std::vector<LinkId> inside = route_between(t, 0, 1);   // e, e
  const std::vector<LinkId> across = route_between(t, 0, 3);   // e, f, f, e
  REQUIRE(inside.size() == 2);
  REQUIRE(across.size() == 4);
  // 1 KiB: e at 10 GB/s x 0.8 x 0.5, f at 4 GB/s x 0.25 = 1 GB/s; latencies and alphas scaled.
  RouteCost small = route_cost(t.network, inside, 1024, 1, simple_protocol());
  CHECK(small.bandwidth_Bps == Approx(4e9));
  CHECK(small.startup_s == Approx(2e-6 * 2 + 2 * 1e-7 * 2));
  small = route_cost(t.network, across, 1024, 1, simple_protocol());
  CHECK(small.bandwidth_Bps == Approx(1e9));
  CHECK(small.startup_s == Approx(std::max(2e-6 * 2, 1e-6 * 3) + 2 * 1e-7 * 2 + 2 * 3e-7 * 3));
  // 8 KiB: e's second row (0.9, 1.5), f's first row still.
  const RouteCost mid = route_cost(t.network, across, 8192, 1, simple_protocol());
  CHECK(mid.bandwidth_Bps == Approx(1e9));
  CHECK(mid.startup_s == Approx(std::max(2e-6 * 1.5, 1e-6 * 3) + 2 * 1e-7 * 1.5 + 2 * 3e-7 * 3));
  // 4 MiB: large messages get the efficiency alone.
  const RouteCost large = route_cost(t.network, across, 4 << 20, 1, simple_protocol());
  CHECK(large.bandwidth_Bps == Approx(4e9));
  CHECK(large.startup_s == Approx(2e-6 + 2 * 1e-7 + 2 * 3e-7));
  CHECK(shared_capacity_Bps(t.network, inside[0], simple_protocol()) == Approx(8e9));   // e: efficiency
  CHECK(shared_capacity_Bps(t.network, across[1], simple_protocol()) == Approx(4e9));   // f: none
}

TEST_CASE("a slice of a pipelined transfer pays its own start-up but streams at the transfer's rate") {
  const ClusterConfig config = cluster("topology: {kind: xgft, m: [2, 2], w: [1, 2], links: [e, f]}\n");
  const Topology& t = *config.topology;
  const std::vector<LinkId> across = route_between(t, 0, 3);
  // 1 KiB slices of a 4 MiB transfer: the 1 KiB rows' alphas and latencies, the 4 MiB rows' rates.
  const RouteCost slice = route_cost(t.network, across, 1024, 4096, simple_protocol());
  CHECK(slice.startup_s == Approx(route_cost(t.network, across, 1024, 1, simple_protocol()).startup_s));
  CHECK(slice.bandwidth_Bps == Approx(route_cost(t.network, across, 4 << 20, 1, simple_protocol()).bandwidth_Bps));
  // One slice is the message itself.
  CHECK(route_cost(t.network, across, 8192, 1, simple_protocol()).bandwidth_Bps == route_cost(t.network, across, 8192, 1, simple_protocol()).bandwidth_Bps);
}

TEST_CASE("a one-row table of factor 1 and efficiency 1 equal the datasheet rule exactly, in every engine") {
  const std::string plain = "name: t\nlink_classes:\n  l: {bandwidth_Bps: 5.0e+9, latency_s: 2.0e-7, alpha_s: 1.0e-6}\n";
  const std::string ones = "name: t\nlink_classes:\n  l: {bandwidth_Bps: 5.0e+9, latency_s: 2.0e-7, alpha_s: 1.0e-6, "
                           "efficiency: 1, size_factors: [{from_bytes: 0, bandwidth: 1, latency: 1}]}\n";
  const std::string rest = "topology: {kind: fat-tree, k: 4, n: 2, link: l, taper: [1, 0.5]}\ngamma_s_per_byte: 1.0e-11\n";
  const ClusterConfig a = parse_cluster_config(plain + rest, "a.yaml"), b = parse_cluster_config(ones + rest, "b.yaml");
  for (const char* algorithm : {"ring", "two-tree", "rabenseifner"}) {
    ScheduleRequest r;
    r.ranks = a.ranks;
    r.bytes = 3 << 20;
    const Schedule s = generate_schedule(algorithm, r);
    const auto times_a = engine_times(s, *a.topology, 1e-11), times_b = engine_times(s, *b.topology, 1e-11);
    for (std::size_t i = 0; i < times_a.size(); ++i) {
      INFO(algorithm << ", engine " << times_a[i].first);
      CHECK(times_a[i].second == times_b[i].second);
    }
  }
}

TEST_CASE("a message alone takes the corrected start-up plus its bytes at the corrected bottleneck, in every engine") {
  const ClusterConfig config = cluster("topology: {kind: xgft, m: [2, 2], w: [1, 2], links: [e, f]}\n");
  const Topology& t = *config.topology;
  for (const auto& [src, dst] : std::vector<std::pair<Rank, Rank>>{{0, 1}, {0, 3}, {2, 1}})
    for (std::uint64_t bytes : {std::uint64_t(100), std::uint64_t(4096), std::uint64_t(70000), std::uint64_t(3) << 20}) {
      const RouteCost cost = route_cost(t.network, route_between(t, src, dst), bytes, 1, simple_protocol());
      for (const auto& [engine, time_s] : engine_times(one_message(config.ranks, src, dst, bytes), t, 0)) {
        INFO(src << " -> " << dst << ", " << bytes << " bytes, engine " << engine);
        CHECK(time_s == Approx(cost.startup_s + double(bytes) / cost.bandwidth_Bps).epsilon(engine == "simgrid" ? 1e-6 : 1e-12));
      }
    }
}

TEST_CASE("a message its size factor holds below the link leaves the rest of the link to the others") {
  // A star of class f (4 GB/s): ranks 1 and 2 send into rank 0 at once, a small message (held
  // to 1 GB/s by its factor) and a large one (which takes the other 3 GB/s until the small one
  // is done). By hand: both start after their start-up.
  const ClusterConfig config = cluster("topology: {kind: star, endpoints: 3, link: f}\n");
  const Topology& t = *config.topology;
  ScheduleInfo info;
  info.ranks = 3;
  info.bytes = (1 << 20) + 32768;
  Schedule s(info);
  const ChunkId large = s.add_chunk({0, 1 << 20}), small = s.add_chunk({1 << 20, 32768});
  s.append(1, large, 0, large, Op::copy, 0, {});
  s.append(2, small, 0, small, Op::copy, 0, {});
  const RouteCost large_cost = route_cost(t.network, route_between(t, 1, 0), 1 << 20, 1, simple_protocol());
  const RouteCost small_cost = route_cost(t.network, route_between(t, 2, 0), 32768, 1, simple_protocol());
  REQUIRE(small_cost.bandwidth_Bps == Approx(1e9));
  REQUIRE(large_cost.bandwidth_Bps == Approx(4e9));
  // The large one starts first (smaller start-up), alone at 4 GB/s until the small one starts;
  // then 3 GB/s while the small one drains at 1 GB/s, then 4 GB/s again.
  const double small_start = small_cost.startup_s, small_end = small_start + 32768 / 1e9;
  const double large_start = large_cost.startup_s;
  REQUIRE(large_start < small_start);
  const double drained = (small_start - large_start) * 4e9 + (small_end - small_start) * 3e9;
  const double expected = small_end + ((1 << 20) - drained) / 4e9;
  for (const auto& [engine, time_s] : engine_times(s, t, 0)) {
    if (engine == "analytic") continue;  // contention-free by definition
    INFO("engine " << engine);
    CHECK(time_s == Approx(expected).epsilon(engine == "simgrid" ? 1e-6 : 1e-12));
  }
}

#ifdef COLLSIM_HAVE_SIMGRID  // without SimGrid, ctest lists the SimGrid tests as skipped (tests/CMakeLists.txt)
TEST_CASE("with efficiency and size factors, the flow engine still equals SimGrid on every allreduce algorithm") {
  const ClusterConfig config = cluster(
      "nodes: {count: 4, gpus_per_node: 2, switch: pcie, gpu_link: e, nics_per_node: 1, nic_link: f}\n"
      "topology: {kind: star, link: f}\n",
      1e-11);
  const Topology& t = *config.topology;
  for (const AlgorithmEntry& a : algorithm_table()) {
    if (!a.supports(Collective::allreduce)) continue;
    if (a.in_network != InNetwork::none) continue;  // needs a switch that reduces: test_in_network_cost.cpp
    for (std::uint64_t bytes : {std::uint64_t(8192), std::uint64_t(3) << 20})
      for (std::uint32_t segments : {0u, 4u}) {  // 4: slices that stream at their transfer's rate
        if (segments > 0 && !a.pipelined) continue;
        ScheduleRequest r;
        r.ranks = config.ranks;
        r.bytes = bytes;
        r.ranks_per_node = 2;
        r.segments = segments;
        const Schedule s = generate_schedule(a.name, r);
        INFO(a.name << ", " << bytes << " bytes, " << s.info().segments << " segments");
        CHECK(run_flow(s, t, 1e-11).time_s == Approx(run_simgrid(s, t, 1e-11).time_s).epsilon(1e-6));
      }
  }
}
#endif

TEST_CASE("a ring with factors equals its closed form with the factors of its slices and chunk") {
  // One class on a full mesh: every ring message has its own cable, so the analytic engine's
  // one-port ring is the closed form, with alpha that of a slice (N/(P S) bytes) and beta
  // that of a chunk (N/P bytes), the slices of a step streaming together.
  for (Rank p : {2u, 3u, 4u, 8u})
    for (std::uint64_t chunk : {std::uint64_t(1024), std::uint64_t(16384), std::uint64_t(1) << 20})
      for (std::uint32_t segments : {1u, 4u}) {
        const ClusterConfig config = cluster(fmt::format("topology: {{kind: full, endpoints: {}, link: e}}\n", p), 1e-10);
        const Topology& t = *config.topology;
        ScheduleRequest r;
        r.ranks = p;
        r.bytes = chunk * p;
        r.segments = segments;
        const Schedule s = generate_schedule("ring", r);
        REQUIRE(s.info().segments == segments);
        const LinkCost slice = equivalent_cost_model(t, 1e-10, chunk / segments).inter_node;
        const LinkCost whole = equivalent_cost_model(t, 1e-10, chunk).inter_node;
        const CostModel flat = CostModel::uniform(slice.alpha_s, whole.beta_s_per_byte, 1e-10);
        const double formula = *closed_forms::ring(Collective::allreduce, p, double(r.bytes), flat, segments);
        INFO("P = " << p << ", chunk " << chunk << ", " << segments << " segments");
        CHECK(run_analytic(s, t, 1e-10).time_s == Approx(formula).epsilon(1e-9));
      }
}
