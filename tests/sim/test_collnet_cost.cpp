// tests/sim/test_collnet_cost.cpp — InfiniBand SHARP (`topology: reduction: sharp`) costed by
// every engine with no code of its own: the fabric gets one logical reducer, reached from
// every NIC's leaf switch, whose link in carries the aggregation throughput and latency and
// whose link back is the multicast. collnet equals its closed form on the analytic engine
// (1e-9) with one GPU per node (the flow engine too, one segment) and on one node; SimGrid
// equals the flow engine on 1-3 nodes (1e-6); configs that put SHARP where it cannot be, or
// leave out its numbers, are refused in one line; collnet where the fabric does not reduce is
// refused; `--algo nccl` considers collnet only where the fabric reduces and the runtime map's
// collnet_enable is true (NCCL_COLLNET_ENABLE=1; off, NCCL's default, it never runs collnet on
// the marked DGX SuperPOD SU; on, it picks collnet at 64 KiB and 16 MiB), `--algo collnet` by
// name runs either way, and the key takes true or false; the reducer router's searches, which
// stop once a reducer's own endpoints are settled, give the routes of full searches.
#include <catch2/catch.hpp>

#include <string>

#include <fmt/format.h>

#include "tests/support/route_check.hpp"
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
#include "topologies/routing.hpp"

using namespace collsim;

namespace {

constexpr double kNvlink_Bps = 100e9, kIb_Bps = 25e9, kAlpha_s = 2e-6, kGamma = 1.234567e-10;

// `nodes` nodes of `gpus` GPUs (NVSwitches that reduce when `nvls`), one NIC per GPU on a star
// whose switch reduces (SHARP) at `sharp_Bps` after `sharp_latency_s`. Links have no latency
// unless `ib_latency_s`, so that a GPU's route to the SHARP switch costs what its route to
// another node's GPU does (the closed forms' condition).
std::string cluster_yaml(Rank nodes, Rank gpus, double sharp_Bps, double sharp_latency_s = 0, bool nvls = true,
                         double ib_latency_s = 0, const std::string& fabric = "") {
  const std::string node_reduction =
      nvls ? fmt::format(", reduction: nvls, reduction_Bps: {}, reduction_latency_s: 0", gpus * kNvlink_Bps) : "";
  const std::string topology =
      fabric.empty() ? fmt::format("{{kind: star, endpoints: {}, link: ib, reduction: sharp, reduction_Bps: {}, "
                                   "reduction_latency_s: {}}}",
                                   nodes * gpus, sharp_Bps, sharp_latency_s)
                     : fabric;
  return fmt::format(
      "name: t\nlink_classes:\n  nvl: {{bandwidth_Bps: {}, latency_s: 0, alpha_s: {}}}\n"
      "  ib: {{bandwidth_Bps: {}, latency_s: {}, alpha_s: {}}}\n"
      "topology: {}\n"
      "nodes: {{count: {}, gpus_per_node: {}, switch: nvswitch, gpu_link: nvl, nics_per_node: {}, nic_link: ib{}}}\n"
      "gamma_s_per_byte: {}\n",
      kNvlink_Bps, kAlpha_s, kIb_Bps, ib_latency_s, kAlpha_s, topology, nodes, gpus, gpus, node_reduction, kGamma);
}

ClusterConfig cluster(Rank nodes, Rank gpus, double sharp_Bps, double sharp_latency_s = 0, bool nvls = true,
                      double ib_latency_s = 0) {
  return parse_cluster_config(cluster_yaml(nodes, gpus, sharp_Bps, sharp_latency_s, nvls, ib_latency_s), "t.yaml");
}

Schedule collnet(Rank nodes, Rank g, std::uint64_t bytes, std::uint32_t segments) {
  return generate_schedule("collnet", test::allreduce_request(nodes * g, bytes, 1, g, segments));
}

std::string refused(const std::string& yaml) { return test::config_error(yaml); }

}  // namespace

