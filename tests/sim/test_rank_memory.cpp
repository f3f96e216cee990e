// tests/sim/test_rank_memory.cpp — the rank's memory (docs/semantics.md, "The rank's memory"):
// where a config gives memory_bandwidth_Bps, every route begins and ends on its ranks' memory
// links and a reduction of b bytes moves 3b bytes across its rank's, at most at 3/gamma.
// Held to: a memory so fast it never binds changes no time (analytic and flow engines, every
// allreduce algorithm); a reduction overlapping a transfer on one rank takes the max-min time
// derived by hand (flow), and the contention-free time by hand (analytic); a ring allreduce on
// a full network equals its closed form with memory, 2(P-1) alpha + 2(P-1)/P N max(beta, 1/M)
// + (P-1)/P N max(gamma, 3/M), to 1e-9. (SimGrid against the flow engine with memory:
// tests/sim/test_simgrid_engine.cpp.)
#include <catch2/catch.hpp>

#include <string>

#include <fmt/format.h>

#include "collectives/algorithm.hpp"
#include "collectives/closed_forms.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/cost_rule.hpp"
#include "sim/flow_engine.hpp"
#include "sim/pair_pricing.hpp"
#include "sim/prediction.hpp"
#include "topologies/cluster_config.hpp"
#include "tests/support/one_message.hpp"
#include "tests/support/rank_link_cluster.hpp"
#include "tests/support/schedule_request.hpp"

using namespace collsim;

namespace {

constexpr double kGamma = 1.0e-10;  // a reduction unit of 10 GB/s: 30 GB/s of memory traffic

// `memory`: the YAML line giving the ranks' memory, or "" for none.
ClusterConfig cluster(const std::string& topology, Rank ranks, const std::string& memory, double gamma = kGamma) {
  return test::rank_link_cluster(topology, ranks, memory, gamma);
}

const std::string& kNodes = test::kRankLinkNodes;

Schedule allreduce(const std::string& algorithm, Rank ranks, std::uint64_t bytes, Rank ranks_per_node) {
  return generate_schedule(algorithm, test::allreduce_request(ranks, bytes, 0, ranks_per_node));
}

using test::reduction_beside_a_transfer;

}  // namespace

TEST_CASE("a config's memory bandwidth puts each rank's memory link at both ends of every route") {
  const ClusterConfig c = cluster(kNodes, 16, "memory_bandwidth_Bps: 3.0e+12\n");
  const Topology& t = *c.topology;
  REQUIRE(t.models_memory());
  const std::vector<LinkId> route = test::route_between(t, 2, 9);
  REQUIRE(route.size() >= 3);
  CHECK(route.front() == t.memory_of(2));
  CHECK(route.back() == t.memory_of(9));
  CHECK(t.network.link(route.front()).kind == LinkKind::memory);
  CHECK(t.network.link(route.front()).bandwidth_Bps == 3.0e12);
  CHECK(link_name(t.network, route.front()) == "n0.gpu2.memory");
  // The links between are the router's, as without memory.
  const ClusterConfig plain = cluster(kNodes, 16, "");
  CHECK(std::vector<LinkId>(route.begin() + 1, route.end() - 1) == test::route_between(*plain.topology, 2, 9));
  CHECK_FALSE(plain.topology->models_memory());
}

TEST_CASE("a rank's reduction alone takes bytes x max(gamma, 3 / memory bandwidth)") {
  // 20 GB/s of memory: 3 bytes per byte reduced bind it below gamma's 30 GB/s.
  const ClusterConfig slow = cluster("topology: {kind: full, endpoints: 2, link: ten}\n", 2, "memory_bandwidth_Bps: 20.0e+9\n");
  CHECK(reduction_s_per_byte(*slow.topology, 0, kGamma) == Approx(1.5e-10).epsilon(1e-15));
  const ClusterConfig fast = cluster("topology: {kind: full, endpoints: 2, link: ten}\n", 2, "memory_bandwidth_Bps: 60.0e+9\n");
  CHECK(reduction_s_per_byte(*fast.topology, 0, kGamma) == kGamma);
  const ClusterConfig none = cluster("topology: {kind: full, endpoints: 2, link: ten}\n", 2, "");
  CHECK(reduction_s_per_byte(*none.topology, 0, kGamma) == kGamma);
  CHECK(reduction_rate_cap_Bps(kGamma) == Approx(30e9).epsilon(1e-15));
}

