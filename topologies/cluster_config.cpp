// topologies/cluster_config.cpp — YAML cluster files via yaml-cpp: read, check, build.
#include "topologies/cluster_config.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <span>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/text.hpp"
#include "base/units.hpp"
#include "topologies/builders/fabric_kinds.hpp"
#include "topologies/config_reader.hpp"
#include "topologies/flat_network.hpp"
#include "topologies/link_catalog.hpp"

namespace collsim {

extern const std::vector<std::pair<std::string_view, std::string_view>> kEmbeddedConfigs;  // configs/*.yaml

namespace {


// yaml-cpp keeps both entries of a duplicated key and answers lookups with the first, so a
// second `bandwidth_Bps:` would be silently ignored: refuse it, at the second one.
void reject_duplicate_keys(const ConfigReader& in, const YAML::Node& node) {
  if (node.IsSequence())
    for (const YAML::Node& item : node) reject_duplicate_keys(in, item);
  if (!node.IsMap()) return;
  std::map<std::string, int> first_line;
  for (const auto& kv : node) {
    if (kv.first.IsScalar()) {
      const auto [it, fresh] = first_line.emplace(kv.first.Scalar(), kv.first.Mark().line + 1);
      if (!fresh) in.fail(kv.first, fmt::format("duplicate key '{}' (first given on line {})", kv.first.Scalar(), it->second));
    }
    reject_duplicate_keys(in, kv.second);
  }
}

// ---- flat form -------------------------------------------------------------------------

// "flat: 64 ranks, 8 per node; inter-node 10 GB/s, alpha 1.2 us; intra-node ...".
std::string flat_summary(const CostModel& cost, Rank ranks) {
  const auto link = [](const LinkCost& l) {
    return fmt::format("{:.4g} GB/s, alpha {}", to_GBps(1.0 / l.beta_s_per_byte), format_seconds(l.alpha_s));
  };
  if (cost.ranks_per_node == 0) return fmt::format("flat: {} ranks, links {} (contention-free model)", ranks, link(cost.inter_node));
  return fmt::format("flat: {} ranks, {} per node; inter-node {}; intra-node {} (contention-free model)", ranks,
                     cost.ranks_per_node, link(cost.inter_node), link(cost.intra_node));
}

LinkCost flat_link(const ConfigReader& in, const YAML::Node& node, const std::string& where) {
  in.only_keys(node, where, {"alpha_s", "bandwidth_Bps"});
  return {in.physical(in.require(node, "alpha_s", where), where + ".alpha_s", kTimeRange),
          1.0 / in.physical(in.require(node, "bandwidth_Bps", where), where + ".bandwidth_Bps", kBandwidthRange)};
}

void read_flat(const ConfigReader& in, const YAML::Node& root, ClusterConfig& c) {
  for (const char* key : {"memory_bandwidth_Bps", "core_copy_Bps"})
    if (root[key])
      in.fail(root[key], fmt::format("'{}' needs the topology form (link_classes with a topology or nodes): the flat "
                                     "form has no links for the ranks' memory or cores", key));
  in.only_keys(root, "cluster", {"name", "description", "ranks", "ranks_per_node", "links", "gamma_s_per_byte", "bytes"});
  c.ranks = in.count(in.require(root, "ranks", ""), "ranks");
  if (root["ranks_per_node"]) c.cost.ranks_per_node = in.count(root["ranks_per_node"], "ranks_per_node");
  if (c.cost.ranks_per_node > 0 && c.ranks % c.cost.ranks_per_node != 0)
    in.fail(root["ranks_per_node"],
            fmt::format("{} ranks are not a whole number of nodes of {}", c.ranks, c.cost.ranks_per_node));
  const YAML::Node links = in.require(root, "links", "");
  in.only_keys(links, "links", {"inter_node", "intra_node"});
  c.cost.inter_node = flat_link(in, in.require(links, "inter_node", "links"), "links.inter_node");
  c.cost.intra_node = links["intra_node"] ? flat_link(in, links["intra_node"], "links.intra_node") : c.cost.inter_node;
  c.cost.gamma_s_per_byte = in.physical(in.require(root, "gamma_s_per_byte", ""), "gamma_s_per_byte", kGammaRange);
  c.topology = flat_topology(c.cost, c.ranks, flat_summary(c.cost, c.ranks));
}

// ---- topology form ---------------------------------------------------------------------

// `size_factors: [{from_bytes: 0, bandwidth: 0.5, latency: 2}, {from_bytes: 64K, ...}]`
std::vector<SizeFactor> read_size_factors(const ConfigReader& in, const YAML::Node& node, const std::string& where) {
  if (!node.IsSequence() || node.size() == 0)
    in.fail(node, fmt::format("'{}' must be a list of {{from_bytes, bandwidth, latency}}", where));
  std::vector<SizeFactor> rows;
  for (const YAML::Node& row : node) {
    in.only_keys(row, where, {"from_bytes", "bandwidth", "latency"});
    SizeFactor f;
    const YAML::Node from = in.require(row, "from_bytes", where);
    f.from_bytes = in.at(from, [&] { return parse_size(in.text(from, where + ".from_bytes")); });
    if (row["bandwidth"]) f.bandwidth = in.number(row["bandwidth"], where + ".bandwidth", false);
    if (row["latency"]) f.latency = in.number(row["latency"], where + ".latency", false);
    rows.push_back(f);
  }
  return rows;
}

// `reduction_factors: [{from_bytes: 0, gamma: 0.4}, {from_bytes: 4M, gamma: 1}]` (or
// reduction_into_sent_factors, named by `where`): by increasing from_bytes, the first at 0,
// each factor in (0, 10000].
std::vector<ReductionFactor> read_reduction_factors(const ConfigReader& in, const YAML::Node& node,
                                                   const std::string& where) {
  if (!node.IsSequence() || node.size() == 0) in.fail(node, fmt::format("'{}' must be a list of {{from_bytes, gamma}}", where));
  std::vector<ReductionFactor> rows;
  for (const YAML::Node& row : node) {
    in.only_keys(row, where, {"from_bytes", "gamma"});
    ReductionFactor f;
    const YAML::Node from = in.require(row, "from_bytes", where);
    f.from_bytes = in.at(from, [&] { return parse_size(in.text(from, where + ".from_bytes")); });
    f.gamma = in.number(in.require(row, "gamma", where), where + ".gamma", false);
    if (rows.empty() && f.from_bytes != 0) in.fail(from, fmt::format("'{}' must start at from_bytes 0", where));
    if (!rows.empty() && f.from_bytes <= rows.back().from_bytes)
      in.fail(from, fmt::format("'{}' must be sorted by from_bytes, each larger than the last ({} after {})", where,
                                f.from_bytes, rows.back().from_bytes));
    if (!(f.gamma > 0 && f.gamma <= 1e4))
      in.fail(row["gamma"], fmt::format("'{}' gamma {} at {} bytes must be in (0, 10000]", where, f.gamma, f.from_bytes));
    rows.push_back(f);
  }
  return rows;
}

// `technology: nvlink4` (with `links: 18` where the technology is counted in links) fills
// the class from the link catalog; every field the YAML gives overrides the catalog's value.
// `nccl_nvlink_Bps` (> 0 where NCCL drives the links of a named GPU): an NVLink carries no
// more than NCCL's kernels move on it, below a copy engine's peer-copy rate (the catalog's
// efficiency): 20.6 of 25 GB/s on an H100's NVLink 4 where p2pBandwidthLatencyTest moves 21.1.
LinkClass class_from_technology(const ConfigReader& in, const YAML::Node& node, const std::string& where,
                                double nccl_nvlink_Bps) {
  const YAML::Node name = node["technology"];
  const LinkTechnology& tech =
      *in.at(name, [&] { return &find_link_technology(in.text(name, where + ".technology")); });
  LinkClass c;
  c.transport = transport_of(tech);
  c.bandwidth_Bps = tech.link_Bps;
  c.efficiency = tech.efficiency;
  if (c.transport == Transport::nvlink && nccl_nvlink_Bps > 0)
    c.efficiency = std::min(c.efficiency, nccl_nvlink_Bps / tech.link_Bps);
  c.latency_s = tech.latency_s;
  c.alpha_s = tech.alpha_s;
  const YAML::Node links = node["links"];
  if (!tech.counted_in_links) {
    if (links)
      in.fail(links, fmt::format("'{}.links': {} is one link per port, not counted in links (links apply to: "
                                 "nvlink*, nvswitch*)",
                                 where, tech.name));
    return c;
  }
  if (links && node["bandwidth_Bps"])
    in.fail(links, fmt::format("'{}': give 'links' or 'bandwidth_Bps', not both", where));
  if (!links && !node["bandwidth_Bps"])
    in.fail(node, fmt::format("missing key 'links' in '{}': {} is counted in links ({} per link per direction; "
                              "e.g. links: 18 for an H100's NVLink 4)",
                              where, tech.name, format_rate(tech.link_Bps)));
  if (links) {
    const std::uint32_t count = in.count(links, where + ".links");
    c.bandwidth_Bps *= count;
    if (const std::string problem = range_problem(kBandwidthRange, c.bandwidth_Bps); !problem.empty())
      in.fail(links, fmt::format("'{}.links': {} links of {}: {}", where, count, tech.name, problem));
  }
  return c;
}

LinkClass read_link_class(const ConfigReader& in, const std::string& name, const YAML::Node& node,
                          double nccl_nvlink_Bps) {
  const std::string where = "link_classes." + name;
  in.only_keys(node, where,
               {"technology", "links", "bandwidth_Bps", "latency_s", "alpha_s", "efficiency", "size_factors",
                "exchange_factors", "transport"});
  if (node["links"] && !node["technology"])
    in.fail(node["links"], fmt::format("'{}.links' counts the links of a technology: give 'technology' too", where));
  LinkClass c = node["technology"] ? class_from_technology(in, node, where, nccl_nvlink_Bps) : LinkClass{};
  c.name = name;
  if (node["bandwidth_Bps"] || !node["technology"])
    c.bandwidth_Bps = in.physical(in.require(node, "bandwidth_Bps", where), where + ".bandwidth_Bps", kBandwidthRange);
  if (node["latency_s"]) c.latency_s = in.physical(node["latency_s"], where + ".latency_s", kTimeRange);
  if (node["alpha_s"]) c.alpha_s = in.physical(node["alpha_s"], where + ".alpha_s", kTimeRange);
  if (node["efficiency"]) c.efficiency = in.number(node["efficiency"], where + ".efficiency", false);
  if (const YAML::Node t = node["transport"]) c.transport = in.at(t, [&] { return parse_transport(in.text(t, where + ".transport")); });
  if (node["size_factors"]) c.size_factors = read_size_factors(in, node["size_factors"], where + ".size_factors");
  if (node["exchange_factors"])
    c.exchange_factors = read_size_factors(in, node["exchange_factors"], where + ".exchange_factors");
  return c;
}

void read_link_classes(const ConfigReader& in, const YAML::Node& node, Network& net, double nccl_nvlink_Bps) {
  if (!node.IsMap() || node.size() == 0)
    in.fail(node, "'link_classes' must map class names to {bandwidth_Bps or technology, latency_s, alpha_s, ...}");
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) in.fail(kv.first, "a link class name must be a plain name");
    const LinkClass c = read_link_class(in, in.name(kv.first, "link class name"), kv.second, nccl_nvlink_Bps);
    in.at(kv.first, [&] { return net.add_link_class(c); });
  }
}

