// tests/topologies/test_cluster_config.cpp — YAML clusters load into topologies with every
// number in its unit; bad files fail with one line naming file, line, column and field.
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/support/route_check.hpp"
#include "base/error.hpp"
#include "base/file_io.hpp"
#include "tests/support/test_cluster.hpp"
#include "tests/topologies/built_fabric.hpp"
#include "topologies/analysis.hpp"
#include "topologies/cluster_config.hpp"
#include "topologies/flat_network.hpp"

using namespace collsim;

namespace {

const std::string kStar = R"(name: t
link_classes:
  eth: {bandwidth_Bps: 1.0e9, latency_s: 1.0e-6, alpha_s: 5.0e-6}
topology: {kind: star, endpoints: 8, link: eth}
gamma_s_per_byte: 0
)";

std::string error_of(const std::string& yaml) { return test::config_error(yaml); }

}  // namespace

TEST_CASE("the embedded default cluster is seed 000's 40 GPUs at about 6 GB/s between nodes") {
  const ClusterConfig c = default_cluster_config();
  REQUIRE(c.name == "baidu-40gpu");
  REQUIRE(c.ranks == 40);
  REQUIRE(c.topology != nullptr);
  REQUIRE(c.topology->endpoints_per_node == 8);
  REQUIRE(c.cost.ranks_per_node == 8);
  std::vector<LinkId> inter, intra;
  c.topology->route(0, 8, 0, inter);
  c.topology->route(0, 1, 0, intra);
  REQUIRE(slowest_link_Bps(c.topology->network, inter) == Approx(6e9));
  REQUIRE(slowest_link_Bps(c.topology->network, intra) == Approx(10e9));
  REQUIRE(std::find(c.bytes.begin(), c.bytes.end(), 1200000000ull) != c.bytes.end());
}

TEST_CASE("every file in configs/ loads, is a preset, and routes between its first and last rank") {
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(COLLSIM_CONFIGS_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    INFO(entry.path().string());
    const ClusterConfig c = load_cluster_config(entry.path());
    REQUIRE(c.name == entry.path().stem().string());
    REQUIRE(c.ranks >= 1);
    REQUIRE(c.cost.gamma_s_per_byte >= 0);
    const ClusterConfig preset = load_preset(c.name);
    REQUIRE(preset.ranks == c.ranks);
    if (!c.topology) continue;
    const Topology& t = *c.topology;
    std::vector<LinkId> route;
    t.route(0, c.ranks - 1, 0, route);
    REQUIRE(is_path(t.network, route, t.vertex_of(0), t.vertex_of(c.ranks - 1)));
  }
  REQUIRE(files >= 9);
  REQUIRE(preset_names().size() == files);
}

TEST_CASE("a star with one link class routes through its switch on links of the class") {
  const ClusterConfig c = parse_cluster_config(kStar, "t.yaml");
  REQUIRE(c.ranks == 8);
  std::vector<LinkId> route;
  c.topology->route(2, 5, 0, route);
  REQUIRE(route.size() == 2);
  for (LinkId l : route) {
    REQUIRE(c.topology->network.link(l).bandwidth_Bps == Approx(1e9));
    REQUIRE(c.topology->network.link(l).latency_s == Approx(1e-6));
  }
  // The facts callers read as data: a built fabric shares its links; each rank's port is its
  // one cable to the switch; an in-network algorithm is told which key marks a switch to reduce.
  CHECK(c.topology->shares_links);
  REQUIRE(c.topology->port_Bps.size() == 8);
  for (double port : c.topology->port_Bps) CHECK(port == Approx(1e9));
  CHECK_THROWS_WITH(c.topology->require_reducers("nvls", true, false),
                    Catch::StartsWith("nvls reduces in the switch, but this cluster's node switches do not reduce"));
  CHECK_THROWS_WITH(c.topology->require_reducers("collnet", false, true),
                    Catch::Contains("InfiniBand SHARP needs 'reduction: sharp'"));
  CHECK_NOTHROW(require_graph(*c.topology, "refused"));
}

