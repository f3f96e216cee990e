// Tuner plugins (sim/tuner_plugin.hpp): aws-ofi-nccl's p5 regions choose NCCL's algorithm and
// protocol by size and ranks, and `--algo nccl` runs that choice where the plugin makes one.
#include <catch2/catch.hpp>

#include <string>

#include "sim/prediction.hpp"
#include "sim/tuner_plugin.hpp"
#include "tests/support/flow_prediction.hpp"
#include "tests/support/test_cluster.hpp"
#include "topologies/cluster_config.hpp"
#include "topologies/placement.hpp"

using namespace collsim;

namespace {

constexpr std::uint64_t MiB = 1ull << 20;
constexpr std::uint64_t GiB = 1ull << 30;

std::string p5_choice(std::uint64_t bytes, Rank ranks, Collective collective = Collective::allreduce,
                      Rank per_node = 8, bool nvls_tree = true) {
  const auto pick = tuner_plugin_choice(TunerPlugin::aws_ofi_nccl_p5, collective, bytes, ranks, ranks / per_node,
                                        [&](std::string_view a) { return nvls_tree || a != "nvls-tree"; });
  return pick ? std::string(pick->algorithm) + " " + std::string(pick->protocol) : "nccl's own";
}

// A small p5-like cluster: nodes of 8 GPUs on reducing NVSwitches, a NIC each, one switch.
ClusterConfig p5_like(int nodes, const std::string& tuner) {
  return parse_cluster_config(
      "name: t\nlink_classes:\n  nv: {technology: nvswitch3, links: 18}\n"
      "  efa: {bandwidth_Bps: 50.0e+9, latency_s: 300.0e-9, alpha_s: 2.0e-6, transport: net}\n"
      "topology: {kind: star, link: efa}\n"
      "nodes: {count: " + std::to_string(nodes) + ", gpus_per_node: 8, switch: nvswitch, gpu_link: nv, "
      "nics_per_node: 8, nic_link: efa, reduction: nvls, reduction_Bps: 2.36e+12, reduction_latency_s: 0}\n"
      "gamma_s_per_byte: 8.96e-13\n"
      "runtime: {library: nccl, compute_capability: 9.0, host_cpu: amd" + tuner + "}\n",
      "t.yaml");
}

}  // namespace

TEST_CASE("aws-ofi-nccl's p5 regions give the algorithm and protocol of each published p5 run") {
  // The busbw steps of the published p5 runs (validate/public/logs/aws-p5-efa.txt) fall where
  // the regions change protocol: 4 nodes between 1 and 2 GiB, 8 between 2 and 4, 16 at 4 and 8.
  CHECK(p5_choice(32 * MiB, 32) == "nccl-tree ll128");
  CHECK(p5_choice(64 * MiB, 32) == "ring ll128");
  CHECK(p5_choice(1 * GiB, 32) == "ring ll128");
  CHECK(p5_choice(2 * GiB, 32) == "ring simple");
  CHECK(p5_choice(64 * MiB, 64) == "nccl-tree ll128");
  CHECK(p5_choice(2 * GiB, 64) == "ring ll128");  // on the region's corner: the plugin counts edges in
  CHECK(p5_choice(4 * GiB, 64) == "ring simple");
  CHECK(p5_choice(256 * MiB, 128) == "nccl-tree ll128");
  CHECK(p5_choice(512 * MiB, 128) == "ring ll128");
  CHECK(p5_choice(4 * GiB, 128) == "nvls-tree simple");
  CHECK(p5_choice(8 * GiB, 128) == "ring simple");
  CHECK(p5_choice(512 * MiB, 256) == "nvls-tree simple");
  CHECK(p5_choice(2 * GiB, 256) == "ring ll128");
  CHECK(p5_choice(8 * GiB, 256) == "nvls-tree simple");
  // v1.16.3 measures the plane as it is; on later versions' log2 axes this point lies outside
  // every region (NCCL's own choice): the one size and rank count of 2^3..2^33 bytes on 24 to
  // 1,024 ranks where the two differ.
  CHECK(p5_choice(2 * GiB, 48) == "ring simple");
}

