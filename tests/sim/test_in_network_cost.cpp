// tests/sim/test_in_network_cost.cpp — in-network reduction costed by every engine with no
// code of its own: a node whose NVSwitch reduces (`reduction: nvls`) gets a reducer vertex
// whose link from the switch is the reduction throughput, shared by every flow it reduces,
// and whose link back is the multicast path, G GPU links wide. nvls equals its closed form on
// the analytic engine (1e-9), the flow engine equals the analytic one where the switch
// reduces at least as fast as all GPUs send (1e-9), and shares a slower switch among the
// GPUs (hand-computed, 1e-9); no gamma is charged for a switch's reduction; SimGrid equals
// the flow engine (1e-6). Configs that mark a switch that cannot reduce, or leave out the
// throughput, and nvls where no switch reduces, are refused in one line.
#include <catch2/catch.hpp>

#include <string>

#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/closed_forms.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/cost_rule.hpp"
#include "sim/flow_engine.hpp"
#include "sim/pair_pricing.hpp"
#include "sim/prediction.hpp"
#ifdef COLLSIM_HAVE_SIMGRID
#include "sim/simgrid_engine.hpp"
#endif
#include "tests/support/flow_prediction.hpp"
#include "tests/support/schedule_request.hpp"
#include "tests/support/test_cluster.hpp"
#include "topologies/cluster_config.hpp"

using namespace collsim;

namespace {

constexpr double kLink_Bps = 100e9, kAlpha_s = 1e-6, kGamma = 1.234567e-10;

// One node of `gpus` GPUs on an NVSwitch that reduces at `reduction_Bps`.
std::string node_yaml(Rank gpus, double reduction_Bps, double reduction_latency_s = 0,
                      const std::string& extra = "") {
  return fmt::format(
      "name: t\nlink_classes:\n  nvl: {{bandwidth_Bps: {}, latency_s: 0, alpha_s: {}}}\n"
      "nodes:\n  count: 1\n  gpus_per_node: {}\n  switch: nvswitch\n  gpu_link: nvl\n"
      "  reduction: nvls\n  reduction_Bps: {}\n  reduction_latency_s: {}\n{}gamma_s_per_byte: {}\n",
      kLink_Bps, kAlpha_s, gpus, reduction_Bps, reduction_latency_s, extra, kGamma);
}

ClusterConfig node(Rank gpus, double reduction_Bps, double reduction_latency_s = 0) {
  return parse_cluster_config(node_yaml(gpus, reduction_Bps, reduction_latency_s), "t.yaml");
}

Schedule nvls(Rank p, std::uint64_t bytes, std::uint32_t segments) {
  return generate_schedule("nvls", test::allreduce_request(p, bytes, 1, 0, segments));
}

}  // namespace

TEST_CASE("A reducing NVSwitch gets a reducer vertex: reduction throughput in, G GPU links back out") {
  const ClusterConfig c = node(8, 3.06e12, 2e-7);
  const Topology& t = *c.topology;
  REQUIRE(t.node_reducers.size() == 1);
  const Network& net = t.network;
  const VertexId reducer = t.node_reducers[0];
  CHECK(net.vertex(reducer).kind == VertexKind::reducer);
  CHECK(net.vertex(reducer).name == "n0.nvswitch.reducer");
  std::vector<LinkId> up, down;
  t.route(3, 8, 0, up);  // rank 3 to reducer 0 (id P = 8)
  t.route(8, 5, 0, down);
  REQUIRE(up.size() == 2);
  REQUIRE(down.size() == 2);
  CHECK(net.link(up[1]).to == reducer);
  CHECK(net.link(up[1]).bandwidth_Bps == 3.06e12);
  CHECK(net.link(up[1]).latency_s == 2e-7);
  CHECK(net.link(down[0]).from == reducer);
  CHECK(net.link(down[0]).bandwidth_Bps == 8 * kLink_Bps);
  CHECK(t.fabric_summary.find("reduces: nvls 3060 GB/s") != std::string::npos);
}