TEST_CASE("a memory so fast it never binds gives every allreduce algorithm its time without memory") {
  const ClusterConfig plain = cluster(kNodes, 16, "");
  const ClusterConfig fast = cluster(kNodes, 16, "memory_bandwidth_Bps: 1.0e+15\n");
  for (const AlgorithmEntry& a : algorithm_table()) {
    // In-network algorithms need reducing switches, which this cluster has not.
    if (!a.supports(Collective::allreduce) || a.in_network != InNetwork::none) continue;
    for (Rank p : {5u, 16u})
      for (std::uint64_t bytes : {1000003ull, 8ull << 20}) {
        INFO(a.name << " P=" << p << ", " << bytes << " bytes");
        if (a.name == "hierarchical-ring" && p % 4 != 0) continue;
        const Schedule s = allreduce(std::string(a.name), p, bytes, 4);
        CHECK(run_analytic(s, *fast.topology, kGamma).time_s ==
              Approx(run_analytic(s, *plain.topology, kGamma).time_s).epsilon(1e-12));
        const FlowResult with = run_flow(s, *fast.topology, kGamma);
        const FlowResult without = run_flow(s, *plain.topology, kGamma);
        CHECK(with.time_s == Approx(without.time_s).epsilon(1e-12));
        for (Rank r = 0; r < p; ++r) CHECK(with.rank_finish_s[r] == Approx(without.rank_finish_s[r]).epsilon(1e-12));
      }
  }
}

TEST_CASE("a reduction that overlaps a transfer on its rank shares the rank's memory max-min") {
  // One cable of 10 GB/s each way, memories of 20 GB/s, gamma 1e-10 (30 GB/s of memory traffic
  // at most), no alpha or latency; two messages of 1 MB from rank 1 to rank 0, the first reduced.
  //   0 .. 100 us:   message 1 alone at 10 GB/s (the cable).
  //   100 .. 200 us: message 2 at 10 GB/s (the cable) and the reduction's 3 MB at the rest of
  //                  rank 0's memory, 20 - 10 = 10 GB/s: 1 MB of it done.
  //   200 .. 300 us: the reduction alone at 20 GB/s (its memory, below its 30): 2 MB, 100 us.
  // Free overlap would end at 200 us (the reduction at 1/gamma while message 2 drains); the
  // same reduction after message 2, serial, at 350 us.
  const ClusterConfig c =
      cluster("topology: {kind: full, endpoints: 2, link: ten}\n", 2, "memory_bandwidth_Bps: 20.0e+9\n");
  const Schedule s = reduction_beside_a_transfer(1000000);
  const FlowResult flow = run_flow(s, *c.topology, kGamma);
  CHECK(flow.time_s == Approx(300e-6).epsilon(1e-12));
  CHECK(flow.rank_finish_s[1] == Approx(200e-6).epsilon(1e-12));  // the sender: message 2 arrived
  // Contention-free: the reduction alone, 1 MB x max(1e-10, 3 / 20e9) = 150 us after its
  // arrival at 100 us; message 2 after message 1 on rank 1's send port: 200 us.
  CHECK(run_analytic(s, *c.topology, kGamma).time_s == Approx(250e-6).epsilon(1e-12));
  // Without memory, today's model: the reduction overlaps message 2 for free.
  const ClusterConfig none = cluster("topology: {kind: full, endpoints: 2, link: ten}\n", 2, "");
  CHECK(run_flow(s, *none.topology, kGamma).time_s == Approx(200e-6).epsilon(1e-12));
}