// The nodes section, read before the fabric so that ring/star/full know their size.
struct NodesSpec {
  YAML::Node node;
  NodesParams params;
};

// `peer_links: [[0, 1, 1], [0, 3, 2], ...]`: GPU a, GPU b, how many links of peer_link.
std::vector<GpuPairLinks> read_peer_links(const ConfigReader& in, const YAML::Node& node) {
  if (!node.IsSequence() || node.size() == 0)
    in.fail(node, "'nodes.peer_links' must be a list of [GPU, GPU, links] triples, e.g. [[0, 1, 1], [0, 3, 2]]");
  std::vector<GpuPairLinks> pairs;
  for (const YAML::Node& item : node) {
    if (!item.IsSequence() || item.size() != 3)
      in.fail(item, "'nodes.peer_links': each item is [GPU, GPU, links], e.g. [0, 3, 2]");
    pairs.push_back({in.count(item[0], "nodes.peer_links", true), in.count(item[1], "nodes.peer_links", true),
                     in.count(item[2], "nodes.peer_links")});
  }
  return pairs;
}

// The sourced throughput and latency of a reducing switch, under `section` (nodes, topology).
SwitchReduction read_reduction_numbers(const ConfigReader& in, const YAML::Node& node, const std::string& section) {
  SwitchReduction r;
  r.throughput_Bps = in.physical(in.require(node, "reduction_Bps", section), section + ".reduction_Bps", kBandwidthRange);
  r.latency_s = in.physical(in.require(node, "reduction_latency_s", section), section + ".reduction_latency_s", kTimeRange);
  return r;
}

