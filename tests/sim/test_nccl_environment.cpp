// NCCL's environment in a cluster's config (NcclEnvironment: runtime.algo, proto, nvls_enable,
// read as NCCL reads NCCL_ALGO, NCCL_PROTO and NCCL_NVLS_ENABLE): `--algo nccl` chooses only
// among what it leaves, a tuner plugin's regions included, and --protocol (NCCL_PROTO for one
// prediction) overrides the config's proto.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "sim/prediction.hpp"
#include "sim/runtime.hpp"
#include "tests/support/test_cluster.hpp"
#include "topologies/cluster_config.hpp"

using namespace collsim;

namespace {

constexpr std::uint64_t MiB = 1ull << 20;
constexpr std::uint64_t GiB = 1ull << 30;

// Nodes of 8 H100s on reducing NVSwitches (NVLS runs), a NIC per GPU on one switch, with
// `runtime` added to the runtime map.
std::string h100_nodes(int nodes, const std::string& runtime) {
  return "name: t\nlink_classes:\n  nv: {technology: nvswitch3, links: 18}\n"
         "  net: {bandwidth_Bps: 50.0e+9, latency_s: 300.0e-9, alpha_s: 2.0e-6, transport: net}\n"
         "topology: {kind: star, link: net}\n"
         "nodes: {count: " + std::to_string(nodes) + ", gpus_per_node: 8, switch: nvswitch, gpu_link: nv, "
         "nics_per_node: 8, nic_link: net, reduction: nvls, reduction_Bps: 2.36e+12, reduction_latency_s: 0}\n"
         "gamma_s_per_byte: 8.96e-13\n"
         "runtime: {library: nccl, compute_capability: 9.0, host_cpu: intel" + runtime + "}\n";
}

ClusterConfig cluster(int nodes, const std::string& runtime) { return parse_cluster_config(h100_nodes(nodes, runtime), "t.yaml"); }

// `predict --algo nccl` on the flow engine as the command line asks it: the cluster's runtime,
// its environment and tuner plugin on.
std::vector<PredictionRecord> nccl_prediction(const ClusterConfig& c, std::vector<std::uint64_t> sizes) {
  PredictionRequest r = cluster_request(c);
  r.algorithms = {"nccl"};
  r.sizes = std::move(sizes);
  r.engine = EngineKind::flow;
  return predict(r);
}

}  // namespace

TEST_CASE("runtime.algo, proto and nvls_enable read as NCCL reads NCCL_ALGO, NCCL_PROTO, NCCL_NVLS_ENABLE") {
  const NcclEnvironment none = cluster(1, "").runtime_hardware.environment;
  CHECK(none.algorithms.empty());
  CHECK(none.protocols.empty());
  CHECK(none.allows_algorithm("nvls"));
  CHECK(none.allows_protocol("ll"));

  const NcclEnvironment set = cluster(1, ", algo: \"Ring,TREE\", proto: Simple, nvls_enable: false").runtime_hardware.environment;
  CHECK(set.algorithms == std::vector<std::string>{"tree", "ring"});  // NCCL's order, lower case
  CHECK(set.protocols == std::vector<std::string>{"simple"});
  CHECK(set.allows_algorithm("ring"));
  CHECK_FALSE(set.allows_algorithm("nvlstree"));
  CHECK_FALSE(set.allows_protocol("ll128"));

  // A leading '^': all but those. nvls_enable false takes NVLS out whatever algo lists.
  const NcclEnvironment except = cluster(1, ", algo: ^Tree, proto: ^ll128, nvls_enable: false").runtime_hardware.environment;
  CHECK(except.algorithms == std::vector<std::string>{"ring", "collnetdirect", "collnetchain", "nvls", "nvlstree", "pat"});
  CHECK(except.protocols == std::vector<std::string>{"ll", "simple"});
  CHECK_FALSE(except.allows_algorithm("nvls"));
  CHECK_FALSE(except.allows_algorithm("tree"));
}