TEST_CASE("A fabric marked reduction: sharp gets one reducer: every leaf into it, its throughput and latency in, and back") {
  const ClusterConfig c = cluster(3, 2, 1.5e11, 4e-7, true, 1e-7);
  const Topology& t = *c.topology;
  REQUIRE(t.fabric_reducer);
  CHECK(t.fabric_reduction == "sharp");
  const Network& net = t.network;
  CHECK(net.vertex(*t.fabric_reducer).kind == VertexKind::reducer);
  CHECK(net.vertex(*t.fabric_reducer).name == "sharp.reducer");
  const Rank sharp = t.ranks() + t.spanned_nodes();  // id 6 + 3: after the three node switches
  CHECK(t.vertex_of(sharp) == *t.fabric_reducer);
  CHECK(t.vertex_of(t.ranks() + 1) == t.node_reducers[1]);
  std::vector<LinkId> up, down;
  t.route(3, sharp, 0, up);  // GPU -> NIC -> star switch -> tree -> reducer
  t.route(sharp, 4, 0, down);
  REQUIRE(up.size() == 4);
  REQUIRE(down.size() == 4);
  CHECK(net.link(up[3]).to == *t.fabric_reducer);
  CHECK(net.link(up[3]).bandwidth_Bps == 1.5e11);
  CHECK(net.link(up[3]).latency_s == 4e-7);
  CHECK(net.link(down[0]).from == *t.fabric_reducer);
  CHECK(net.link(down[0]).bandwidth_Bps == 6 * kIb_Bps);  // as wide as every NIC link together
  // A route between ranks never cuts through the reducer, even by shortest path.
  const ClusterConfig shortest = parse_cluster_config(cluster_yaml(3, 2, 1.5e11, 0) + "routing: shortest-path\n", "t.yaml");
  std::vector<LinkId> across;
  shortest.topology->route(0, 5, 0, across);
  for (LinkId l : across) CHECK(shortest.topology->network.vertex(shortest.topology->network.link(l).to).kind != VertexKind::reducer);
}

TEST_CASE("collnet with one GPU per node equals its closed form (S + 1)(a + N/S b) on the analytic engine") {
  for (Rank m : {2u, 3u, 5u}) {
    const ClusterConfig c = cluster(m, 1, m * kIb_Bps, 0, false);  // the tree keeps up with every NIC
    const CostModel flat = equivalent_cost_model(*c.topology, kGamma);
    for (std::uint32_t segments : {1u, 2u, 5u})
      for (std::uint64_t bytes : {std::uint64_t(segments) * 1000, std::uint64_t(segments) << 20}) {
        INFO(m << " nodes, S=" << segments << ", N=" << bytes);
        const Schedule s = collnet(m, 1, bytes, segments);
        const double analytic = run_analytic(s, *c.topology, kGamma).time_s;
        const double form = *closed_form_time("collnet", Collective::allreduce, m, bytes, flat, segments);
        CHECK(analytic == Approx(form).epsilon(1e-9));
        CHECK(form == Approx((segments + 1) * (kAlpha_s + double(bytes) / segments / kIb_Bps)).epsilon(1e-12));
        if (segments == 1) CHECK(run_flow(s, *c.topology, kGamma).time_s == Approx(form).epsilon(1e-9));
      }
  }
}

TEST_CASE("collnet on one node, one segment, equals max(2G, G + 3)(a + N/G b) on the analytic engine") {
  for (Rank g : {2u, 3u, 4u, 8u}) {
    INFO("G=" << g);
    const ClusterConfig c = parse_cluster_config(
        fmt::format("name: t\nlink_classes:\n  nvl: {{bandwidth_Bps: {}, latency_s: 0, alpha_s: {}}}\n"
                    "nodes: {{count: 1, gpus_per_node: {}, switch: nvswitch, gpu_link: nvl, reduction: nvls, "
                    "reduction_Bps: {}, reduction_latency_s: 0}}\ngamma_s_per_byte: {}\n",
                    kNvlink_Bps, kAlpha_s, g, g * kNvlink_Bps, kGamma),
        "t.yaml");
    const std::uint64_t n = std::uint64_t(g) << 20;
    const double form =
        *closed_form_time("collnet", Collective::allreduce, g, n, equivalent_cost_model(*c.topology, kGamma), 1);
    CHECK(run_analytic(collnet(1, g, n, 1), *c.topology, kGamma).time_s == Approx(form).epsilon(1e-9));
    CHECK(form == Approx(std::max(2.0 * g, g + 3.0) * (kAlpha_s + double(n) / g / kNvlink_Bps)).epsilon(1e-12));
  }
  CHECK_FALSE(closed_form_time("collnet", Collective::allreduce, 8, 1 << 20, CostModel{.ranks_per_node = 4}, 1));
}