// `reduction: nvls` with `reduction_Bps` and `reduction_latency_s`: the node switch reduces
// (NVLink SHARP); only an NVSwitch can.
SwitchReduction read_switch_reduction(const ConfigReader& in, const YAML::Node& node, const std::string& switch_name) {
  const YAML::Node kind = in.require(node, "reduction", "nodes");
  if (const std::string k = in.text(kind, "nodes.reduction"); k == "sharp")
    in.fail(kind, "'nodes.reduction: sharp': InfiniBand SHARP reduces in the fabric's switches, so it belongs under "
                  "'topology' (reduction: sharp); a node's NVSwitch takes nvls");
  else if (k != "nvls")
    in.fail(kind, fmt::format("'nodes.reduction' must be nvls (NVLink SHARP in the NVSwitch; got '{}')", k));
  if (switch_name != "nvswitch")
    in.fail(kind, fmt::format("'nodes.reduction: nvls' needs switch: nvswitch; a {} switch cannot reduce", switch_name));
  return read_reduction_numbers(in, node, "nodes");
}

// `topology: reduction: sharp` with `reduction_Bps` and `reduction_latency_s`: the fabric's
// switches reduce (InfiniBand SHARP), as one logical reducer (builders.hpp, add_fabric_reducer).
SwitchReduction read_fabric_reduction(const ConfigReader& in, const YAML::Node& node) {
  const YAML::Node kind = in.require(node, "reduction", "topology");
  if (const std::string k = in.text(kind, "topology.reduction"); k == "nvls")
    in.fail(kind, "'topology.reduction: nvls': NVLink SHARP reduces in a node's NVSwitch, so it belongs under 'nodes' "
                  "(reduction: nvls); an InfiniBand fabric takes sharp");
  else if (k != "sharp")
    in.fail(kind, fmt::format("'topology.reduction' must be sharp (InfiniBand SHARP in the fabric's switches; got '{}')", k));
  return read_reduction_numbers(in, node, "topology");
}

NodesSpec read_nodes(const ConfigReader& in, const YAML::Node& node, const Network& net) {
  in.only_keys(node, "nodes", {"count", "gpus_per_node", "switch", "gpu_link", "backplane_Bps", "nics_per_node",
                               "nic_link", "rail_optimized", "pxn", "peer_link", "peer_links", "reduction", "reduction_Bps",
                               "reduction_latency_s"});
  NodesSpec s{node, {}};
  NodesParams& p = s.params;
  p.nodes = in.count(in.require(node, "count", "nodes"), "nodes.count");
  p.gpus_per_node = in.count(in.require(node, "gpus_per_node", "nodes"), "nodes.gpus_per_node");
  if (node["switch"]) {
    p.switch_name = in.name(node["switch"], "nodes.switch");
    if (p.switch_name != "nvswitch" && p.switch_name != "pcie")
      in.fail(node["switch"], fmt::format("'nodes.switch' must be nvswitch or pcie (got '{}')", p.switch_name));
  }
  p.gpu_link = in.link_class(node, "gpu_link", "nodes", net);
  if (node["backplane_Bps"]) p.backplane_Bps = in.physical(node["backplane_Bps"], "nodes.backplane_Bps", kBandwidthRange);
  if (node["nics_per_node"]) p.nics_per_node = in.count(node["nics_per_node"], "nodes.nics_per_node");
  if (node["rail_optimized"]) p.rail_optimized = in.flag(node["rail_optimized"], "nodes.rail_optimized");
  if (node["pxn"]) p.pxn = in.flag(node["pxn"], "nodes.pxn");
  if (p.nodes > 1 || node["nic_link"]) p.nic_link = in.link_class(node, "nic_link", "nodes", net);
  if (node["peer_links"] || node["peer_link"]) {
    p.peer_link = in.link_class(node, "peer_link", "nodes", net);
    p.peer_links = read_peer_links(in, in.require(node, "peer_links", "nodes"));
  }
  if (node["reduction"] || node["reduction_Bps"] || node["reduction_latency_s"])
    p.reduction = read_switch_reduction(in, node, p.switch_name);
  return s;
}