TEST_CASE("nvls on the analytic engine equals its closed form max(2P, P + 3)(a + N/P b) with one segment") {
  for (Rank p : {2u, 3u, 4u, 8u}) {
    const ClusterConfig c = node(p, p * kLink_Bps);  // the switch keeps up with every GPU
    const CostModel flat = equivalent_cost_model(*c.topology, kGamma);
    for (std::uint64_t bytes : {std::uint64_t(p) * 1000, std::uint64_t(p) << 20}) {
      INFO("P=" << p << " N=" << bytes);
      const double analytic = run_analytic(nvls(p, bytes, 1), *c.topology, kGamma).time_s;
      const double form = *closed_form_time("nvls", Collective::allreduce, p, bytes, flat, 1);
      CHECK(analytic == Approx(form).epsilon(1e-9));
      const double hop = kAlpha_s + double(bytes) / p / kLink_Bps;
      CHECK(form == Approx(std::max(2.0 * p, p + 3.0) * hop).epsilon(1e-12));
    }
    // Segments interleave the two phases on the ports step by step: no closed form.
    CHECK_FALSE(closed_form_time("nvls", Collective::allreduce, p, 1 << 20, flat, 4).has_value());
  }
}

TEST_CASE("A switch's reduction costs no gamma on any engine") {
  const ClusterConfig c = node(4, 4 * kLink_Bps);
  const Schedule s = nvls(4, 1 << 20, 2);
  CHECK(run_analytic(s, *c.topology, 1e-6).time_s == Approx(run_analytic(s, *c.topology, 0).time_s).epsilon(1e-12));
  CHECK(run_flow(s, *c.topology, 1e-6).time_s == Approx(run_flow(s, *c.topology, 0).time_s).epsilon(1e-12));
}

TEST_CASE("Where the switch keeps up, nvls on the flow engine is bound by a GPU's N + N/P up, and pipelines to it") {
  // A GPU sends every part once into the switch and writes its own part back: N + N/P bytes
  // up its link, so no schedule of this data path beats (1 + 1/P) N b. With enough segments
  // the reduce-scatter of segment k + 1 travels while segment k is written back and
  // multicast, and the time comes within a few percent of that bound.
  const std::uint64_t n = 64u << 20;
  for (Rank p : {2u, 4u, 8u}) {
    const ClusterConfig c = node(p, p * kLink_Bps);
    const double bound = (1.0 + 1.0 / p) * double(n) / kLink_Bps;
    for (std::uint32_t segments : {1u, 4u, 64u}) {
      INFO("P=" << p << " S=" << segments);
      const double flow = run_flow(nvls(p, n, segments), *c.topology, kGamma).time_s;
      CHECK(flow >= bound);
      if (segments == 64) CHECK(flow <= 1.05 * bound + 4 * kAlpha_s);
      if (segments == 1) CHECK(flow > 1.3 * bound);  // unpipelined, the phases follow one another
    }
  }
}

TEST_CASE("A slower switch is shared: it takes every GPU's N and the write-backs, (P + 1) N at its throughput") {
  const Rank p = 4;
  const std::uint64_t n = 64u << 20;
  const ClusterConfig c = node(p, kLink_Bps);  // reduces only as fast as one GPU sends
  const double switch_bound = (p + 1.0) * double(n) / kLink_Bps;
  const double flow = run_flow(nvls(p, n, 64), *c.topology, kGamma).time_s;
  CHECK(flow >= switch_bound);
  CHECK(flow <= 1.02 * switch_bound + 4 * kAlpha_s);
  // The analytic engine, contention-free, sees each route alone: far below the shared switch.
  CHECK(run_analytic(nvls(p, n, 64), *c.topology, kGamma).time_s < 0.5 * switch_bound);
}

#ifdef COLLSIM_HAVE_SIMGRID
TEST_CASE("SimGrid, with the reducer as a host, gives the flow engine's nvls times to 1e-6") {
  for (double reduction_Bps : {kLink_Bps, 8 * kLink_Bps})
    for (Rank p : {2u, 5u, 8u})
      for (std::uint64_t bytes : {1ull, 1000003ull, 48ull << 20})
        for (std::uint32_t segments : {1u, 4u}) {
          INFO("switch " << reduction_Bps << " B/s, P=" << p << ", " << bytes << " bytes, S=" << segments);
          const ClusterConfig placed = parse_cluster_config(node_yaml(8, reduction_Bps, 3e-7, fmt::format("ranks: {}\n", p)), "t.yaml");
          const Schedule s = nvls(p, bytes, segments);
          const double flow = run_flow(s, *placed.topology, kGamma).time_s;
          const SimgridResult sg = run_simgrid(s, *placed.topology, kGamma);
          CHECK(sg.time_s == Approx(flow).epsilon(1e-6));
          CHECK(sg.rank_finish_s.size() == p);
        }
}
#endif

