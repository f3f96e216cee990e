// tests/sim/test_rank_core.cpp — the rank's core (docs/semantics.md, "The rank's core"): where a
// config gives core_copy_Bps, every route ends on its destination's core link (the receiver
// copies), none begins on one, and a reduction of b bytes crosses its rank's core as
// b x gamma x core_copy_Bps bytes. Held to: a receive and a reduction on one core take the time
// worked by hand (flow), the contention-free one by hand (analytic); a core so fast it never
// binds changes no time; a streamed ring equals the held one; and a slice's reduction takes
// the reduction factor of its whole transfer. (SimGrid against the flow engine with cores:
// tests/sim/test_simgrid_engine.cpp.)
#include <catch2/catch.hpp>

#include <string>


#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/cost_rule.hpp"
#include "sim/flow_engine.hpp"
#include "sim/prediction.hpp"
#include "tests/support/one_message.hpp"
#include "tests/support/rank_link_cluster.hpp"
#include "tests/support/schedule_request.hpp"
#include "topologies/cluster_config.hpp"

using namespace collsim;

namespace {

constexpr double kGamma = 1.0e-10;  // 1 MB reduced in 100 us alone

ClusterConfig cluster(const std::string& topology, Rank ranks, const std::string& core, double gamma = kGamma) {
  return test::rank_link_cluster(topology, ranks, core, gamma);
}

const std::string& kNodes = test::kRankLinkNodes;
const std::string kPair = "topology: {kind: full, endpoints: 2, link: ten}\n";

Schedule allreduce(const std::string& algorithm, Rank ranks, std::uint64_t bytes, Rank ranks_per_node,
                   std::uint32_t segments = 0) {
  return generate_schedule(algorithm, test::allreduce_request(ranks, bytes, 0, ranks_per_node, segments));
}

}  // namespace

TEST_CASE("a config's core puts each rank's core link at the receiving end of every route only") {
  const ClusterConfig c = cluster(kNodes, 16, "core_copy_Bps: 3.0e+12\n");
  const Topology& t = *c.topology;
  REQUIRE(t.models_core());
  const std::vector<LinkId> route = test::route_between(t, 2, 9);
  CHECK(route.back() == t.memory_of(9));
  CHECK(route.front() != t.memory_of(2));
  CHECK(t.network.link(route.back()).bandwidth_Bps == 3.0e12);
  CHECK(link_name(t.network, route.back()) == "n2.gpu1.core");
  const ClusterConfig plain = cluster(kNodes, 16, "");
  CHECK(std::vector<LinkId>(route.begin(), route.end() - 1) == test::route_between(*plain.topology, 2, 9));
}

TEST_CASE("a core and a memory together, or a core on the flat form, are refused") {
  CHECK_THROWS_WITH(cluster(kPair, 2, "core_copy_Bps: 1.0e+10\nmemory_bandwidth_Bps: 1.0e+10\n"),
                    Catch::Contains("a memory link or a core link, not both"));
  CHECK_THROWS_WITH(parse_cluster_config("name: t\nranks: 2\nlinks: {intra: {alpha_s: 1.0e-6, bandwidth_Bps: 1.0e+9}}\n"
                                         "core_copy_Bps: 1.0e+10\n",
                                         "t.yaml"),
                    Catch::Contains("'core_copy_Bps' needs the topology form"));
  CHECK_THROWS_AS(cluster(kPair, 2, "core_copy_Bps: -1\n"), Error);
}

TEST_CASE("a reduction and a receive on one core share it: the two take as long as one after the other") {
  // One cable of 10 GB/s each way, cores of 10 GB/s, gamma 1e-10, no alpha or latency; two
  // messages of 1 MB from rank 1 to rank 0, the first reduced.
  //   0 .. 100 us:   message 1 alone at 10 GB/s (cable and rank 0's core).
  //   100 .. 300 us: message 2 and the reduction (1 MB x 1e-10 x 10 GB/s = 1 MB of the core's
  //                  bytes) share rank 0's core, 5 GB/s each: both end at 300 us.
  // A core copies and reduces one thing at a time: 300 us, as in series; free overlap (no
  // core) ends at 200 us.
  const ClusterConfig c = cluster(kPair, 2, "core_copy_Bps: 10.0e+9\n");
  const Schedule s = test::reduction_beside_a_transfer(1000000);
  const FlowResult flow = run_flow(s, *c.topology, kGamma);
  CHECK(flow.time_s == Approx(300e-6).epsilon(1e-12));
  CHECK(flow.rank_finish_s[1] == Approx(300e-6).epsilon(1e-12));  // the sender: message 2 arrived
  // Contention-free: the reduction alone, 100 us after its arrival at 100 us; message 2 after
  // message 1 on rank 1's port: 200 us.
  CHECK(run_analytic(s, *c.topology, kGamma).time_s == Approx(200e-6).epsilon(1e-12));
  const ClusterConfig none = cluster(kPair, 2, "");
  CHECK(run_flow(s, *none.topology, kGamma).time_s == Approx(200e-6).epsilon(1e-12));
  // Alone, a reduction on a core takes bytes x gamma, whatever the core's rate.
  CHECK(reduction_s_per_byte(*c.topology, 0, kGamma) == kGamma);
  const ReductionFlow f = reduction_flow(*c.topology, kGamma, 1000000);
  CHECK(f.bytes / f.cap_Bps == Approx(100e-6).epsilon(1e-12));
}