// `placement: linear` or `placement: {kind: random, seed: 7}`; the same shape for routing.
YAML::Node kind_of(const ConfigReader& in, const YAML::Node& v, const std::string& field, const std::set<std::string>& keys) {
  if (v.IsScalar()) return v;
  in.only_keys(v, field, keys);
  return in.require(v, "kind", field);
}

Placement read_placement(const ConfigReader& in, const YAML::Node& v) {
  Placement p;
  const YAML::Node kind = kind_of(in, v, "placement", {"kind", "seed", "endpoints"});
  p.kind = in.at(kind, [&] { return parse_placement_kind(in.text(kind, "placement.kind")); });
  if (v.IsMap() && v["seed"]) p.seed = in.count(v["seed"], "placement.seed", true);
  if (p.kind == Placement::Kind::explicit_list) {
    if (!v.IsMap() || !v["endpoints"]) in.fail(v, "explicit placement needs 'endpoints: [...]', one per rank");
    for (const YAML::Node& item : v["endpoints"]) p.endpoints.push_back(in.count(item, "placement.endpoints", true));
  }
  return p;
}

// `calibration: {reliable, reasons}`, written by `collsim calibrate`: whether its fit is to be
// trusted, and why not.
void read_calibration_note(const ConfigReader& in, const YAML::Node& node, ClusterConfig& c) {
  in.only_keys(node, "calibration", {"reliable", "reasons"});
  c.calibration_reliable = in.flag(in.require(node, "reliable", "calibration"), "calibration.reliable");
  if (const YAML::Node reasons = node["reasons"]) {
    if (!reasons.IsSequence()) in.fail(reasons, "'calibration.reasons' must be a list of strings");
    for (const YAML::Node& reason : reasons) c.calibration_reasons.push_back(in.text(reason, "calibration.reasons"));
  }
}

// Which endpoints each reducer serves: node n's switch its GPUs, the fabric's every endpoint.
std::vector<ReducerRouter::Served> reducers_served(const Topology& t) {
  std::vector<ReducerRouter::Served> served;
  for (std::size_t n = 0; n < t.node_reducers.size(); ++n) {
    const auto first = t.endpoints.begin() + std::ptrdiff_t(n * t.endpoints_per_node);
    served.push_back({t.node_reducers[n], {first, first + t.endpoints_per_node}});
  }
  if (t.fabric_reducer) served.push_back({*t.fabric_reducer, t.endpoints});
  return served;
}

CollectiveRuntime runtime_library(const ConfigReader& in, const YAML::Node& v, const std::string& field) {
  const std::string name = in.text(v, field);
  if (name == "nccl") return CollectiveRuntime::nccl;
  if (name != "none") in.fail(v, fmt::format("'{}' must be nccl or none, got '{}'", field, name));
  return CollectiveRuntime::none;
}

TunerPlugin tuner_plugin(const ConfigReader& in, const YAML::Node& v) {
  const std::string name = in.text(v, "runtime.tuner");
  if (name == "aws-ofi-nccl-p5") return TunerPlugin::aws_ofi_nccl_p5;
  if (name != "none")
    in.fail(v, fmt::format("'runtime.tuner' must be aws-ofi-nccl-p5 (aws-ofi-nccl's region tuner on AWS p5/p5e) or "
                           "none, got '{}'",
                           name));
  return TunerPlugin::none;
}

// A size NCCL's environment takes in bytes: a whole number from 4 KiB to 1 GiB.
std::uint64_t nccl_env_bytes(const ConfigReader& in, const YAML::Node& v, const std::string& field) {
  const double x = in.number(v, field, false);
  if (x != std::floor(x) || x < 4096 || x > double(1ull << 30))
    in.fail(v, fmt::format("'{}' must be a whole number of bytes from 4096 to 1073741824, as NCCL's environment "
                           "takes it (got {})",
                           field, x));
  return std::uint64_t(x);
}

// NCCL_ALGO or NCCL_PROTO's list as NCCL reads it (src/graph/tuning.cc, parseList): names
// separated by commas, any case, all but those with a leading '^'; the names NCCL may use, in
// `names`' order. Per-collective lists ("allreduce:tree") are not read.
std::vector<std::string> nccl_env_list(const ConfigReader& in, const YAML::Node& v, const std::string& field,
                                       std::span<const std::string_view> names) {
  const std::string text = in.text(v, field);
  if (text.find_first_of(":;") != std::string::npos)
    in.fail(v, fmt::format("'{}' takes one list for every collective (such as \"Ring,Tree\"); per-collective "
                           "lists (\"allreduce:tree\") are not read, got '{}'", field, text));
  const bool except = !text.empty() && text[0] == '^';
  std::set<std::string> listed;
  std::string_view rest = std::string_view(text).substr(except ? 1 : 0);
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string name = lowercase(rest.substr(0, comma));
    if (std::find(names.begin(), names.end(), name) == names.end())
      in.fail(v, fmt::format("'{}' names '{}', which NCCL does not know; it takes {} (any case, ',' between, a "
                             "leading '^' for all but those)",
                             field, name, fmt::join(names, ", ")));
    listed.insert(name);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  std::vector<std::string> out;
  for (std::string_view n : names)
    if (listed.contains(std::string(n)) != except) out.emplace_back(n);
  if (out.empty()) in.fail(v, fmt::format("'{}' leaves NCCL nothing to use: '{}'", field, text));
  return out;
}