TEST_CASE("predict's --alpha and the like edit a flat network's classes and are refused on a built fabric") {
  ClusterConfig built = parse_cluster_config(kStar, "t.yaml");
  CHECK_THROWS_WITH(built.place(0, std::nullopt, LinkEdits{.alpha_s = 1e-6}),
                    "--alpha/--beta/--bandwidth/--ranks-per-node describe a flat network; t has a topology (edit its "
                    "link_classes and nodes instead)");
  CHECK_NOTHROW(built.place(4));
  ClusterConfig flat = flat_cluster("f", CostModel::uniform(1e-6, 1e-9, 0), 8);
  flat.place(0, std::nullopt, LinkEdits{.beta_s_per_byte = 1e-10, .ranks_per_node = 4});
  REQUIRE(flat.topology->flat);
  CHECK(flat.topology->flat->inter_node.beta_s_per_byte == 1e-10);
  CHECK(flat.topology->endpoints_per_node == 4);
  CHECK(flat.topology->node_of(4) == 1);
}

TEST_CASE("placement, routing and ranks are read from the file") {
  const ClusterConfig c = parse_cluster_config(
      kStar + "ranks: 4\nplacement: {kind: explicit, endpoints: [7, 0, 3, 1]}\nrouting: {kind: shortest-path}\n", "t.yaml");
  REQUIRE(c.ranks == 4);
  REQUIRE(c.topology->routing == RoutingMode::shortest_path);
  REQUIRE(c.topology->rank_endpoint == std::vector<std::uint32_t>{7, 0, 3, 1});
  const ClusterConfig r = parse_cluster_config(kStar + "placement: {kind: random, seed: 3}\n", "t.yaml");
  REQUIRE(r.topology->placement.seed == 3);
  REQUIRE(describe(r.topology->placement) == "random (seed 3)");
}

TEST_CASE("the flat form loads as a generated network whose routes cross one cable of their class each way") {
  ClusterConfig c = parse_cluster_config(
      "name: x\nranks: 8\nranks_per_node: 4\nlinks:\n  inter_node: {alpha_s: 1e-6, bandwidth_Bps: 1e9}\n"
      "  intra_node: {alpha_s: 1e-7, bandwidth_Bps: 1e10}\ngamma_s_per_byte: 0\n",
      "t.yaml");
  REQUIRE(c.cost.ranks_per_node == 4);
  REQUIRE(c.cost.intra_node.beta_s_per_byte == Approx(1e-10));
  const Topology& t = *c.topology;
  REQUIRE(t.flat);
  REQUIRE(t.flat->intra_node == c.cost.intra_node);
  // What callers read instead of testing `flat`: a contention-free what-if, no switch that
  // reduces, and each rank's port its two cables, as the graph's own count gives them.
  CHECK_FALSE(t.shares_links);
  CHECK_THROWS_WITH(t.require_reducers("nvls", true, false), flat_network_has_no_switch("nvls"));
  CHECK_THROWS_WITH(t.require_reducers("collnet", false, true), flat_network_has_no_switch("collnet"));
  const std::vector<double> from_classes = t.port_Bps;
  REQUIRE(from_classes.size() == 8);
  for (double port : from_classes) CHECK(port == Approx(1.1e10));
  c.topology->count_ports();
  CHECK(t.port_Bps == from_classes);
  REQUIRE(t.ranks() == 8);
  REQUIRE(t.endpoints_per_node == 4);
  REQUIRE(t.node_of(3) == 0);
  REQUIRE(t.node_of(4) == 1);
  // Ranks 1 and 2 share node 0: up and down their node switch's intra_node cables; ranks 1 and
  // 5 do not: through the top switch on inter_node cables.
  for (const auto& [dst, alpha, bandwidth] : {std::tuple{2u, 1e-7, 1e10}, std::tuple{5u, 1e-6, 1e9}}) {
    std::vector<LinkId> route;
    t.route(1, dst, 0, route);
    REQUIRE(route.size() == 2);
    for (LinkId l : route) {
      const LinkClass& cls = t.network.link_class(t.network.link(l).link_class);
      REQUIRE(cls.alpha_s == alpha);
      REQUIRE(cls.bandwidth_Bps == Approx(bandwidth).epsilon(1e-15));
    }
    REQUIRE(t.network.link(route[0]).from == t.vertex_of(1));
    REQUIRE(t.network.link(route[1]).to == t.vertex_of(dst));
  }
  // Placed again for 12 ranks it is generated again: three nodes.
  c.place(12);
  REQUIRE(c.ranks == 12);
  REQUIRE(c.topology->ranks() == 12);
  REQUIRE(c.topology->node_of(11) == 2);
  REQUIRE_THROWS_WITH(c.place(10), Catch::Contains("10 ranks are not a whole number of nodes of 4"));
  REQUIRE_THROWS_WITH(c.place(8, Placement{Placement::Kind::random, 1, {}}),
                      Catch::Contains("needs a cluster with a topology; x is a flat network"));
}

