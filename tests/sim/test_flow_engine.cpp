// tests/sim/test_flow_engine.cpp — the flow engine: equal to the analytic engine (unlimited
// ports) where routes share no link, and max-min sharing where they do.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "collectives/algorithm.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/flow_engine.hpp"
#include "topologies/cluster_config.hpp"

using namespace collsim;

namespace {

ClusterConfig cluster(const std::string& topology, Rank ranks) {
  return parse_cluster_config(fmt::format("name: t\nlink_classes:\n  l: {{bandwidth_Bps: 2.0e+9, latency_s: 3.0e-7, "
                                          "alpha_s: 1.0e-6}}\ntopology: {}\nranks: {}\ngamma_s_per_byte: 1.0e-10\n",
                                          topology, ranks),
                              "t.yaml");
}

double analytic_unlimited(const Schedule& s, const Topology& t, double gamma) {
  const PairCost cost = [&t](Rank a, Rank b) { return t.pair_cost(a, b); };
  return run_analytic(s, cost, gamma, {false}).time_s;
}

}  // namespace

TEST_CASE("where routes share no link the flow engine equals the analytic engine with unlimited ports") {
  for (Rank p : {2u, 3u, 5u, 8u, 12u}) {
    const ClusterConfig c = cluster(fmt::format("{{kind: full, endpoints: {}, link: l}}", p), p);
    for (const auto& algorithm : algorithm_table()) {
      for (Collective collective : algorithm.collectives) {
        ScheduleRequest r;
        r.collective = collective;
        r.ranks = p;
        r.bytes = 3 << 20;
        // One segment: a pipeline's segments on one tree edge share that edge's link in the
        // flow engine, while the unlimited-port analytic engine gives each the full bandwidth.
        r.segments = algorithm.pipelined ? 1 : 0;
        if (algorithm.name == "hierarchical-ring") {
          if (p % 2 != 0) continue;
          r.ranks_per_node = 2;
        }
        INFO(algorithm.name << " " << to_string(collective) << " P=" << p);
        const Schedule s = generate_schedule(algorithm.name, r);
        const FlowResult flow = run_flow(s, *c.topology, 1e-10);
        REQUIRE(flow.time_s == Approx(analytic_unlimited(s, *c.topology, 1e-10)).epsilon(1e-9));
      }
    }
  }
}

TEST_CASE("two flows out of one rank share its link: each drains at half the bandwidth") {
  const ClusterConfig c = cluster("{kind: star, endpoints: 3, link: l}", 3);
  ScheduleRequest r;
  r.collective = Collective::broadcast;
  r.ranks = 3;
  r.bytes = 1 << 20;
  const Schedule s = generate_schedule("naive", r);
  const FlowResult flow = run_flow(s, *c.topology, 0);
  // Naive broadcast: the root sends 1 MiB to each of the two others at once: alpha, two hop
  // latencies, then 2 MiB through the root's 2 GB/s uplink.
  REQUIRE(s.size() == 2);
  REQUIRE(flow.time_s == Approx(1e-6 + 6e-7 + 2.0 * (1 << 20) / 2e9).epsilon(1e-9));
  const LinkId root_up = c.topology->network.find_link(c.topology->vertex_of(0), 3);
  REQUIRE(root_up != kNoLink);
  REQUIRE(flow.links[root_up].bytes == Approx(2.0 * (1 << 20)));
  REQUIRE(flow.rank_finish_s[1] == Approx(flow.time_s));
}

TEST_CASE("the flow engine gives identical results on identical runs") {
  const ClusterConfig c = cluster("{kind: fat-tree, k: 4, n: 2, link: l, taper: [1, 0.5]}", 16);
  ScheduleRequest r;
  r.ranks = 16;
  r.bytes = 1 << 22;
  const Schedule s = generate_schedule("two-tree", r);
  const FlowResult a = run_flow(s, *c.topology, 1e-10), b = run_flow(s, *c.topology, 1e-10);
  REQUIRE(a.time_s == b.time_s);
  REQUIRE(a.rank_finish_s == b.rank_finish_s);
  REQUIRE(a.events == b.events);
  REQUIRE(a.rate_solves == b.rate_solves);
  for (LinkId l = 0; l < a.links.size(); ++l) {
    REQUIRE(a.links[l].bytes == b.links[l].bytes);
    REQUIRE(a.links[l].busy_s == b.links[l].busy_s);
    REQUIRE(a.links[l].peak_utilization == b.links[l].peak_utilization);
  }
  REQUIRE(a.critical_path.size() == b.critical_path.size());
  for (std::size_t i = 0; i < a.critical_path.size(); ++i) REQUIRE(a.critical_path[i].id == b.critical_path[i].id);
}