// buffsize, nvls_chunksize, nvlstree_max_chunksize: NCCL_BUFFSIZE, NCCL_NVLS_CHUNKSIZE and
// NCCL_NVLSTREE_MAX_CHUNKSIZE as the cluster's runs set them; algo, proto, nvls_enable:
// NCCL_ALGO, NCCL_PROTO, NCCL_NVLS_ENABLE (NcclEnvironment).
void read_nccl_environment(const ConfigReader& in, const YAML::Node& r, NcclEnvironment& env) {
  if (const YAML::Node v = r["buffsize"]) env.buffsize = nccl_env_bytes(in, v, "runtime.buffsize");
  if (const YAML::Node v = r["nvls_chunksize"]) env.nvls_chunksize = nccl_env_bytes(in, v, "runtime.nvls_chunksize");
  if (const YAML::Node v = r["nvlstree_max_chunksize"])
    env.nvlstree_max_chunksize = nccl_env_bytes(in, v, "runtime.nvlstree_max_chunksize");
  if (const YAML::Node v = r["algo"]) env.algorithms = nccl_env_list(in, v, "runtime.algo", kNcclAlgorithmNames);
  if (const YAML::Node v = r["proto"]) env.protocols = nccl_env_list(in, v, "runtime.proto", kNcclProtocolNames);
  if (const YAML::Node v = r["nvls_enable"]) env.nvls_enabled = in.flag(v, "runtime.nvls_enable");
}

// `runtime: nccl` (latencies only), or the map that names the hardware NCCL's rate tables
// are chosen by: {library: nccl, compute_capability: 9.0, host_cpu: intel} (sim/runtime.hpp),
// and optionally collnet_enable: true (NCCL_COLLNET_ENABLE=1), tuner: aws-ofi-nccl-p5 (the
// plugin that chooses NCCL's algorithm and protocol: sim/tuner_plugin.hpp), net_latency_s and
// device_copy_Bps (RuntimeHardware).
void read_runtime(const ConfigReader& in, const YAML::Node& r, ClusterConfig& c) {
  if (!r.IsMap()) {
    c.runtime = runtime_library(in, r, "runtime");
    return;
  }
  in.only_keys(r, "runtime",
               {"library", "compute_capability", "host_cpu", "collnet_enable", "tuner", "buffsize", "nvls_chunksize",
                "nvlstree_max_chunksize", "algo", "proto", "nvls_enable", "net_latency_s", "device_copy_Bps"});
  read_nccl_environment(in, r, c.runtime_hardware.environment);
  if (const YAML::Node v = r["net_latency_s"])
    c.runtime_hardware.net_latency_s = in.physical(v, "runtime.net_latency_s", kTimeRange);
  if (const YAML::Node v = r["device_copy_Bps"])
    c.runtime_hardware.device_copy_Bps = in.physical(v, "runtime.device_copy_Bps", kBandwidthRange);
  if (const YAML::Node collnet = r["collnet_enable"]) c.collnet_enabled = in.flag(collnet, "runtime.collnet_enable");
  if (const YAML::Node tuner = r["tuner"]) c.tuner = tuner_plugin(in, tuner);
  c.runtime = runtime_library(in, in.require(r, "library", "runtime"), "runtime.library");
  const YAML::Node cc = in.require(r, "compute_capability", "runtime");
  const double x = in.number(cc, "runtime.compute_capability", false);
  const double tenths = std::round(x * 10);
  if (std::abs(x * 10 - tenths) > 1e-6 || x < 3.0 || x > 20.0)
    in.fail(cc, fmt::format("'runtime.compute_capability' must be a CUDA compute capability such as 8.0 or 9.0 "
                            "(got {})", x));
  c.runtime_hardware.compute_capability = std::uint32_t(tenths);
  const YAML::Node cpu = in.require(r, "host_cpu", "runtime");
  const std::string vendor = in.text(cpu, "runtime.host_cpu");
  if (vendor != "amd" && vendor != "intel" && vendor != "arm" && vendor != "power")
    in.fail(cpu, fmt::format("'runtime.host_cpu' must be amd, intel, arm or power, got '{}'", vendor));
  c.runtime_hardware.amd_hosts = vendor == "amd";
}

// `host_issue: {per_transfer_s, sync_s, sync_per_stream_s}` (a calibrated cuda cluster;
// HostIssue; sync_per_stream_s optional, 0 by default).
void read_host_issue(const ConfigReader& in, const YAML::Node& node, ClusterConfig& c) {
  in.only_keys(node, "host_issue", {"per_transfer_s", "sync_s", "sync_per_stream_s"});
  if (const YAML::Node per_stream = node["sync_per_stream_s"])
    c.host_issue.sync_per_stream_s = in.physical(per_stream, "host_issue.sync_per_stream_s", kTimeRange);
  c.host_issue.per_transfer_s = in.physical(in.require(node, "per_transfer_s", "host_issue"), "host_issue.per_transfer_s", kTimeRange);
  c.host_issue.sync_s = in.physical(in.require(node, "sync_s", "host_issue"), "host_issue.sync_s", kTimeRange);
}