TEST_CASE("bad cluster files fail with FILE:LINE:COLUMN and the field at fault") {
  struct Bad {
    std::string yaml, needle;
  } cases[] = {
      {"name: x\n", "missing key 'link_classes'"},
      {kStar + "colour: red\n", "t.yaml:6:1: unknown key 'colour'"},
      {"name: t\nlink_classes:\n  eth: {bandwidth_Bps: -5}\ntopology: {kind: star, endpoints: 8, link: eth}\n"
       "gamma_s_per_byte: 0\n",
       "t.yaml:3:24: 'link_classes.eth.bandwidth_Bps' must be > 0"},
      {"name: t\nlink_classes:\n  eth: {bandwidth_Bps: fast}\n", "'link_classes.eth.bandwidth_Bps': 'fast' is not a rate"},
      {"name: t\nlink_classes:\n  eth: {bandwidth_Bps: 1e9}\ntopology: {kind: star, endpoints: 8, link: ib}\n"
       "gamma_s_per_byte: 0\n",
       "unknown link class 'ib' (defined: eth)"},
      {"name: t\nlink_classes:\n  eth: {bandwidth_Bps: 1e9}\ntopology: {kind: hypercube, link: eth}\n",
       "unknown topology kind 'hypercube'"},
      {"name: t\nlink_classes:\n  e: {bandwidth_Bps: 1e9}\ntopology:\n  kind: dragonfly\n  p: 2\n  a: 4\n  h: 2\n  g: 40\n"
       "  terminal_link: e\n  local_link: e\n  global_link: e\ngamma_s_per_byte: 0\n",
       "t.yaml:5:3: "},
      {kStar + "ranks: 9\n", "t.yaml:6:8: 'ranks' is 9 but the network has only 8 endpoints"},
      {kStar + "placement: diagonal\n", "unknown placement 'diagonal'"},
      {kStar + "placement: {kind: explicit, endpoints: [1, 1, 2, 3, 4, 5, 6, 7]}\n", "listed twice"},
      {kStar + "routing: valiant\n", "valiant"},
      {kStar + "bytes: [1K, -4]\n", "negative"},
      {kStar + "links:\n  inter_node: {alpha_s: 0, bandwidth_Bps: 1}\n", "cannot be mixed"},
      {"name: t\nlink_classes:\n  e: {bandwidth_Bps: 1e9}\nnodes: {count: 2, gpus_per_node: 8, gpu_link: e, nic_link: e, "
       "nics_per_node: 3}\ntopology: {kind: star, link: e}\ngamma_s_per_byte: 0\n",
       "t.yaml:4:8: "},
      {"name: t\nlink_classes:\n  e: {bandwidth_Bps: 1e9}\nnodes: {count: 2, gpus_per_node: 8, gpu_link: e, nic_link: e}\n"
       "gamma_s_per_byte: 0\n",
       "missing key 'topology'"},
      {"name: [unclosed\n", "not valid YAML"},
  };
  for (const Bad& b : cases) {
    INFO(b.yaml);
    const std::string msg = error_of(b.yaml);
    INFO(msg);
    REQUIRE(msg.find(b.needle) != std::string::npos);
    REQUIRE(msg.rfind("t.yaml", 0) == 0);
    REQUIRE(msg.find('\n') == std::string::npos);
  }
}

