// tests/topologies/test_cluster_config.cpp — YAML clusters load with every number in its
// unit, and bad files fail with one line naming the key.
#include <catch2/catch.hpp>

#include "collectives/error.hpp"
#include "topologies/cluster_config.hpp"

using namespace collsim;

TEST_CASE("the embedded default cluster is seed 000's 40 GPUs at about 6 GB/s between nodes") {
  const ClusterConfig c = default_cluster_config();
  REQUIRE(c.name == "baidu-40gpu");
  REQUIRE(c.ranks == 40);
  REQUIRE(c.cost.ranks_per_node == 8);
  REQUIRE(1.0 / c.cost.inter_node.beta_s_per_byte == Approx(6e9));
  REQUIRE(std::find(c.bytes.begin(), c.bytes.end(), 1200000000ull) != c.bytes.end());
}

TEST_CASE("the checked-in config file and the embedded copy agree") {
  const ClusterConfig file = load_cluster_config(COLLSIM_CONFIGS_DIR "/baidu-40gpu.yaml");
  const ClusterConfig embedded = default_cluster_config();
  REQUIRE(file.ranks == embedded.ranks);
  REQUIRE(file.cost.inter_node == embedded.cost.inter_node);
  REQUIRE(file.bytes == embedded.bytes);
}

TEST_CASE("bad cluster files are rejected with a message naming the problem") {
  const std::string base = "name: x\nranks: 8\nlinks:\n  inter_node: {alpha_s: 1e-6, bandwidth_Bps: 1e9}\ngamma_s_per_byte: 0\n";
  REQUIRE_NOTHROW(parse_cluster_config(base, "t.yaml"));
  struct Bad {
    std::string yaml, needle;
  } cases[] = {
      {"name: x\n", "missing key 'ranks'"},
      {base + "colour: red\n", "unknown key 'colour'"},
      {"name: x\nranks: 0\nlinks:\n  inter_node: {alpha_s: 1e-6, bandwidth_Bps: 1e9}\ngamma_s_per_byte: 0\n", "'ranks' must be > 0"},
      {"name: x\nranks: 8\nlinks:\n  inter_node: {alpha_s: 1e-6, bandwidth_Bps: -5}\ngamma_s_per_byte: 0\n", "bandwidth_Bps"},
      {"name: x\nranks: eight\nlinks:\n  inter_node: {alpha_s: 1e-6, bandwidth_Bps: 1e9}\ngamma_s_per_byte: 0\n", "'ranks' must be a number"},
      {base + "ranks_per_node: 3\n", "not a whole number of nodes"},
      {base + "bytes: [1K, -4]\n", "negative"},
      {"name: [unclosed\n", "not valid YAML"},
  };
  for (const Bad& b : cases) {
    INFO(b.yaml);
    try {
      parse_cluster_config(b.yaml, "t.yaml");
      FAIL("accepted a bad config");
    } catch (const Error& e) {
      const std::string msg = e.what();
      REQUIRE(msg.find(b.needle) != std::string::npos);
      REQUIRE(msg.find("t.yaml") != std::string::npos);
      REQUIRE(msg.find('\n') == std::string::npos);
    }
  }
}