TEST_CASE("A slower SHARP tree is shared: M NICs reducing at once each get 1/M of its throughput") {
  const Rank m = 4;
  const std::uint64_t n = 64u << 20;
  const ClusterConfig c = cluster(m, 1, kIb_Bps, 0, false);  // reduces only as fast as one NIC sends
  const double up = kAlpha_s + double(n) * m / kIb_Bps, down = kAlpha_s + double(n) / kIb_Bps;
  CHECK(run_flow(collnet(m, 1, n, 1), *c.topology, kGamma).time_s == Approx(up + down).epsilon(1e-9));
  CHECK(run_analytic(collnet(m, 1, n, 1), *c.topology, kGamma).time_s == Approx(2 * down).epsilon(1e-9));
}

#ifdef COLLSIM_HAVE_SIMGRID
TEST_CASE("SimGrid gives the flow engine's collnet times to 1e-6, 1 to 3 nodes of 1 and 4 GPUs") {
  for (Rank m : {1u, 2u, 3u})
    for (Rank g : {1u, 4u})
      for (std::uint64_t bytes : {1ull, 1000003ull, 48ull << 20})
        for (std::uint32_t segments : {1u, 3u}) {
          if (m * g == 1) continue;
          INFO(m << " nodes x " << g << ", " << bytes << " bytes, S=" << segments);
          const ClusterConfig c = cluster(m, g, 2 * kIb_Bps, 5e-7, true, 1e-7);  // a tree slower than the NICs
          const Schedule s = collnet(m, g, bytes, segments);
          const FlowResult flow = run_flow(s, *c.topology, kGamma);
          const SimgridResult sg = run_simgrid(s, *c.topology, kGamma);
          CHECK(sg.time_s == Approx(flow.time_s).epsilon(1e-6));
          REQUIRE(sg.rank_finish_s.size() == flow.rank_finish_s.size());
          for (Rank r = 0; r < flow.rank_finish_s.size(); ++r)
            CHECK(sg.rank_finish_s[r] == Approx(flow.rank_finish_s[r]).epsilon(1e-6));
        }
}
#endif

TEST_CASE("SHARP where no switch can reduce, an unknown kind or missing numbers are refused in one line") {
  const std::string ring = cluster_yaml(
      2, 1, 1e11, 0, false, 0, "{kind: ring, endpoints: 2, link: ib, reduction: sharp, reduction_Bps: 1.0e+11, reduction_latency_s: 0}");
  CHECK_THAT(refused(ring), Catch::Contains("cabled to none") && Catch::Contains("star, fat-tree, xgft or al-fares"));
  std::string unknown = cluster_yaml(2, 1, 1e11);
  unknown.replace(unknown.find("reduction: sharp"), 16, "reduction: magic");
  CHECK_THAT(refused(unknown), Catch::Contains("'topology.reduction' must be sharp") && Catch::Contains("magic"));
  std::string nvls = cluster_yaml(2, 1, 1e11);
  nvls.replace(nvls.find("reduction: sharp"), 16, "reduction: nvls");
  CHECK_THAT(refused(nvls), Catch::Contains("belongs under 'nodes'"));
  std::string missing = cluster_yaml(2, 1, 1e11);
  missing.erase(missing.find(" reduction_Bps"), missing.find(" reduction_latency_s") - missing.find(" reduction_Bps"));
  CHECK_THAT(refused(missing), Catch::Contains("missing key 'reduction_Bps'"));
  const std::string zero = cluster_yaml(2, 1, 0);
  CHECK_THAT(refused(zero), Catch::Contains("topology.reduction_Bps"));
  std::string in_nodes = cluster_yaml(2, 2, 1e11);
  in_nodes.replace(in_nodes.find("reduction: nvls"), 15, "reduction: sharp");
  CHECK_THAT(refused(in_nodes), Catch::Contains("belongs under 'topology'"));
  for (const std::string& bad : {ring, unknown, nvls, missing, zero, in_nodes}) CHECK(refused(bad).find('\n') == std::string::npos);
}

