// topologies/cluster_config.hpp — a cluster described in YAML (configs/*.yaml, documented
// field by field in configs/README.md). Two forms:
//   topology form: link classes, a fabric (ring, torus, star, full, fat-tree, xgft,
//                  al-fares, dragonfly), optional multi-GPU nodes, placement and routing;
//                  loading builds the Topology;
//   flat form:     `links: {inter_node, intra_node}` alpha/bandwidth (the seeds'
//                  alpha-beta model); loading generates its Topology (flat_network.hpp).
// Every error is one line "FILE:LINE:COLUMN: field: what was expected" (Error, exit 2).
// The files in configs/ are compiled in as presets (`--preset NAME`).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collectives/cost_model.hpp"
#include "topologies/topology.hpp"

namespace collsim {

// The collective library whose runtime drives the links (sim/runtime.hpp): none (the links
// alone: CPU MPI clusters, teaching what-ifs) or NCCL (`runtime: nccl`, GPU clusters).
enum class CollectiveRuntime : std::uint8_t { none, nccl };

// A tuner plugin that makes NCCL's choice of algorithm and protocol in place of NCCL's own model
// (the `runtime:` map's `tuner:`; sim/tuner_plugin.hpp): none, or aws-ofi-nccl's region tuner
// on AWS p5/p5e instances (`tuner: aws-ofi-nccl-p5`).
enum class TunerPlugin : std::uint8_t { none, aws_ofi_nccl_p5 };

// What the runtime's rate caps depend on (sim/runtime.hpp), from the config's `runtime:` map:
// the GPUs' CUDA compute capability (NCCL picks its per-channel bandwidth tables by it) and
// whether the hosts are AMD (NCCL's LL bandwidth across nodes has a row for AMD hosts and one
// for all others). compute_capability 0: not given (`runtime: nccl` alone), no rate caps.
// Buffer and chunk sizes a cluster's runs set in NCCL's environment (the `runtime:` map's
// buffsize, nvls_chunksize, nvlstree_max_chunksize: NCCL_BUFFSIZE, NCCL_NVLS_CHUNKSIZE,
// NCCL_NVLSTREE_MAX_CHUNKSIZE), which set its pipelines' chunks (sim/runtime.hpp); 0: NCCL's
// default (4 MiB; 128 KiB; the NVLS chunk, or 64 KiB on 4 nodes or more).
// Which algorithms and protocols NCCL may choose (the `runtime:` map's algo, proto and
// nvls_enable: NCCL_ALGO, NCCL_PROTO and NCCL_NVLS_ENABLE), by NCCL's own names in lower case
// (src/init.cc ncclAlgoStr, ncclProtoStr): tree, ring, collnetdirect, collnetchain, nvls,
// nvlstree, pat; ll, ll128, simple. An empty list allows all; nvls_enable false takes nvls and
// nvlstree out whatever algo says.
struct NcclEnvironment {
  std::uint64_t buffsize = 0;
  std::uint64_t nvls_chunksize = 0;
  std::uint64_t nvlstree_max_chunksize = 0;
  std::vector<std::string> algorithms;
  std::vector<std::string> protocols;
  bool nvls_enabled = true;

  bool allows_algorithm(std::string_view nccl_name) const;
  bool allows_protocol(std::string_view nccl_name) const;
};

// The NCCL variables `env` sets, as (NAME, value) in a fixed order (NCCL_BUFFSIZE, NCCL_NVLS_CHUNKSIZE,
// NCCL_NVLSTREE_MAX_CHUNKSIZE, NCCL_ALGO, NCCL_PROTO, NCCL_NVLS_ENABLE); none for NCCL's defaults.
std::vector<std::pair<std::string, std::string>> nccl_environment_settings(const NcclEnvironment& env);

// NCCL's algorithm and protocol names, as NCCL_ALGO and NCCL_PROTO take them (lower case).
inline constexpr std::string_view kNcclAlgorithmNames[] = {"tree", "ring",     "collnetdirect", "collnetchain",
                                                           "nvls", "nvlstree", "pat"};
inline constexpr std::string_view kNcclProtocolNames[] = {"ll", "ll128", "simple"};

struct RuntimeHardware {
  std::uint32_t compute_capability = 0;  // major x 10 + minor: 90 for an H100
  bool amd_hosts = false;
  NcclEnvironment environment;  // what the runs set; the GPUs' constants take none of it
  // The network's latency as its NCCL net plugin reports it (ncclNetProperties_t::latency, the
  // runtime: map's net_latency_s): NCCL's model adds it to its NET figure on every step across
  // nodes, twice for Simple (tuning.cc). 0: NCCL's own transports (InfiniBand, sockets) report
  // none.
  double net_latency_s = 0;
  // A device-to-device copy's payload rate on one GPU (runtime.device_copy_Bps: a copy
  // microbenchmark's), what NCCL's one-rank collective moves at (sim/runtime.hpp,
  // nccl_one_rank_s). 0: the memory's datasheet rate (device_copy_Bps there).
  double device_copy_Bps = 0;
};

// A host that issues the schedule's transfers one by one (a calibrated config's `host_issue:`,
// written by `collsim calibrate --backend cuda`): collsim's cuda backend drives its virtual
// ranks from one host thread, which issues every transfer in the schedule's order, each taking
// per_transfer_s of its time, so no transfer starts before its issue; after the last, the
// host's synchronization of the P ranks' streams returns sync_s + P x sync_per_stream_s after
// the GPU's work ends. All 0: the ranks drive their own transfers (every other cluster).
struct HostIssue {
  double per_transfer_s = 0;
  double sync_s = 0;
  double sync_per_stream_s = 0;
  double sync_of(Rank ranks) const { return sync_s + double(ranks) * sync_per_stream_s; }
  bool any() const { return per_transfer_s > 0 || sync_s > 0 || sync_per_stream_s > 0; }
};

// Edits of a flat network's classes and node size (predict's --alpha, --beta/--bandwidth and
// --ranks-per-node): below 0 (a node size of 0) leaves one as it is.
struct LinkEdits {
  double alpha_s = -1;
  double beta_s_per_byte = -1;
  Rank ranks_per_node = 0;