void read_topology(const ConfigReader& in, const YAML::Node& root, ClusterConfig& c) {
  in.only_keys(root, "cluster", {"name", "description", "link_classes", "topology", "nodes", "placement", "routing",
                                 "ranks", "gamma_s_per_byte", "memory_bandwidth_Bps", "core_copy_Bps", "reduction_factors",
                                 "reduction_into_sent_factors", "bytes", "calibration", "runtime", "host_issue"});
  if (const YAML::Node r = root["runtime"]) read_runtime(in, r, c);
  if (root["calibration"]) read_calibration_note(in, root["calibration"], c);
  if (root["host_issue"]) read_host_issue(in, root["host_issue"], c);
  auto topo = std::make_shared<Topology>();
  Network& net = topo->network;
  const bool nccl = c.runtime == CollectiveRuntime::nccl;
  read_link_classes(in, in.require(root, "link_classes", ""), net,
                    nccl ? nccl_nvlink_link_Bps(c.runtime_hardware.compute_capability) : 0.0);

  if (const YAML::Node r = root["routing"]) {
    const YAML::Node kind = kind_of(in, r, "routing", {"kind", "seed"});
    topo->routing = in.at(kind, [&] { return parse_routing_mode(in.text(kind, "routing.kind")); });
    if (r.IsMap() && r["seed"]) topo->routing_seed = in.count(r["seed"], "routing.seed", true);
  }
  // Builders make minimal routers for shortest-path; it replaces them once the graph is final.
  const RoutingMode build_mode = topo->routing == RoutingMode::shortest_path ? RoutingMode::minimal : topo->routing;

  std::optional<NodesSpec> nodes;
  if (root["nodes"]) nodes = read_nodes(in, root["nodes"], net);
  const std::uint32_t nics = nodes ? nodes->params.nodes * nodes->params.nics_per_node : 0;
  Fabric fabric;
  if (root["topology"]) {
    const FabricRequest request{in, root["topology"], net, build_mode, topo->routing_seed, nics};
    const FabricKind& kind = fabric_kind(request);
    // Rails are a fat-tree's: NIC j of every node on leaf j. On a dragonfly they would put a
    // node's NICs in different groups, so a node's own traffic crosses global links; there, unless
    // the config says otherwise, a node's NICs are adjacent terminals (node-major).
    if (nodes && kind.name == "dragonfly" && !nodes->node["rail_optimized"]) nodes->params.rail_optimized = false;
    fabric = kind.read(request);
    const YAML::Node t = root["topology"];
    if (t["reduction"] || t["reduction_Bps"] || t["reduction_latency_s"]) {
      const SwitchReduction sharp = read_fabric_reduction(in, t);
      topo->fabric_reducer = in.at(t["reduction"], [&] { return add_fabric_reducer(net, fabric, sharp); });
      topo->fabric_reduction = "sharp";
      fabric.summary += fmt::format(", reduces: sharp {:g} GB/s", to_GBps(sharp.throughput_Bps));
    }
  } else if (!nodes || nodes->params.nodes > 1) {
    in.fail(root, "missing key 'topology' (only a single node may go without a fabric)");
  }
  if (nodes) {
    NodesFabric built = in.at(nodes->node, [&] { return build_nodes(net, nodes->params, std::move(fabric)); });
    fabric = std::move(built.fabric);
    topo->endpoints_per_node = nodes->params.gpus_per_node;
    topo->nics_per_node = nodes->params.nics_per_node;
    topo->node_reducers = std::move(built.reducers);
    if (!topo->node_reducers.empty()) topo->node_reduction = "nvls";
  }
  topo->endpoints = std::move(fabric.endpoints);
  if (const YAML::Node memory = root["memory_bandwidth_Bps"]) {
    const double bandwidth = in.physical(memory, "memory_bandwidth_Bps", kBandwidthRange);
    in.at(memory, [&] { topo->add_memory(bandwidth); });
  }
  if (const YAML::Node core = root["core_copy_Bps"]) {
    const double copy = in.physical(core, "core_copy_Bps", kBandwidthRange);
    in.at(core, [&] { topo->add_core(copy); });
  }
  if (const YAML::Node factors = root["reduction_factors"])
    topo->reduction_factors = read_reduction_factors(in, factors, "reduction_factors");
  if (const YAML::Node factors = root["reduction_into_sent_factors"])
    topo->reduction_into_sent_factors = read_reduction_factors(in, factors, "reduction_into_sent_factors");
  net.finalize();
  topo->count_ports();
  if (topo->has_reducers()) topo->reducer_router = std::make_unique<ReducerRouter>(net, reducers_served(*topo));
  topo->fabric_summary = fabric.summary;
  topo->router = topo->routing == RoutingMode::shortest_path ? std::make_unique<ShortestPathRouter>(net)
                                                             : std::move(fabric.router);

  const std::uint32_t endpoints = std::uint32_t(topo->endpoints.size());
  c.ranks = root["ranks"] ? in.count(root["ranks"], "ranks") : endpoints;
  if (c.ranks > endpoints)
    in.fail(root["ranks"], fmt::format("'ranks' is {} but the network has only {} endpoints", c.ranks, endpoints));
  const Placement placement = root["placement"] ? read_placement(in, root["placement"]) : Placement{};
  in.at(root["placement"] ? root["placement"] : root, [&] { topo->place(placement, c.ranks); });
  c.cost.gamma_s_per_byte = in.physical(in.require(root, "gamma_s_per_byte", ""), "gamma_s_per_byte", kGammaRange);
  c.cost.ranks_per_node = topo->endpoints_per_node;
  c.topology = std::move(topo);
}