TEST_CASE("A config's NCCL_ALGO or NCCL_PROTO that NCCL would not take is refused, naming what it takes") {
  REQUIRE_THAT(test::config_error(h100_nodes(1, ", algo: \"Ring,Trees\"")),
               Catch::Contains("'runtime.algo' names 'trees', which NCCL does not know; it takes tree, ring"));
  REQUIRE_THAT(test::config_error(h100_nodes(1, ", proto: LL256")),
               Catch::Contains("'runtime.proto' names 'll256'"));
  REQUIRE_THAT(test::config_error(h100_nodes(1, ", algo: \"allreduce:tree\"")),
               Catch::Contains("per-collective lists (\"allreduce:tree\") are not read"));
  REQUIRE_THAT(test::config_error(h100_nodes(1, ", proto: \"^LL,LL128,Simple\"")),
               Catch::Contains("'runtime.proto' leaves NCCL nothing to use"));
  REQUIRE_THAT(test::config_error(h100_nodes(1, ", algo: \"\"")), Catch::Contains("'runtime.algo' names ''"));
  REQUIRE_THAT(test::config_error(h100_nodes(1, ", nvls_enable: maybe")), Catch::Contains("runtime.nvls_enable"));
}

TEST_CASE("Algo nccl chooses among what the cluster's NCCL environment leaves") {
  const std::vector<std::uint64_t> sizes{8, 64 * MiB, 1 * GiB};
  // One node: unrestricted, NVLS wins the large sizes and LL the smallest.
  const std::vector<PredictionRecord> open = nccl_prediction(cluster(1, ""), sizes);
  REQUIRE(open.size() == 3);
  CHECK(open[0].protocol.name == "ll");
  CHECK(open[2].runs == "nvls");
  // NCCL_NVLS_ENABLE=0 and NCCL_PROTO=Simple: every size a ring or tree, with Simple, and no
  // faster than the unrestricted choice.
  const std::vector<PredictionRecord> closed =
      nccl_prediction(cluster(1, ", proto: Simple, nvls_enable: false"), sizes);
  REQUIRE(closed.size() == 3);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    CHECK((closed[i].runs == "ring" || closed[i].runs == "nccl-tree"));
    CHECK(closed[i].protocol.name == "simple");
    CHECK(closed[i].time_s >= open[i].time_s);
  }
  // NCCL_ALGO=Tree: the tree alone.
  for (const PredictionRecord& rec : nccl_prediction(cluster(2, ", algo: Tree"), sizes))
    CHECK(rec.runs == "nccl-tree");
}

TEST_CASE("The command line's --protocol overrides the config's NCCL_PROTO, and the environment bounds a tuner plugin") {
  ClusterConfig c = cluster(1, ", proto: Simple");
  PredictionRequest r = cluster_request(c);
  r.algorithms = {"nccl"};
  r.sizes = {4096};
  r.engine = EngineKind::flow;
  CHECK(predict(r).at(0).protocol.name == "simple");
  r.nccl_protocol = find_protocol("ll");
  CHECK(predict(r).at(0).protocol.name == "ll");

  // aws-ofi-nccl's p5 regions put 4 GiB on 16 nodes in NVLS-tree's; with NVLS off the next region
  // that holds the point wins (the ring's with Simple), as NCCL ignores disabled entries.
  const std::string tuner = ", tuner: aws-ofi-nccl-p5";
  CHECK(nccl_prediction(cluster(16, tuner), {4 * GiB}).at(0).runs == "nvls-tree");
  const PredictionRecord off = nccl_prediction(cluster(16, tuner + ", nvls_enable: false"), {4 * GiB}).at(0);
  CHECK(off.runs == "ring");
  CHECK(off.protocol.name == "simple");
}