TEST_CASE("aws-ofi-nccl's p5 regions for 2 GPUs and 1 GPU a node") {
  // Each checked against the plugin's source parsed apart (its vertices read from the file, the
  // same geometry) on 3-512 nodes x 2^10..2^36 bytes: the same choice at all 1,215 points.
  CHECK(p5_choice(1 * MiB, 8, Collective::allreduce, 2) == "nccl-tree ll128");
  CHECK(p5_choice(32 * MiB, 16, Collective::allreduce, 2) == "ring ll128");
  CHECK(p5_choice(256 * MiB, 16, Collective::allreduce, 2) == "nvls-tree simple");
  CHECK(p5_choice(4 * GiB, 16, Collective::allreduce, 2) == "ring simple");
  CHECK(p5_choice(256 * MiB, 64, Collective::allreduce, 2) == "ring ll128");
  CHECK(p5_choice(4 * GiB, 256, Collective::allreduce, 2) == "nvls-tree simple");
  CHECK(p5_choice(1 * MiB, 4, Collective::allreduce, 1) == "ring ll128");
  CHECK(p5_choice(32 * MiB, 4, Collective::allreduce, 1) == "ring simple");
  CHECK(p5_choice(1 * MiB, 16, Collective::allreduce, 1) == "nccl-tree ll128");
  CHECK(p5_choice(32 * MiB, 64, Collective::allreduce, 1) == "nccl-tree ll128");
  // v1.16.3's one-GPU tree region stops at its far corner: small sizes on many nodes are NCCL's.
  CHECK(p5_choice(1 * MiB, 64, Collective::allreduce, 1) == "nccl's own");
}

TEST_CASE("aws-ofi-nccl's p5 regions leave NCCL its own choice on 2 nodes, other layouts and other collectives") {
  CHECK(p5_choice(64 * MiB, 16) == "nccl's own");                             // 2 nodes
  CHECK(p5_choice(64 * MiB, 8) == "nccl's own");                              // 1 node
  CHECK(p5_choice(64 * MiB, 16, Collective::allreduce, 4) == "nccl's own");   // 4 GPUs a node: no regions
  CHECK(p5_choice(64 * MiB, 4, Collective::allreduce, 2) == "nccl's own");    // 2 nodes of 2
  CHECK(p5_choice(64 * MiB, 32, Collective::allgather) == "nccl's own");
  CHECK(p5_choice(64 * MiB, 32, Collective::reduce_scatter) == "nccl's own");
  // A region whose algorithm cannot run here is passed over, as NCCL's ignored entries are: the
  // next that holds the point wins (7.5 GiB on 160 ranks is a corner of NVLS-tree's region and
  // of the ring's with Simple), or none does.
  CHECK(p5_choice(8053063680, 160) == "nvls-tree simple");
  CHECK(p5_choice(8053063680, 160, Collective::allreduce, 8, false) == "ring simple");
  CHECK(p5_choice(4 * GiB, 128, Collective::allreduce, 8, false) == "nccl's own");
  CHECK(tuner_plugin_choice(TunerPlugin::none, Collective::allreduce, 64 * MiB, 32, 4,
                            [](std::string_view) { return true; }) == std::nullopt);
}

TEST_CASE("Algo nccl runs the tuner plugin's choice where it makes one, and the fastest elsewhere") {
  const ClusterConfig tuned = p5_like(4, ", tuner: aws-ofi-nccl-p5");
  const ClusterConfig untuned = p5_like(4, "");
  REQUIRE(tuned.tuner == TunerPlugin::aws_ofi_nccl_p5);
  REQUIRE(untuned.tuner == TunerPlugin::none);
  const std::vector<std::uint64_t> sizes{32 * MiB, 64 * MiB};
  const std::vector<PredictionRecord> plugin = test::flow_prediction(tuned, {"nccl"}, sizes);
  const std::vector<PredictionRecord> fastest = test::flow_prediction(untuned, {"nccl"}, sizes);
  REQUIRE(plugin.size() == 2);
  CHECK(plugin[0].runs == "nccl-tree");
  CHECK(plugin[0].protocol.name == "ll128");
  CHECK(plugin[1].runs == "ring");
  CHECK(plugin[1].protocol.name == "ll128");
  // Not the fastest here: the plugin's tree is slower than what collsim's own pick would run.
  CHECK(fastest[0].runs != "nccl-tree");
  CHECK(plugin[0].time_s > fastest[0].time_s);
  // On 2 nodes the plugin leaves the choice to NCCL: the fastest, tuner or not.
  const std::vector<PredictionRecord> two = test::flow_prediction(p5_like(2, ", tuner: aws-ofi-nccl-p5"), {"nccl"}, sizes);
  const std::vector<PredictionRecord> two_untuned = test::flow_prediction(p5_like(2, ""), {"nccl"}, sizes);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    CHECK(two[i].runs == two_untuned[i].runs);
    CHECK(two[i].time_s == two_untuned[i].time_s);
  }
}