ClusterConfig read_cluster(const ConfigReader& in, const YAML::Node& root) {
  reject_duplicate_keys(in, root);
  ClusterConfig c;
  c.name = in.name(in.require(root, "name", ""), "name");
  if (root["description"]) {
    c.description = in.text(root["description"], "description");
    for (const unsigned char ch : c.description)  // lines and tabs are prose; an escape or a bell is not
      if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f)
        in.fail(root["description"], fmt::format("'description' holds control byte 0x{:02x}: use printable characters", ch));
  }
  const bool flat = bool(root["links"]);
  if (flat && (root["link_classes"] || root["topology"] || root["nodes"]))
    in.fail(root["links"], "'links' (flat form) cannot be mixed with link_classes/topology/nodes");
  if (flat)
    read_flat(in, root, c);
  else
    read_topology(in, root, c);
  if (root["bytes"]) c.bytes = in.sizes(root["bytes"]);
  return c;
}

// Bounds that keep a small file small once loaded: yaml-cpp shares the node an alias names,
// but collsim's readers walk every use, so aliases of aliases (a few hundred bytes) would
// cost exponential time; nesting deeper than any cluster needs is refused for the same reason.
constexpr std::size_t kMaxExpandedNodes = 4'000'000;  // a 16 MiB file of plain YAML holds fewer
constexpr int kMaxNesting = 32;
// yaml-cpp spends about 500 bytes and several microseconds on each node it loads: a 16 MiB list
// of numbers takes a minute and gigabytes before any reader sees it. A cluster needs far fewer
// values (its longest list, an explicit placement, holds one per rank), so the text's values
// are counted first, without building anything.
constexpr std::size_t kMaxTextValues = 1'000'000;

// Counts the nodes as the readers will visit them (an alias once per use), stopping at the
// bound: linear in the bound whatever the aliases multiply to.
bool expands_past(const YAML::Node& node, std::size_t& budget) {
  if (budget == 0) return true;
  --budget;
  if (node.IsSequence())
    for (const YAML::Node& item : node)
      if (expands_past(item, budget)) return true;
  if (node.IsMap())
    for (const auto& kv : node)
      if (expands_past(kv.first, budget) || expands_past(kv.second, budget)) return true;
  return false;
}

// Where the text's nesting (flow brackets and block indentation alike) first passes the
// bound, counted without building anything; 0 when it does not.
std::size_t line_too_deep(const std::string& text) {
  int depth = 0;
  std::size_t line = 1;
  for (const char c : text) {
    if (c == '\n') ++line;
    else if (c == '[' || c == '{') ++depth;
    else if (c == ']' || c == '}') --depth;
    if (depth > kMaxNesting) return line;
  }
  return 0;
}

std::size_t indentation_too_deep(const std::string& text) {
  std::size_t line = 1;
  for (std::size_t at = 0; at < text.size(); ++line) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::size_t indent = text.find_first_not_of(" -", at) - at;
    if (indent > std::size_t(2 * kMaxNesting) && at + indent < end) return line;
    at = end + 1;
  }
  return 0;
}

// The line where the text's values (lines with content, plus the commas of flow collections:
// at least one value each) first pass kMaxTextValues, or 0.
std::size_t too_many_values_line(const std::string& text) {
  std::size_t values = 0;
  std::size_t line = 1;
  for (std::size_t at = 0; at < text.size(); ++line) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view l = std::string_view(text).substr(at, end - at);
    at = end + 1;
    const std::size_t first = l.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || l[first] == '#') continue;
    values += 1 + std::size_t(std::count(l.begin(), l.end(), ','));
    if (values > kMaxTextValues) return line;
  }
  return 0;
}

// The line of a document marker ('---' at the start of a line) after the first document's
// content, or 0. Read from the text: yaml-cpp's LoadAll can loop without bound on some broken
// files, and Load reads the first document only.
std::size_t second_document_line(const std::string& text) {
  bool content = false;
  std::size_t line = 1;
  for (std::size_t at = 0; at < text.size(); ++line) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view l = std::string_view(text).substr(at, end - at);
    at = end + 1;
    const bool marker = l.rfind("---", 0) == 0 && (l.size() == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r');
    if (marker && content) return line;
    const std::string_view rest = marker ? l.substr(3) : l;
    const std::size_t first = rest.find_first_not_of(" \t\r");
    if (first != std::string_view::npos && rest[first] != '#' && !(rest[first] == '%' && !marker)) content = true;
  }
  return 0;
}

YAML::Node load_one_document(const std::string& text, const std::string& origin) {
  auto fail = [&](std::size_t line, const std::string& why) {
    return Error(fmt::format("{}:{}: {}", origin, line, why));
  };
  if (const std::size_t line = std::max(line_too_deep(text), indentation_too_deep(text)); line > 0)
    throw fail(line, fmt::format("nested deeper than {} levels: a cluster file is a few levels of keys (a corrupt or "
                                 "hostile file?)",
                                 kMaxNesting));
  if (const std::size_t line = too_many_values_line(text); line > 0)
    throw fail(line, fmt::format("more than {} values: a cluster file holds a few hundred (an explicit placement one "
                                 "per rank); describe a large cluster by its topology kind and counts instead",
                                 kMaxTextValues));
  if (const std::size_t line = second_document_line(text); line > 0)
    throw fail(line, "a second YAML document ('---'): a cluster file holds one cluster; give one file per cluster");
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("{}:{}:{}: not valid YAML: {}", origin, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  std::size_t budget = kMaxExpandedNodes;
  if (expands_past(root, budget))
    throw fail(1, fmt::format("more than {} values once its YAML aliases (*name) are expanded: write the values out "
                              "(a hostile file?)",
                              kMaxExpandedNodes));
  return root;
}

}  // namespace