TEST_CASE("collnet where the fabric does not reduce is refused, naming what to mark") {
  const ClusterConfig plain = parse_cluster_config(
      "name: t\nlink_classes:\n  ib: {bandwidth_Bps: 2.5e+10, latency_s: 0, alpha_s: 2.0e-6}\n"
      "topology: {kind: star, endpoints: 4, link: ib}\ngamma_s_per_byte: 1.0e-10\n",
      "t.yaml");
  const Schedule s = generate_schedule("collnet", test::allreduce_request(4, 4096, 1, 1, 1));
  CHECK_THROWS_WITH(run_flow(s, *plain.topology, 0),
                    Catch::Contains("fabric does not reduce") && Catch::Contains("reduction: sharp"));
  CHECK_THROWS_WITH(run_analytic(s, *plain.topology, 0), Catch::Contains("fabric does not reduce"));
}

namespace {

std::vector<PredictionRecord> predict_algorithms(const ClusterConfig& c, std::vector<std::string> algorithms,
                                                 std::vector<std::uint64_t> sizes) {
  return test::flow_prediction(c, std::move(algorithms), std::move(sizes));
}

}  // namespace

TEST_CASE("Algo nccl considers collnet where the fabric reduces and the cluster enables it, with Simple, else never") {
  ClusterConfig sharp = cluster(4, 2, 8 * kIb_Bps);
  REQUIRE_FALSE(sharp.collnet_enabled);  // NCCL's default: NCCL_COLLNET_ENABLE unset
  for (const PredictionRecord& rec : predict_algorithms(sharp, {"nccl"}, {4096, 1u << 28}))
    CHECK(rec.runs != "collnet");
  sharp.collnet_enabled = true;
  const std::vector<PredictionRecord> nccl = predict_algorithms(sharp, {"nccl"}, {4096, 1u << 28});
  const std::vector<PredictionRecord> alone = predict_algorithms(sharp, {"collnet"}, {4096, 1u << 28});
  REQUIRE(nccl.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) CHECK(nccl[i].time_s <= alone[i].time_s);
  CHECK(nccl[1].runs == "collnet");  // one hop across nodes, at the NICs' full rate
  CHECK(nccl[1].protocol.name == "simple");
  ClusterConfig plain = parse_cluster_config(
      "name: t\nlink_classes:\n  nvl: {bandwidth_Bps: 1.0e+11, latency_s: 0, alpha_s: 2.0e-6}\n"
      "  ib: {bandwidth_Bps: 2.5e+10, latency_s: 0, alpha_s: 2.0e-6}\ntopology: {kind: star, endpoints: 8, link: ib}\n"
      "nodes: {count: 4, gpus_per_node: 2, switch: nvswitch, gpu_link: nvl, nics_per_node: 2, nic_link: ib, "
      "reduction: nvls, reduction_Bps: 2.0e+11, reduction_latency_s: 0}\ngamma_s_per_byte: 1.0e-10\n",
      "t.yaml");
  plain.collnet_enabled = true;
  for (const PredictionRecord& rec : predict_algorithms(plain, {"nccl"}, {4096, 1u << 28})) CHECK(rec.runs != "collnet");
}