TEST_CASE("with gamma 0, a core faster than every link gives every allreduce algorithm its time without a core") {
  // A reducing core is busy whatever its rate (a reduction takes it all, a receive beside it
  // a share: the hand example above), so only without reductions is a fast core invisible:
  // then it is one more link on each route, never the bottleneck, and reductions are instant.
  const ClusterConfig plain = cluster(kNodes, 16, "", 0.0);
  const ClusterConfig fast = cluster(kNodes, 16, "core_copy_Bps: 1.0e+15\n", 0.0);
  for (const AlgorithmEntry& a : algorithm_table()) {
    if (!a.supports(Collective::allreduce) || a.in_network != InNetwork::none) continue;
    for (Rank p : {5u, 16u}) {
      if (a.name == "hierarchical-ring" && p % 4 != 0) continue;
      INFO(a.name << " P=" << p);
      const Schedule s = allreduce(std::string(a.name), p, 8 << 20, 4);
      CHECK(run_analytic(s, *fast.topology, 0.0).time_s ==
            Approx(run_analytic(s, *plain.topology, 0.0).time_s).epsilon(1e-12));
      const FlowResult with = run_flow(s, *fast.topology, 0.0), without = run_flow(s, *plain.topology, 0.0);
      CHECK(with.time_s == Approx(without.time_s).epsilon(1e-12));
      for (Rank r = 0; r < p; ++r) CHECK(with.rank_finish_s[r] == Approx(without.rank_finish_s[r]).epsilon(1e-12));
    }
  }
}

TEST_CASE("a streamed ring with cores predicts the held ring's time") {
  const ClusterConfig c = cluster(kNodes, 16, "core_copy_Bps: 3.0e+9\n");
  const std::vector<PredictionRecord> h = test::ring_predictions(c, Collective::allreduce, Streaming::never);
  const std::vector<PredictionRecord> s = test::ring_predictions(c, Collective::allreduce, Streaming::always);
  REQUIRE(h.size() == s.size());
  for (std::size_t i = 0; i < h.size(); ++i) {
    REQUIRE(s[i].streamed);
    CHECK(s[i].time_s == Approx(h[i].time_s).epsilon(1e-12));
  }
}

TEST_CASE("a slice's reduction takes the reduction factor of its whole transfer") {
  // In cache (below 1 MiB) a reduction runs at half gamma; the slices of a 4 MiB transfer in 4
  // stream from memory, as the whole transfer does.
  const ClusterConfig c = cluster(kPair, 2,
                                  "reduction_factors:\n  - {from_bytes: 0, gamma: 0.5}\n"
                                  "  - {from_bytes: 2M, gamma: 1}\n");
  const Topology& t = *c.topology;
  CHECK(reduction_gamma(t, kGamma, 1 << 20, 1) == 0.5 * kGamma);
  CHECK(reduction_gamma(t, kGamma, 1 << 20, 4) == kGamma);
  CHECK(reduction_gamma(t, kGamma, std::uint64_t(1) << 61, 16) == kGamma);  // no overflow
  // A two-rank tree of 8 MiB in 8 segments of 1 MiB: its last reduction, on rank 0, paces at
  // gamma, not half; the same segments without slicing (segments 1, one 8 MiB transfer) too.
  const Schedule sliced = allreduce("tree", 2, 8 << 20, 0, 8);
  const ClusterConfig flat_gamma = cluster(kPair, 2, "");
  const Topology& flat = *flat_gamma.topology;
  CHECK(run_analytic(sliced, t, kGamma).time_s == Approx(run_analytic(sliced, flat, kGamma).time_s).epsilon(1e-12));
  CHECK(run_flow(sliced, t, kGamma).time_s == Approx(run_flow(sliced, flat, kGamma).time_s).epsilon(1e-12));
}