TEST_CASE("An NCCL environment that leaves no algorithm able to run says so") {
  // NCCL_ALGO=NVLS on two nodes: NVLS reduces in one node's switches only.
  ClusterConfig c = cluster(2, ", algo: NVLS");
  PredictionRequest r = cluster_request(c);
  r.algorithms = {"nccl"};
  r.sizes = {MiB};
  r.engine = EngineKind::flow;
  REQUIRE_THROWS_WITH(predict(r), Catch::Contains("(runtime: algo, nvls_enable) leave NCCL nvls"));
  // NCCL_ALGO=NVLS on one node runs, but not with NCCL_PROTO=LL: NVLS takes Simple only.
  ClusterConfig one = cluster(1, ", algo: NVLS");
  PredictionRequest q = cluster_request(one);
  q.algorithms = {"nccl"};
  q.sizes = {MiB};
  q.engine = EngineKind::flow;
  CHECK(predict(q).at(0).runs == "nvls");
  q.nccl_protocol = find_protocol("ll");
  REQUIRE_THROWS_WITH(predict(q), Catch::Contains("NCCL_PROTO leaves ll only, which none of NCCL's algorithms"));
}

TEST_CASE("NCCL leaves LL128 off by default where a node's GPUs meet over PCIe or predate compute capability 7.0") {
  // NCCL's rule (tuning.cc, ncclTopoTuneModel): its graph's path between a node's GPUs no worse
  // than NVLink (PATH_NVB), GPUs of compute capability 7.0 or more.
  CHECK(nccl_ll128_by_default(RuntimeHardware{90, false}, Transport::nvlink));
  CHECK(nccl_ll128_by_default(RuntimeHardware{90, false}, Transport::net));  // one GPU a node
  CHECK_FALSE(nccl_ll128_by_default(RuntimeHardware{75, false}, Transport::pci));
  CHECK_FALSE(nccl_ll128_by_default(RuntimeHardware{60, false}, Transport::nvlink));
  CHECK(nccl_ll128_by_default(RuntimeHardware{}, Transport::nvlink));  // no GPU named: NVLink decides

  // Two RTX 2080 Ti on a PCIe switch (as configs/pcie3-2080ti-2.yaml): "nccl" and --protocol auto
  // choose among LL and Simple, at every size; NCCL_PROTO naming LL128 forces it back in, as
  // NCCL_PROTO does.
  const std::string pcie =
      "name: t\nlink_classes:\n  pcie3: {technology: pcie3, alpha_s: 14.76us}\n"
      "nodes: {count: 1, gpus_per_node: 2, switch: pcie, gpu_link: pcie3, backplane_Bps: 15.75e+9}\n"
      "gamma_s_per_byte: 4.87e-12\nruntime: {library: nccl, compute_capability: 7.5, host_cpu: intel";
  PredictionRequest r = cluster_request(parse_cluster_config(pcie + "}\n", "t.yaml"));
  r.collective = Collective::allgather;
  r.sizes = {64 << 10, 128 << 10, 256 << 10, 4 * MiB};
  r.engine = EngineKind::flow;
  CHECK(ll128_left_out(r));
  CHECK(protocol_names(nccl_protocols(r)) == "ll, simple");
  for (const std::vector<std::string>& algorithms : {std::vector<std::string>{"nccl"}, std::vector<std::string>{"ring"}}) {
    r.algorithms = algorithms;
    r.protocol = std::nullopt;
    for (const PredictionRecord& rec : predict(r)) CHECK(rec.protocol.name != "ll128");
  }
  PredictionRequest forced = cluster_request(parse_cluster_config(pcie + ", proto: \"LL128,Simple\"}\n", "t.yaml"));
  CHECK_FALSE(ll128_left_out(forced));
  CHECK(protocol_names(nccl_protocols(forced)) == "ll128, simple");
  // NVLink nodes keep it.
  CHECK_FALSE(ll128_left_out(cluster_request(cluster(1, ""))));
  CHECK(protocol_names(nccl_protocols(cluster_request(cluster(1, "")))) == "ll, ll128, simple");
}