TEST_CASE("The reducer router's searches that stop at a reducer's own endpoints give the routes of full searches") {
  const ClusterConfig c = cluster(3, 4, 2 * kIb_Bps, 5e-7, true, 1e-7);
  const Topology& t = *c.topology;
  const ReducerRouter full(t.network, {});  // serves nobody: every search covers the network
  std::vector<VertexId> reducers = t.node_reducers;
  reducers.push_back(*t.fabric_reducer);
  for (VertexId reducer : reducers)
    for (Rank r = 0; r < t.ranks(); ++r) {
      const VertexId gpu = t.vertex_of(r);
      for (bool into : {true, false}) {
        std::vector<LinkId> targeted, everywhere;
        const VertexId src = into ? gpu : reducer, dst = into ? reducer : gpu;
        t.reducer_router->route(src, dst, 0, targeted);
        full.route(src, dst, 0, everywhere);
        INFO("rank " << r << (into ? " into " : " from ") << t.network.vertex(reducer).name);
        CHECK(targeted == everywhere);
        CHECK(is_path(t.network, targeted, src, dst));
      }
    }
}

namespace {

// The SuperPOD SU preset with `collnet_enable: true` in its runtime map, as a user turns it on.
ClusterConfig superpod_with_collnet() {
  std::string yaml = preset_yaml("dgx-h100-superpod-su");
  const std::string cpu = "  host_cpu: intel\n";
  REQUIRE(yaml.find(cpu) != std::string::npos);
  yaml.insert(yaml.find(cpu) + cpu.size(), "  collnet_enable: true\n");
  return parse_cluster_config(yaml, "su.yaml");
}

}  // namespace

TEST_CASE("On the DGX SuperPOD SU, --algo nccl runs collnet only with collnet_enable: true, collnet by name in both") {
  const ClusterConfig off = load_preset("dgx-h100-superpod-su");
  REQUIRE(off.topology->fabric_reducer);
  REQUIRE(off.topology->node_reducers.size() == 32);
  REQUIRE_FALSE(off.collnet_enabled);  // NCCL 2.30's default (src/init.cc)
  const ClusterConfig on = superpod_with_collnet();
  REQUIRE(on.collnet_enabled);
  const std::vector<std::uint64_t> sizes{64u << 10, 1u << 30};
  for (const PredictionRecord& rec : predict_algorithms(off, {"nccl"}, sizes)) {
    INFO(rec.bytes << " B: " << rec.runs);
    CHECK(rec.runs != "collnet");
  }
  const std::vector<PredictionRecord> nccl_on = predict_algorithms(on, {"nccl", "ring"}, {64u << 10, 16u << 20});
  REQUIRE(nccl_on.size() == 4);
  CHECK(nccl_on[0].runs == "collnet");  // the fastest at 64 KiB once NCCL may run it
  CHECK(nccl_on[2].runs == "collnet");
  CHECK(nccl_on[2].time_s < nccl_on[3].time_s / 3);  // a ring crosses the nodes 2(M - 1) times
  for (const ClusterConfig* c : {&off, &on}) {
    const std::vector<PredictionRecord> named = predict_algorithms(*c, {"collnet"}, {64u << 10});
    REQUIRE(named.size() == 1);
    CHECK(named[0].runs == "collnet");
    CHECK(named[0].time_s > 0);
  }
}

TEST_CASE("The runtime map's collnet_enable is true or false, refused otherwise in one line") {
  const std::string base = "name: t\nlink_classes:\n  ib: {bandwidth_Bps: 2.5e+10, latency_s: 0, alpha_s: 2.0e-6}\n"
                           "topology: {kind: star, endpoints: 4, link: ib}\ngamma_s_per_byte: 1.0e-10\n"
                           "runtime: {library: nccl, compute_capability: 9.0, host_cpu: intel";
  CHECK_FALSE(parse_cluster_config(base + "}\n", "t.yaml").collnet_enabled);
  CHECK_FALSE(parse_cluster_config(base + ", collnet_enable: false}\n", "t.yaml").collnet_enabled);
  CHECK(parse_cluster_config(base + ", collnet_enable: true}\n", "t.yaml").collnet_enabled);
  const std::string error = refused(base + ", collnet_enable: 1x}\n");
  CHECK_THAT(error, Catch::Contains("'runtime.collnet_enable' must be true or false"));
  CHECK(error.find('\n') == std::string::npos);
}