TEST_CASE("dgx1-v100: six NVLink 2 links per GPU, and consecutive ranks (NCCL's ring) joined by two") {
  for (const std::string name : {"dgx1-v100", "dgx1-v100-16"}) {
    INFO(name);
    const ClusterConfig c = load_preset(name);
    const Topology& t = *c.topology;
    const double one_nvlink_Bps = t.network.link_class(t.network.find_link_class("nvlink2")).bandwidth_Bps;
    REQUIRE(one_nvlink_Bps == Approx(25e9));
    for (Rank r = 0; r < 8; ++r) {
      INFO("rank " << r);
      double nvlink_out_Bps = 0;
      for (Rank peer = 0; peer < 8; ++peer) {
        if (peer == r) continue;
        std::vector<LinkId> route;
        t.route(r, peer, 0, route);
        if (route.size() == 1) nvlink_out_Bps += t.network.link(route[0]).bandwidth_Bps;
      }
      CHECK(nvlink_out_Bps == Approx(6 * one_nvlink_Bps));
      std::vector<LinkId> to_next;
      t.route(r, (r + 1) % 8, 0, to_next);
      REQUIRE(to_next.size() == 1);
      CHECK(t.network.link(to_next[0]).bandwidth_Bps == Approx(2 * one_nvlink_Bps));
    }
  }
}

TEST_CASE("rates and times may carry units, a preset written with them equals the preset in plain numbers") {
  std::string text = read_text_file(std::filesystem::path(COLLSIM_CONFIGS_DIR) / "baidu-40gpu.yaml", "config", 1 << 20);
  const auto replace_all = [&](const std::string& from, const std::string& to) {
    std::size_t replaced = 0;
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()), ++replaced)
      text.replace(at, from.size(), to);
    REQUIRE(replaced > 0);
  };
  replace_all("bandwidth_Bps: 10.0e+9", "bandwidth_Bps: 80Gbps");
  replace_all("bandwidth_Bps: 12.0e+9", "bandwidth_Bps: 12GB/s");
  replace_all("bandwidth_Bps: 6.0e+9", "bandwidth_Bps: 48 Gb/s");
  replace_all("alpha_s: 1.2e-6", "alpha_s: 1.2us");
  replace_all("latency_s: 0.0", "latency_s: 0ns");
  const ClusterConfig with_units = parse_cluster_config(text, "units.yaml");
  const ClusterConfig plain = load_preset("baidu-40gpu");
  const auto& a = with_units.topology->network.link_classes();
  const auto& b = plain.topology->network.link_classes();
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO(b[i].name);
    CHECK(a[i].name == b[i].name);
    CHECK(a[i].bandwidth_Bps == Approx(b[i].bandwidth_Bps).epsilon(1e-15));
    CHECK(a[i].alpha_s == Approx(b[i].alpha_s).epsilon(1e-15));
    CHECK(a[i].latency_s == b[i].latency_s);
  }
  CHECK(with_units.topology->network.link_count() == plain.topology->network.link_count());
}