TEST_CASE("nvls where no switch reduces is refused, naming why") {
  const ClusterConfig plain = parse_cluster_config(
      "name: t\nlink_classes:\n  nvl: {bandwidth_Bps: 1.0e+11, latency_s: 0, alpha_s: 1.0e-6}\n"
      "nodes: {count: 1, gpus_per_node: 4, switch: nvswitch, gpu_link: nvl}\ngamma_s_per_byte: 1.0e-10\n",
      "t.yaml");
  const Schedule s = nvls(4, 4096, 1);
  CHECK_THROWS_WITH(run_flow(s, *plain.topology, 0), Catch::Contains("node switches do not reduce") &&
                                                         Catch::Contains("reduction: nvls"));
  CHECK_THROWS_WITH(run_analytic(s, *plain.topology, 0), Catch::Contains("node switches do not reduce"));
  CHECK_THROWS_WITH(run_analytic(s, CostModel::uniform(1e-6, 1e-11, 0)), Catch::Contains("a flat network has no switch"));
}

TEST_CASE("A config that marks a switch that cannot reduce, or leaves out its numbers, is refused in one line") {
  const auto refused = test::config_error;
  std::string pcie = node_yaml(4, 1e11);
  pcie.replace(pcie.find("switch: nvswitch"), 16, "switch: pcie");
  CHECK_THAT(refused(pcie), Catch::Contains("needs switch: nvswitch; a pcie switch cannot reduce"));
  std::string missing = node_yaml(4, 1e11);
  missing.erase(missing.find("  reduction_Bps"), missing.find("  reduction_latency_s") - missing.find("  reduction_Bps"));
  CHECK_THAT(refused(missing), Catch::Contains("missing key 'reduction_Bps'"));
  std::string sharp = node_yaml(4, 1e11);
  sharp.replace(sharp.find("reduction: nvls"), 15, "reduction: sharp");
  CHECK_THAT(refused(sharp), Catch::Contains("belongs under 'topology'"));  // SHARP is the fabric's
  std::string unknown = node_yaml(4, 1e11);
  unknown.replace(unknown.find("reduction: nvls"), 15, "reduction: magic");
  CHECK_THAT(refused(unknown), Catch::Contains("'nodes.reduction' must be nvls"));
  std::string zero = node_yaml(4, 0);
  CHECK_THAT(refused(zero), Catch::Contains("nodes.reduction_Bps"));
  for (const std::string& bad : {pcie, missing, sharp, unknown, zero}) CHECK(refused(bad).find('\n') == std::string::npos);
}

namespace {

// `nodes` nodes of `gpus` GPUs whose switches reduce, one NIC per GPU on a star.
ClusterConfig nodes_on_star(Rank nodes, const std::string& placement = "linear", Rank gpus = 4) {
  return parse_cluster_config(
      fmt::format("name: t\nlink_classes:\n  nvl: {{bandwidth_Bps: {}, latency_s: 0, alpha_s: {}}}\n"
                  "  ib: {{bandwidth_Bps: 2.5e+10, latency_s: 1.0e-7, alpha_s: 2.0e-6}}\n"
                  "topology: {{kind: star, endpoints: {}, link: ib}}\n"
                  "nodes: {{count: {}, gpus_per_node: {}, switch: nvswitch, gpu_link: nvl, nics_per_node: {}, nic_link: ib, "
                  "reduction: nvls, reduction_Bps: 2.0e+11, reduction_latency_s: 3.0e-7}}\n"
                  "placement: {}\ngamma_s_per_byte: {}\n",
                  kLink_Bps, kAlpha_s, gpus * nodes, nodes, gpus, gpus, placement, kGamma),
      "t.yaml");
}

Schedule nvls_tree(Rank p, std::uint64_t bytes, std::uint32_t segments, Rank gpus = 4) {
  return generate_schedule("nvls-tree", test::allreduce_request(p, bytes, 1, gpus, segments));
}

}  // namespace

TEST_CASE("nvls-tree on one node costs (G + 1) parts up and G - 1 parts down on the analytic engine") {
  // One segment, one-port: each GPU sends its G parts up back to back (the owner's part comes
  // down meanwhile), writes its own part back up, and then receives the G - 1 others' parts,
  // one at a time on its receive port: (G + 1) hops up and G - 1 down, N/G bytes each.
  const ClusterConfig c = nodes_on_star(1);
  const std::uint64_t n = 4u << 20;
  const double up = kAlpha_s + 3e-7 + double(n) / 4 / kLink_Bps;  // through the reduction's latency
  const double down = kAlpha_s + double(n) / 4 / kLink_Bps;
  CHECK(run_analytic(nvls_tree(4, n, 1), *c.topology, kGamma).time_s == Approx(5 * up + 3 * down).epsilon(1e-9));
}