TEST_CASE("Algo nccl keeps every run it compared, fastest first, the one it kept leading") {
  // One node of 8 H100s at 64 MiB: ring and NCCL's tree with LL, LL128 and Simple, NVLS with Simple.
  const PredictionRecord rec = nccl_prediction(cluster(1, ""), {64 * MiB}).at(0);
  REQUIRE(rec.candidates.size() == 7);
  CHECK(rec.candidates.front().runs == rec.runs);
  CHECK(rec.candidates.front().protocol == rec.protocol.name);
  CHECK(rec.candidates.front().time_s == rec.time_s);
  std::set<std::pair<std::string, std::string>> seen;
  for (std::size_t i = 0; i < rec.candidates.size(); ++i) {
    if (i > 0) CHECK(rec.candidates[i - 1].time_s <= rec.candidates[i].time_s);
    seen.emplace(rec.candidates[i].runs, rec.candidates[i].protocol);
  }
  CHECK(seen.size() == 7);
  CHECK(seen.count({"nvls", "simple"}) == 1);
  CHECK(seen.count({"nccl-tree", "ll128"}) == 1);
  // A tuner plugin's choice compares nothing: no candidates.
  CHECK(nccl_prediction(cluster(16, ", tuner: aws-ofi-nccl-p5"), {4 * GiB}).at(0).candidates.empty());
}

TEST_CASE("Algo nccl runs all-to-all with NCCL's point-to-point protocol: LL to 16 KiB a peer on one node, else Simple") {
  CHECK(nccl_p2p_protocol(kNcclP2pLLThreshold, false) == "ll");
  CHECK(nccl_p2p_protocol(kNcclP2pLLThreshold + 1, false) == "simple");
  CHECK(nccl_p2p_protocol(8, true) == "simple");  // no LL buffers over the network by default
  // 8 ranks: 128 KiB is 16 KiB a peer (LL), 256 KiB and 16 MiB more (Simple, never LL128, even
  // where the config's NCCL_PROTO names LL128 only); 2 nodes: Simple at every size.
  for (const std::string& runtime : {std::string(), std::string(", proto: LL128")}) {
    PredictionRequest r = cluster_request(cluster(1, runtime));
    r.collective = Collective::alltoall;
    r.algorithms = {"nccl"};
    r.sizes = {128 << 10, 256 << 10, 16 * MiB};
    const std::vector<PredictionRecord> one_node = predict(r);
    REQUIRE(one_node.size() == 3);
    CHECK(one_node[0].protocol.name == "ll");
    CHECK(one_node[1].protocol.name == "simple");
    CHECK(one_node[2].protocol.name == "simple");
    for (const PredictionRecord& rec : one_node) {
      CHECK(rec.runs == "linear");
      REQUIRE(rec.candidates.size() == 1);
    }
  }
  PredictionRequest r = cluster_request(cluster(2, ""));
  r.collective = Collective::alltoall;
  r.algorithms = {"nccl"};
  r.sizes = {8 << 10, 16 * MiB};
  for (const PredictionRecord& rec : predict(r)) CHECK(rec.protocol.name == "simple");
  // Four GPUs on one NVLink switch, written flat (no nodes: map): no network between them, so LL
  // to 16 KiB a peer as on a node.
  PredictionRequest flat = cluster_request(parse_cluster_config(
      "name: f\nlink_classes:\n  nv: {technology: nvswitch3, links: 18}\ntopology: {kind: star, endpoints: 4, "
      "link: nv}\ngamma_s_per_byte: 0\nruntime: {library: nccl, compute_capability: 9.0, host_cpu: intel}\n",
      "f.yaml"));
  flat.collective = Collective::alltoall;
  flat.algorithms = {"nccl"};
  flat.sizes = {64 << 10, 128 << 10};
  const std::vector<PredictionRecord> on_switch = predict(flat);
  REQUIRE(on_switch.size() == 2);
  CHECK(on_switch[0].protocol.name == "ll");
  CHECK(on_switch[1].protocol.name == "simple");
}