TEST_CASE("a rate or time in a wrong unit is one line naming the file, the field and the accepted forms") {
  const auto star_with = [](const std::string& link) {
    return "name: t\nlink_classes:\n  eth: " + link + "\ntopology: {kind: star, endpoints: 8, link: eth}\n"
           "gamma_s_per_byte: 0\n";
  };
  struct Bad {
    std::string yaml, needle;
  } cases[] = {
      {star_with("{bandwidth_Bps: 50GB}"), "t.yaml:3:24: 'link_classes.eth.bandwidth_Bps': '50GB' is not a rate"},
      {star_with("{bandwidth_Bps: fastGbps}"), "'link_classes.eth.bandwidth_Bps': 'fastGbps' is not a rate"},
      {star_with("{bandwidth_Bps: 2us}"), "'2us' is not a rate"},
      {star_with("{bandwidth_Bps: 1GB/s, alpha_s: 2 parsecs}"), "'link_classes.eth.alpha_s': '2 parsecs' is not a time"},
      {star_with("{bandwidth_Bps: 1GB/s, latency_s: 100Gbps}"), "'link_classes.eth.latency_s': '100Gbps' is not a time"},
      {star_with("{bandwidth_Bps: 1GB/s, alpha_s: 2s}"), "'link_classes.eth.alpha_s': expected seconds in 0..1, got 2"},
  };
  for (const Bad& b : cases) {
    INFO(b.yaml);
    const std::string msg = error_of(b.yaml);
    INFO(msg);
    REQUIRE(msg.find(b.needle) != std::string::npos);
    REQUIRE(msg.rfind("t.yaml:", 0) == 0);
    REQUIRE(msg.find('\n') == std::string::npos);
  }
  REQUIRE(error_of(star_with("{bandwidth_Bps: 1GB/s, alpha_s: 2us, latency_s: 100ns}")) == "accepted");
  REQUIRE(error_of(star_with("{bandwidth_Bps: 50GB}")).find("400Gbps") != std::string::npos);
  REQUIRE(error_of(star_with("{bandwidth_Bps: 1GB/s, alpha_s: 2 parsecs}")).find("100ns") != std::string::npos);
}

TEST_CASE("a missing file and an unknown preset are errors that name them") {
  REQUIRE_THROWS_WITH(load_cluster_config("/nonexistent/x.yaml"), Catch::Contains("/nonexistent/x.yaml"));
  REQUIRE_THROWS_WITH(load_preset("nope"), Catch::Contains("unknown preset 'nope'") && Catch::Contains("baidu-40gpu"));
}

TEST_CASE("a dragonfly's multi-NIC nodes are node-major unless the config says rail_optimized, where a fat-tree's rails stay the default") {
  auto config = [](const std::string& fabric, const std::string& rails) {
    return "name: t\nlink_classes:\n  nv: {bandwidth_Bps: 3.0e11}\n  net: {bandwidth_Bps: 5.0e10, alpha_s: 2.0e-6}\n"
           "nodes: {count: 8, gpus_per_node: 4, switch: nvswitch, gpu_link: nv, nics_per_node: 4, nic_link: net" +
           rails + "}\ntopology: " + fabric + "\ngamma_s_per_byte: 0\n";
  };
  const std::string dragonfly = "{kind: dragonfly, p: 2, a: 4, h: 2, g: 4, terminal_link: net, local_link: net, global_link: net}";
  const std::string fat_tree = "{kind: fat-tree, k: 4, n: 3, link: net}";
  auto summary = [](const std::string& yaml) { return parse_cluster_config(yaml, "t.yaml").topology->fabric_summary; };
  CHECK_THAT(summary(config(dragonfly, "")), Catch::Contains("node-major"));
  CHECK_THAT(summary(config(dragonfly, ", rail_optimized: true")), Catch::Contains("rail-optimized"));
  CHECK_THAT(summary(config(fat_tree, "")), Catch::Contains("rail-optimized"));
  CHECK_THAT(summary(config(fat_tree, ", rail_optimized: false")), Catch::Contains("node-major"));
}