ClusterConfig parse_cluster_config(const std::string& yaml_text, const std::string& origin) {
  const ConfigReader in(origin);
  YAML::Node root = load_one_document(yaml_text, origin);
  if (!root.IsDefined() || root.IsNull())
    throw Error(fmt::format("{}: empty: a cluster file must be a mapping of keys (name, link_classes, ...)", origin));
  if (!root.IsMap()) in.fail(root, "a cluster file must be a mapping of keys (name, ranks, ...)");
  try {
    return read_cluster(in, root);
  } catch (const YAML::Exception& e) {  // a shape the reader did not foresee: still placed, still one line
    throw Error(fmt::format("{}:{}:{}: {}", origin, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
}

void check_cluster_yaml(const std::string& yaml_text, const std::string& origin) { load_one_document(yaml_text, origin); }

ClusterConfig load_cluster_config(const std::filesystem::path& path) {
  return parse_cluster_config(read_text_file(path, "cluster config", kMaxConfigBytes), path.string());
}

std::vector<TopologyKindHelp> topology_kinds() {
  std::vector<TopologyKindHelp> out;
  for (const FabricKind& k : fabric_kinds())
    out.push_back({std::string(k.name), std::string(k.help), std::vector<std::string>(k.keys.begin(), k.keys.end())});
  return out;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& [name, text] : kEmbeddedConfigs) names.emplace_back(name);
  return names;
}

std::string preset_yaml(const std::string& name) {
  for (const auto& [preset, text] : kEmbeddedConfigs)
    if (preset == name) return std::string(text);
  throw Error(fmt::format("unknown preset '{}' (presets: {})", name, fmt::join(preset_names(), ", ")));
}

ClusterConfig load_preset(const std::string& name) {
  return parse_cluster_config(preset_yaml(name), fmt::format("preset {}", name));
}

ClusterConfig default_cluster_config() { return load_preset("baidu-40gpu"); }

void LinkEdits::apply(CostModel& cost) const {
  if (ranks_per_node > 0) cost.ranks_per_node = ranks_per_node;
  if (alpha_s >= 0) cost.inter_node.alpha_s = cost.intra_node.alpha_s = alpha_s;
  if (beta_s_per_byte >= 0) cost.inter_node.beta_s_per_byte = cost.intra_node.beta_s_per_byte = beta_s_per_byte;
}

void ClusterConfig::place(Rank new_ranks, const std::optional<Placement>& placement, const LinkEdits& edits) {
  if (new_ranks == 0) new_ranks = ranks;
  // Kept branch (docs/design.md, "One priced run"): a flat network is generated from its rank
  // count and classes, which `edits` (predict's --alpha, --beta/--bandwidth, --ranks-per-node)
  // may change, so it is generated anew; a built fabric keeps its endpoints and its config's
  // classes, refuses those edits and moves its ranks. Two different acts on two kinds of
  // cluster, asked once where a cluster is re-placed.
  if (topology->flat) {
    edits.apply(cost);
    if (placement && placement->kind != Placement::Kind::linear)
      throw Error(fmt::format("placement {} needs a cluster with a topology; {} is a flat network (its ranks sit in order)",
                              to_string(placement->kind), name));
    const CostModel& built = *topology->flat;
    const bool same = built.inter_node == cost.inter_node && built.intra_node == cost.intra_node &&
                      built.ranks_per_node == cost.ranks_per_node;
    if (same && new_ranks == ranks) return;
    topology = flat_topology(cost, new_ranks, flat_summary(cost, new_ranks));
    ranks = new_ranks;
    return;
  }
  if (edits.any())
    throw Error(fmt::format("--alpha/--beta/--bandwidth/--ranks-per-node describe a flat network; {} has a topology "
                            "(edit its link_classes and nodes instead)", name));
  if (new_ranks == ranks && !placement) return;
  Placement p = placement ? *placement : topology->placement;
  if (p.kind == Placement::Kind::explicit_list && new_ranks < p.endpoints.size()) p.endpoints.resize(new_ranks);
  topology->place(p, new_ranks);
  ranks = new_ranks;
}

ClusterConfig flat_cluster(std::string name, const CostModel& cost, Rank ranks) {
  ClusterConfig c;
  c.name = std::move(name);
  c.cost = cost;
  c.ranks = ranks;
  c.topology = flat_topology(cost, ranks, flat_summary(cost, ranks));
  return c;
}

std::vector<std::pair<std::string, std::string>> nccl_environment_settings(const NcclEnvironment& env) {
  std::vector<std::pair<std::string, std::string>> out;
  if (env.buffsize > 0) out.emplace_back("NCCL_BUFFSIZE", std::to_string(env.buffsize));
  if (env.nvls_chunksize > 0) out.emplace_back("NCCL_NVLS_CHUNKSIZE", std::to_string(env.nvls_chunksize));
  if (env.nvlstree_max_chunksize > 0)
    out.emplace_back("NCCL_NVLSTREE_MAX_CHUNKSIZE", std::to_string(env.nvlstree_max_chunksize));
  if (!env.algorithms.empty()) out.emplace_back("NCCL_ALGO", fmt::format("{}", fmt::join(env.algorithms, ",")));
  if (!env.protocols.empty()) out.emplace_back("NCCL_PROTO", fmt::format("{}", fmt::join(env.protocols, ",")));
  if (!env.nvls_enabled) out.emplace_back("NCCL_NVLS_ENABLE", "0");
  return out;
}

bool NcclEnvironment::allows_algorithm(std::string_view nccl_name) const {
  if (!nvls_enabled && (nccl_name == "nvls" || nccl_name == "nvlstree")) return false;
  return algorithms.empty() || std::find(algorithms.begin(), algorithms.end(), nccl_name) != algorithms.end();
}

bool NcclEnvironment::allows_protocol(std::string_view nccl_name) const {
  return protocols.empty() || std::find(protocols.begin(), protocols.end(), nccl_name) != protocols.end();
}

}  // namespace collsim
