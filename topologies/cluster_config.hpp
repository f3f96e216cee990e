// topologies/cluster_config.hpp — a cluster described in YAML (configs/*.yaml): how many
// ranks, how they are grouped into nodes, and the alpha/bandwidth of the links inside and
// between nodes, every number with its source in a comment. The loader rejects unknown
// keys, missing keys and impossible values with one line naming the key and the file.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "collectives/cost_model.hpp"

namespace collsim {

struct ClusterConfig {
  std::string name;
  std::string description;
  Rank ranks = 1;
  CostModel cost;
  std::vector<std::uint64_t> bytes;  // sizes to predict when the command line names none
};

ClusterConfig parse_cluster_config(const std::string& yaml_text, const std::string& origin);
ClusterConfig load_cluster_config(const std::filesystem::path& path);
// configs/baidu-40gpu.yaml, compiled into the binary.
ClusterConfig default_cluster_config();

}  // namespace collsim