#ifdef COLLSIM_HAVE_SIMGRID
TEST_CASE("SimGrid gives the flow engine's nvls-tree times to 1e-6, 1 to 3 nodes") {
  for (Rank m : {1u, 2u, 3u})
    for (std::uint64_t bytes : {1ull, 1000003ull, 48ull << 20})
      for (std::uint32_t segments : {1u, 3u}) {
        INFO(m << " nodes, " << bytes << " bytes, S=" << segments);
        const ClusterConfig c = nodes_on_star(m);
        const Schedule s = nvls_tree(4 * m, bytes, segments);
        const FlowResult flow = run_flow(s, *c.topology, kGamma);
        const SimgridResult sg = run_simgrid(s, *c.topology, kGamma);
        CHECK(sg.time_s == Approx(flow.time_s).epsilon(1e-6));
        REQUIRE(sg.rank_finish_s.size() == flow.rank_finish_s.size());
        for (Rank r = 0; r < flow.rank_finish_s.size(); ++r) CHECK(sg.rank_finish_s[r] == Approx(flow.rank_finish_s[r]).epsilon(1e-6));
      }
}

// The double binary tree across nodes, even and odd node counts, nodes of 1 to 8 GPUs.
TEST_CASE("SimGrid gives the flow engine's nvls-tree times to 1e-6 on 1 to 16 nodes of 1, 2, 4 and 8 GPUs") {
  for (Rank g : {1u, 2u, 4u, 8u})
    for (Rank m : {1u, 2u, 4u, 5u, 8u, 16u})
      for (std::uint32_t segments : {1u, 3u}) {
        INFO(m << " nodes of " << g << " GPUs, S=" << segments);
        const ClusterConfig c = nodes_on_star(m, "linear", g);
        const Schedule s = nvls_tree(m * g, 1000003, segments, g);
        const FlowResult flow = run_flow(s, *c.topology, kGamma);
        CHECK(run_simgrid(s, *c.topology, kGamma).time_s == Approx(flow.time_s).epsilon(1e-6));
      }
}
#endif

TEST_CASE("nvls-tree with ranks placed off their switch's node is refused, naming the placement") {
  const ClusterConfig c = nodes_on_star(2, "round-robin");
  CHECK_THROWS_WITH(run_flow(nvls_tree(8, 4096, 1), *c.topology, 0),
                    Catch::Contains("rank 1 sits on node 1 but uses node 0's switch") && Catch::Contains("linear"));
}

namespace {

std::vector<PredictionRecord> predict_nccl(const ClusterConfig& c, std::vector<std::uint64_t> sizes) {
  return test::flow_prediction(c, {"nccl"}, std::move(sizes));
}

}  // namespace

TEST_CASE("Algo nccl runs nvls on a node whose switch reduces, where it is fastest, and never where none does") {
  const ClusterConfig reducing = node(8, 8 * kLink_Bps);
  const std::vector<PredictionRecord> picked = predict_nccl(reducing, {1u << 30});
  REQUIRE(picked.size() == 1);
  CHECK(picked[0].runs == "nvls");
  CHECK(picked[0].protocol.name == "simple");
  const ClusterConfig plain = parse_cluster_config(
      "name: t\nlink_classes:\n  nvl: {bandwidth_Bps: 1.0e+11, latency_s: 0, alpha_s: 1.0e-6}\n"
      "nodes: {count: 1, gpus_per_node: 8, switch: nvswitch, gpu_link: nvl}\ngamma_s_per_byte: 1.0e-10\n",
      "t.yaml");
  CHECK(predict_nccl(plain, {1u << 30}).at(0).runs != "nvls");
}

TEST_CASE("Algo nccl considers nvls-tree across nodes whose switches reduce, and nvls only within one") {
  const ClusterConfig two = nodes_on_star(2);
  const std::vector<PredictionRecord> records = predict_nccl(two, {4096, 1u << 28});
  for (const PredictionRecord& rec : records) CHECK(rec.runs != "nvls");
  PredictionRequest r;
  r.algorithms = {"nvls-tree"};
  r.sizes = {1u << 28};
  r.ranks = two.ranks;
  r.cost = two.cost;
  r.topology = two.topology;
  r.engine = EngineKind::flow;
  const double nvls_tree_s = predict(r).at(0).time_s;
  for (const PredictionRecord& rec : records)
    if (rec.bytes == 1u << 28) CHECK(rec.time_s <= nvls_tree_s);
}
