// topologies/cluster_config.cpp — YAML cluster files via yaml-cpp.
#include "topologies/cluster_config.hpp"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "collectives/error.hpp"
#include "collectives/units.hpp"

namespace collsim {

extern const char* const kEmbeddedDefaultCluster;  // generated from configs/baidu-40gpu.yaml

namespace {

class Reader {
 public:
  explicit Reader(std::string origin) : origin_(std::move(origin)) {}

  [[noreturn]] void fail(const std::string& what) const { throw Error(fmt::format("{}: {}", origin_, what)); }

  void only_keys(const YAML::Node& node, const std::string& where, const std::set<std::string>& allowed) const {
    if (!node.IsMap()) fail(fmt::format("'{}' must be a mapping", where));
    for (const auto& kv : node) {
      const std::string key = kv.first.as<std::string>();
      if (!allowed.count(key)) fail(fmt::format("unknown key '{}' in '{}'", key, where));
    }
  }

  const YAML::Node require(const YAML::Node& node, const std::string& key) const {
    const YAML::Node v = node[key];
    if (!v) fail(fmt::format("missing key '{}'", key));
    return v;
  }

  double positive(const YAML::Node& node, const std::string& key, bool zero_ok) const {
    double v = 0;
    try {
      v = require(node, key).as<double>();
    } catch (const YAML::Exception&) {
      fail(fmt::format("'{}' must be a number", key));
    }
    if (!std::isfinite(v) || v < 0 || (!zero_ok && v == 0))
      fail(fmt::format("'{}' must be {} (got {})", key, zero_ok ? ">= 0" : "> 0", v));
    return v;
  }

  Rank count(const YAML::Node& node, const std::string& key, bool zero_ok) const {
    const double v = positive(node, key, zero_ok);
    if (v != std::floor(v) || v > 4.0e9) fail(fmt::format("'{}' must be a whole number (got {})", key, v));
    return static_cast<Rank>(v);
  }

  LinkCost link(const YAML::Node& node, const std::string& where) const {
    only_keys(node, where, {"alpha_s", "bandwidth_Bps"});
    return {positive(node, "alpha_s", true), 1.0 / positive(node, "bandwidth_Bps", false)};
  }

 private:
  std::string origin_;
};

}  // namespace

ClusterConfig parse_cluster_config(const std::string& yaml_text, const std::string& origin) {
  const Reader in(origin);
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    in.fail(fmt::format("not valid YAML: {}", e.msg));
  }
  in.only_keys(root, "cluster", {"name", "description", "ranks", "ranks_per_node", "links", "gamma_s_per_byte", "bytes"});
  ClusterConfig c;
  c.name = in.require(root, "name").as<std::string>();
  if (root["description"]) c.description = root["description"].as<std::string>();
  c.ranks = in.count(root, "ranks", false);
  c.cost.ranks_per_node = root["ranks_per_node"] ? in.count(root, "ranks_per_node", false) : 0;
  if (c.cost.ranks_per_node > 0 && c.ranks % c.cost.ranks_per_node != 0)
    in.fail(fmt::format("{} ranks are not a whole number of nodes of {}", c.ranks, c.cost.ranks_per_node));
  const YAML::Node links = in.require(root, "links");
  in.only_keys(links, "links", {"inter_node", "intra_node"});
  c.cost.inter_node = in.link(in.require(links, "inter_node"), "links.inter_node");
  c.cost.intra_node = links["intra_node"] ? in.link(links["intra_node"], "links.intra_node") : c.cost.inter_node;
  c.cost.gamma_s_per_byte = in.positive(root, "gamma_s_per_byte", true);
  if (root["bytes"]) {
    if (!root["bytes"].IsSequence()) in.fail("'bytes' must be a list of sizes");
    for (const auto& item : root["bytes"]) {
      try {
        c.bytes.push_back(parse_size(item.as<std::string>()));
      } catch (const Error& e) {
        in.fail(e.what());
      }
    }
  }
  return c;
}

ClusterConfig load_cluster_config(const std::filesystem::path& path) {
  std::ifstream file(path);
  if (!file) throw Error(fmt::format("cannot read cluster config '{}'", path.string()));
  std::stringstream text;
  text << file.rdbuf();
  return parse_cluster_config(text.str(), path.string());
}

ClusterConfig default_cluster_config() { return parse_cluster_config(kEmbeddedDefaultCluster, "embedded baidu-40gpu"); }

}  // namespace collsim