TEST_CASE("A config's runtime tuner is one the simulator knows") {
  CHECK(p5_like(3, ", tuner: none").tuner == TunerPlugin::none);
  REQUIRE_THAT(test::config_error("name: t\nlink_classes:\n  nv: {technology: nvswitch3, links: 18}\n"
                                  "nodes: {count: 1, gpus_per_node: 8, switch: nvswitch, gpu_link: nv}\n"
                                  "gamma_s_per_byte: 0\n"
                                  "runtime: {library: nccl, compute_capability: 9.0, host_cpu: amd, tuner: nccl-tuner}\n"),
               Catch::Contains("'runtime.tuner' must be aws-ofi-nccl-p5"));
}

TEST_CASE("NCCL_PROTO (predict --algo nccl --protocol X) limits NCCL's choice and the plugin's regions to X") {
  const auto pick = [](std::string_view only) {
    const auto c = tuner_plugin_choice(TunerPlugin::aws_ofi_nccl_p5, Collective::allreduce, 32 * MiB, 32, 4,
                                       [](std::string_view) { return true; },
                                       [&](std::string_view p) { return only.empty() || p == only; });
    return c ? std::string(c->algorithm) + " " + std::string(c->protocol) : "nccl's own";
  };
  CHECK(pick("ll128") == "nccl-tree ll128");
  CHECK(pick("simple") == "nccl's own");  // no Simple region holds 32 MiB on 32 ranks
  CHECK(pick({}) == "nccl-tree ll128");
  // Without a plugin: the fastest with that protocol alone; in-network algorithms (Simple only)
  // only where it is Simple.
  ClusterConfig c = p5_like(4, "");
  PredictionRequest r = cluster_request(c);
  r.algorithms = {"nccl"};
  r.sizes = {64 * MiB};
  r.engine = EngineKind::flow;
  r.nccl_protocol = find_protocol("ll");
  const PredictionRecord ll = predict(r).at(0);
  CHECK(ll.protocol.name == "ll");
  CHECK((ll.runs == "ring" || ll.runs == "nccl-tree"));
  r.nccl_protocol = simple_protocol();
  const PredictionRecord simple = predict(r).at(0);
  CHECK(simple.protocol.name == "simple");
  r.nccl_protocol.reset();
  CHECK(predict(r).at(0).time_s <= std::min(ll.time_s, simple.time_s));
}

TEST_CASE("Algo nccl takes the nodes the ranks sit on as placed: spread one a node, no NVLS, the one-GPU regions") {
  ClusterConfig c = p5_like(8, ", tuner: aws-ofi-nccl-p5");
  c.place(8, Placement{.kind = Placement::Kind::round_robin});
  const std::vector<PredictionRecord> spread = test::flow_prediction(c, {"nccl"}, {32 * MiB});
  REQUIRE(spread.size() == 1);
  // 8 ranks on 8 nodes: NVLS (one node's switch) is no candidate; the plugin's one-GPU-a-node
  // regions put 32 MiB on 8 ranks in the ring's with Simple.
  CHECK(spread[0].runs == "ring");
  CHECK(spread[0].protocol.name == "simple");
  c.place(8, Placement{});  // linear: one node, NVLS runs
  CHECK(test::flow_prediction(c, {"nccl"}, {32 * MiB}).at(0).runs == "nvls");
}
