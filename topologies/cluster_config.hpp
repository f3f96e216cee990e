// topologies/cluster_config.hpp — a cluster described in YAML (configs/*.yaml, documented
// field by field in configs/README.md). Two forms:
//   topology form: link classes, a fabric (ring, torus, star, full, fat-tree, xgft,
//                  al-fares, dragonfly), optional multi-GPU nodes, placement and routing;
//                  loading builds the Topology;
//   flat form:     `links: {inter_node, intra_node}` alpha/bandwidth, no graph (the
//                  seeds' alpha-beta model).
// Every error is one line "FILE:LINE:COLUMN: field: what was expected" (Error, exit 2).
// The files in configs/ are compiled in as presets (`--preset NAME`).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "collectives/cost_model.hpp"
#include "topologies/topology.hpp"

namespace collsim {

struct ClusterConfig {
  std::string name;
  std::string description;
  Rank ranks = 1;
  // Flat form: the model itself. Topology form: gamma and the node size only; the links'
  // alpha and beta are the topology's, costed by sim/cost_rule.hpp (whose
  // equivalent_cost_model gives the flat stand-in for closed forms and the lower bound).
  CostModel cost;
  std::shared_ptr<Topology> topology;  // null in the flat form (predict may re-place its ranks)
  std::vector<std::uint64_t> bytes;          // sizes to predict when the command line names none
  // A calibrated config's `calibration:` field (topology form): false when its fit is not
  // to be trusted, with the reasons.
  bool calibration_reliable = true;
  std::vector<std::string> calibration_reasons;
};

ClusterConfig parse_cluster_config(const std::string& yaml_text, const std::string& origin);
ClusterConfig load_cluster_config(const std::filesystem::path& path);

// The topology kinds a config may name (`topology: {kind: ...}`), from the builders' table.
struct TopologyKindHelp {
  std::string name, help;
  std::vector<std::string> keys;
};
std::vector<TopologyKindHelp> topology_kinds();

// The configs/ files compiled into the binary, by name (file name without .yaml).
std::vector<std::string> preset_names();
ClusterConfig load_preset(const std::string& name);  // throws Error listing the presets
std::string preset_yaml(const std::string& name);    // its YAML text, as in configs/
// configs/baidu-40gpu.yaml: seed 000's 40 GPUs, the cluster `make run` predicts for.
ClusterConfig default_cluster_config();

}  // namespace collsim