  bool any() const { return alpha_s >= 0 || beta_s_per_byte >= 0 || ranks_per_node > 0; }
  void apply(CostModel& cost) const;  // both classes alike
};

struct ClusterConfig {
  std::string name;
  std::string description;
  Rank ranks = 1;
  // gamma and the node size; in the flat form also its two link classes (which its topology
  // was generated from). The topology form's links are its topology's, costed by
  // sim/cost_rule.hpp (sim/pair_pricing.hpp's equivalent_cost_model gives the flat stand-in
  // for closed forms and the lower bound).
  CostModel cost;
  // Where the ranks sit: a built fabric, or the flat form's generated network. Shared by the
  // config's copies (place() moves their ranks alike).
  std::shared_ptr<Topology> topology;
  std::vector<std::uint64_t> bytes;          // sizes to predict when the command line names none
  CollectiveRuntime runtime = CollectiveRuntime::none;
  RuntimeHardware runtime_hardware;  // with runtime nccl in its map form
  // The `runtime:` map's collnet_enable: whether NCCL may run CollNet where the fabric reduces.
  // NCCL 2.30 runs it only with NCCL_COLLNET_ENABLE=1 or ncclConfig_t.collnetEnable = 1 (src/init.cc:
  // any other value is set to 0), so false by default and with `runtime: nccl` alone.
  bool collnet_enabled = false;
  // The `runtime:` map's tuner: the plugin that chooses NCCL's algorithm and protocol, if any.
  TunerPlugin tuner = TunerPlugin::none;
  // A calibrated config's `calibration:` field (topology form): false when its fit is not
  // to be trusted, with the reasons.
  bool calibration_reliable = true;
  std::vector<std::string> calibration_reasons;
  HostIssue host_issue;

  // Places `ranks` ranks (0: as many as now) by `placement` (none: the cluster's own), as
  // predict's --ranks and --placement, the Python module and validate --measured ask: on a
  // built fabric the ranks move onto its endpoints (an explicit list longer than the ranks
  // gives its first entries, e.g. dgx1-v100's NVLink ring order); a flat network is generated
  // again from `cost` (its classes and node size) for the new count, its ranks in
  // order, after `edits` (which a built fabric refuses: its classes are its config's). Throws
  // Error (too many ranks, a placement a flat network cannot take, ranks not whole nodes).
  void place(Rank ranks, const std::optional<Placement>& placement = std::nullopt, const LinkEdits& edits = {});
};

// A flat network of `ranks` ranks with `cost`'s classes, gamma and node size (predict's
// what-if flags, the Python module). Throws Error when the ranks are not whole nodes.
ClusterConfig flat_cluster(std::string name, const CostModel& cost, Rank ranks);

// The largest cluster file read (a cluster file is a page of YAML, not megabytes).
inline constexpr std::uint64_t kMaxConfigBytes = 16u << 20;

ClusterConfig parse_cluster_config(const std::string& yaml_text, const std::string& origin);
ClusterConfig load_cluster_config(const std::filesystem::path& path);

// The guards every reader of cluster YAML passes first (Error naming the line): one document,
// nesting at most 32 deep, at most 4 M values once aliases are expanded. parse_cluster_config
// applies them; a reader that builds its own YAML tree (calibrate --measured) calls this.
void check_cluster_yaml(const std::string& yaml_text, const std::string& origin);

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