TEST_CASE("reductions on one rank take its memory one at a time, beside its transfers") {
  // Gamma 0: a reduction's only cost is its 3 bytes per byte through memory. Two reductions
  // arrive on rank 0 at 100 us (one from each neighbour, 10 GB/s cables, memories of
  // 20 GB/s: the two arrivals share rank 0's memory, 10 GB/s each): each then takes 3 MB /
  // 20 GB/s = 150 us, one after the other: 400 us.
  const ClusterConfig c =
      cluster("topology: {kind: full, endpoints: 3, link: ten}\n", 3, "memory_bandwidth_Bps: 20.0e+9\n", 0.0);
  ScheduleInfo info;
  info.ranks = 3;
  info.bytes = 2000000;
  Schedule s(info);
  const ChunkId first = s.add_chunk({0, 1000000});
  const ChunkId second = s.add_chunk({1000000, 1000000});
  s.append(1, first, 0, first, Op::reduce, 0, {});
  s.append(2, second, 0, second, Op::reduce, 0, {});
  CHECK(run_flow(s, *c.topology, 0.0).time_s == Approx(400e-6).epsilon(1e-12));
}

TEST_CASE("a ring allreduce with memory equals its closed form with max(beta, 1/M) and max(gamma, 3/M)") {
  // A full network: no two transfers share a cable, so the analytic engine is the closed form.
  for (const double memory_Bps : {1.5e9, 5.0e9, 50.0e9}) {
    for (Rank p : {2u, 5u, 8u}) {
      const ClusterConfig c = cluster(fmt::format("topology: {{kind: full, endpoints: {}, link: a}}\n", p), p,
                                      fmt::format("memory_bandwidth_Bps: {}\n", memory_Bps));
      for (std::uint64_t n : {std::uint64_t(p) * 1000, std::uint64_t(p) << 20}) {
        INFO("M " << memory_Bps << " P=" << p << " N=" << n);
        const double alpha = 1.0e-6 + 3.0e-7;  // the class's alpha and the cable's latency (memory adds none)
        const double beta = 1.0 / std::min(2.0e9, memory_Bps), gamma = std::max(kGamma, 3.0 / memory_Bps);
        const double steps = p - 1, share = double(n) / p;
        const double expected = 2 * steps * alpha + 2 * steps * share * beta + steps * share * gamma;
        const Schedule s = allreduce("ring", p, n, 0);
        CHECK(run_analytic(s, *c.topology, kGamma).time_s == Approx(expected).epsilon(1e-9));
        const CostModel flat = equivalent_cost_model(*c.topology, kGamma);
        CHECK(*closed_form_time("ring", Collective::allreduce, p, n, flat, 1) == Approx(expected).epsilon(1e-9));
      }
    }
  }
}

TEST_CASE("a streamed ring with memory predicts the held ring's time") {
  const ClusterConfig c = cluster(kNodes, 16, "memory_bandwidth_Bps: 3.0e+9\n");
  for (Collective collective : {Collective::allreduce, Collective::reduce_scatter}) {
    INFO(to_string(collective));
    const std::vector<PredictionRecord> h = test::ring_predictions(c, collective, Streaming::never);
    const std::vector<PredictionRecord> s = test::ring_predictions(c, collective, Streaming::always);
    REQUIRE(h.size() == s.size());
    for (std::size_t i = 0; i < h.size(); ++i) {
      REQUIRE(s[i].streamed);
      CHECK(s[i].time_s == Approx(h[i].time_s).epsilon(1e-12));
    }
    // The memory binds here: without it the same ring is faster.
    const ClusterConfig none = cluster(kNodes, 16, "");
    CHECK(test::ring_predictions(none, collective, Streaming::never)[1].time_s < h[1].time_s);
  }
}
