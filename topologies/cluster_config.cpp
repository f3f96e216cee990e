// topologies/cluster_config.cpp — YAML cluster files via yaml-cpp: read, check, build.
#include "topologies/cluster_config.hpp"

#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "collectives/error.hpp"
#include "collectives/file_io.hpp"
#include "collectives/units.hpp"
#include "topologies/builders/builders.hpp"

namespace collsim {

extern const std::vector<std::pair<std::string_view, std::string_view>> kEmbeddedConfigs;  // configs/*.yaml

namespace {

constexpr std::uint64_t kMaxConfigBytes = 16u << 20;  // a cluster file is a page of YAML, not megabytes

// An Error that already names its FILE:LINE:COLUMN: passed on as it is, never placed twice.
class PlacedError : public Error {
 public:
  using Error::Error;
};

// Reads typed fields; every failure names FILE:LINE:COLUMN of the node at fault and the
// field's dotted path ("topology.g").
class Reader {
 public:
  explicit Reader(std::string origin) : origin_(std::move(origin)) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& what) const {
    const YAML::Mark m = at.Mark();
    if (m.is_null()) throw PlacedError(fmt::format("{}: {}", origin_, what));
    throw PlacedError(fmt::format("{}:{}:{}: {}", origin_, m.line + 1, m.column + 1, what));
  }

  void only_keys(const YAML::Node& node, const std::string& where, const std::set<std::string>& allowed) const {
    if (!node.IsMap()) fail(node, fmt::format("'{}' must be a mapping", where));
    for (const auto& kv : node) {
      if (!kv.first.IsScalar()) fail(kv.first, fmt::format("a key in '{}' must be a plain name", where));
      const std::string key = kv.first.Scalar();
      if (!allowed.count(key))
        fail(kv.first, fmt::format("unknown key '{}' in '{}' (expected one of: {})", key, where, fmt::join(allowed, ", ")));
    }
  }

  YAML::Node require(const YAML::Node& map, const std::string& key, const std::string& where) const {
    const YAML::Node v = map[key];
    if (!v) fail(map, fmt::format("missing key '{}'{}", key, where.empty() ? "" : " in '" + where + "'"));
    return v;
  }

  double number(const YAML::Node& v, const std::string& field, bool zero_ok) const {
    double x = 0;
    if (!v.IsScalar()) fail(v, fmt::format("'{}' must be a number", field));
    try {
      x = v.as<double>();
    } catch (const YAML::Exception&) {
      fail(v, fmt::format("'{}' must be a number (got '{}')", field, v.Scalar()));
    }
    if (!std::isfinite(x) || x < 0 || (!zero_ok && x == 0))
      fail(v, fmt::format("'{}' must be {} (got {})", field, zero_ok ? ">= 0" : "> 0", x));
    return x;
  }

  // A number that must lie in its physical range (cost_model.hpp).
  double physical(const YAML::Node& v, const std::string& field, const PhysicalRange& range) const {
    const double x = number(v, field, range.min == 0);
    if (const std::string problem = range_problem(range, x); !problem.empty())
      fail(v, fmt::format("'{}': {}", field, problem));
    return x;
  }

  std::uint32_t count(const YAML::Node& v, const std::string& field, bool zero_ok = false) const {
    const double x = number(v, field, zero_ok);
    if (x != std::floor(x) || x > 4.0e9) fail(v, fmt::format("'{}' must be a whole number (got {})", field, x));
    return std::uint32_t(x);
  }

  std::vector<std::uint32_t> counts(const YAML::Node& v, const std::string& field) const {
    if (!v.IsSequence() || v.size() == 0) fail(v, fmt::format("'{}' must be a non-empty list of whole numbers", field));
    std::vector<std::uint32_t> out;
    for (const YAML::Node& item : v) out.push_back(count(item, field));
    return out;
  }

  std::vector<double> numbers(const YAML::Node& v, const std::string& field) const {
    if (!v.IsSequence()) fail(v, fmt::format("'{}' must be a list of numbers", field));
    std::vector<double> out;
    for (const YAML::Node& item : v) out.push_back(number(item, field, false));
    return out;
  }

  std::string text(const YAML::Node& v, const std::string& field) const {
    if (!v.IsScalar()) fail(v, fmt::format("'{}' must be a string", field));
    return v.Scalar();
  }

  bool flag(const YAML::Node& v, const std::string& field) const {
    try {
      return v.as<bool>();
    } catch (const YAML::Exception&) {
      fail(v, fmt::format("'{}' must be true or false", field));
    }
  }

  std::vector<std::uint64_t> sizes(const YAML::Node& v) const {
    if (!v.IsSequence()) fail(v, "'bytes' must be a list of sizes");
    std::vector<std::uint64_t> out;
    for (const YAML::Node& item : v) {
      try {
        out.push_back(parse_size(text(item, "bytes")));
      } catch (const Error& e) {
        fail(item, e.what());
      }
    }
    return out;
  }

  // Runs a builder step; an Error it throws is reported at `at`.
  template <class F>
  auto at(const YAML::Node& at, F&& step) const {
    try {
      return step();
    } catch (const PlacedError&) {
      throw;
    } catch (const Error& e) {
      fail(at, e.what());
    }
  }

 private:
  std::string origin_;
};

// yaml-cpp keeps both entries of a duplicated key and answers lookups with the first, so a
// second `bandwidth_Bps:` would be silently ignored: refuse it, at the second one.
void reject_duplicate_keys(const Reader& in, const YAML::Node& node) {
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

LinkCost flat_link(const Reader& in, const YAML::Node& node, const std::string& where) {
  in.only_keys(node, where, {"alpha_s", "bandwidth_Bps"});
  return {in.physical(in.require(node, "alpha_s", where), where + ".alpha_s", kTimeRange),
          1.0 / in.physical(in.require(node, "bandwidth_Bps", where), where + ".bandwidth_Bps", kBandwidthRange)};
}

void read_flat(const Reader& in, const YAML::Node& root, ClusterConfig& c) {
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
}

// ---- topology form ---------------------------------------------------------------------

void read_link_classes(const Reader& in, const YAML::Node& node, Network& net) {
  if (!node.IsMap() || node.size() == 0) in.fail(node, "'link_classes' must map class names to {bandwidth_Bps, latency_s, alpha_s}");
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) in.fail(kv.first, "a link class name must be a plain name");
    const std::string name = kv.first.Scalar();
    const std::string where = "link_classes." + name;
    in.only_keys(kv.second, where, {"bandwidth_Bps", "latency_s", "alpha_s"});
    LinkClass c{name, in.physical(in.require(kv.second, "bandwidth_Bps", where), where + ".bandwidth_Bps", kBandwidthRange), 0,
                0};
    if (kv.second["latency_s"]) c.latency_s = in.physical(kv.second["latency_s"], where + ".latency_s", kTimeRange);
    if (kv.second["alpha_s"]) c.alpha_s = in.physical(kv.second["alpha_s"], where + ".alpha_s", kTimeRange);
    in.at(kv.first, [&] { return net.add_link_class(c); });
  }
}

LinkClassId link_class(const Reader& in, const YAML::Node& map, const std::string& key, const std::string& where,
                       const Network& net) {
  const YAML::Node v = in.require(map, key, where);
  return in.at(v, [&] { return net.find_link_class(in.text(v, where + "." + key)); });
}

// The nodes section, read before the fabric so that ring/star/full know their size.
struct NodesSpec {
  YAML::Node node;
  NodesParams params;
};

NodesSpec read_nodes(const Reader& in, const YAML::Node& node, const Network& net) {
  in.only_keys(node, "nodes", {"count", "gpus_per_node", "switch", "gpu_link", "backplane_Bps", "nics_per_node",
                               "nic_link", "rail_optimized"});
  NodesSpec s{node, {}};
  NodesParams& p = s.params;
  p.nodes = in.count(in.require(node, "count", "nodes"), "nodes.count");
  p.gpus_per_node = in.count(in.require(node, "gpus_per_node", "nodes"), "nodes.gpus_per_node");
  if (node["switch"]) {
    p.switch_name = in.text(node["switch"], "nodes.switch");
    if (p.switch_name != "nvswitch" && p.switch_name != "pcie")
      in.fail(node["switch"], fmt::format("'nodes.switch' must be nvswitch or pcie (got '{}')", p.switch_name));
  }
  p.gpu_link = link_class(in, node, "gpu_link", "nodes", net);
  if (node["backplane_Bps"]) p.backplane_Bps = in.physical(node["backplane_Bps"], "nodes.backplane_Bps", kBandwidthRange);
  if (node["nics_per_node"]) p.nics_per_node = in.count(node["nics_per_node"], "nodes.nics_per_node");
  if (node["rail_optimized"]) p.rail_optimized = in.flag(node["rail_optimized"], "nodes.rail_optimized");
  if (p.nodes > 1 || node["nic_link"]) p.nic_link = link_class(in, node, "nic_link", "nodes", net);
  return s;
}

using FabricKeys = std::set<std::string>;

Fabric build_fabric(const Reader& in, const YAML::Node& t, Network& net, RoutingMode mode, std::uint64_t seed,
                    std::uint32_t endpoints_needed) {
  const std::string kind = in.text(in.require(t, "kind", "topology"), "topology.kind");
  auto keys = [&](FabricKeys allowed) {
    allowed.insert("kind");
    in.only_keys(t, "topology (" + kind + ")", allowed);
  };
  auto link = [&](const std::string& key) { return link_class(in, t, key, "topology", net); };
  auto get = [&](const std::string& key) { return in.count(in.require(t, key, "topology"), "topology." + key); };
  // ring, star and full take their size from `nodes` when it is given.
  auto size = [&] { return t["endpoints"] || endpoints_needed == 0 ? get("endpoints") : endpoints_needed; };
  auto build = [&](auto&& step) { return in.at(t, step); };

  if (kind == "ring") {
    keys({"endpoints", "bidirectional", "link"});
    RingParams p{size(), t["bidirectional"] ? in.flag(t["bidirectional"], "topology.bidirectional") : true, link("link")};
    return build([&] { return build_ring(net, p, mode, seed); });
  }
  if (kind == "torus") {
    keys({"dims", "link"});
    TorusParams p{in.counts(in.require(t, "dims", "topology"), "topology.dims"), link("link")};
    return build([&] { return build_torus(net, p, mode, seed); });
  }
  if (kind == "star") {
    keys({"endpoints", "link", "backplane_Bps"});
    StarParams p{size(), link("link"), {}};
    if (t["backplane_Bps"]) p.backplane_Bps = in.physical(t["backplane_Bps"], "topology.backplane_Bps", kBandwidthRange);
    return build([&] { return build_star(net, p, mode, seed); });
  }
  if (kind == "full") {
    keys({"endpoints", "link"});
    FullParams p{size(), link("link")};
    return build([&] { return build_full(net, p, mode, seed); });
  }
  if (kind == "fat-tree" || kind == "xgft" || kind == "al-fares") {
    XgftParams p;
    if (kind == "fat-tree") {
      keys({"k", "n", "link", "taper"});
      p = build([&] { return k_ary_n_tree(get("k"), get("n"), link("link")); });
    } else if (kind == "al-fares") {
      keys({"k", "link", "taper"});
      p = build([&] { return al_fares(get("k"), link("link")); });
    } else {
      keys({"m", "w", "link", "links", "taper"});
      p.m = in.counts(in.require(t, "m", "topology"), "topology.m");
      p.w = in.counts(in.require(t, "w", "topology"), "topology.w");
      if (t["links"] && t["link"]) in.fail(t["links"], "give 'link' or 'links', not both");
      if (t["links"]) {
        if (!t["links"].IsSequence()) in.fail(t["links"], "'topology.links' must be a list of link classes, one per level");
        for (const YAML::Node& item : t["links"])
          p.links.push_back(in.at(item, [&] { return net.find_link_class(in.text(item, "topology.links")); }));
      } else {
        p.links.assign(p.m.size(), link("link"));
      }
    }
    if (t["taper"]) p.taper = in.numbers(t["taper"], "topology.taper");
    return build([&] { return build_xgft(net, p, mode, seed); });
  }
  if (kind == "dragonfly") {
    keys({"p", "a", "h", "g", "arrangement", "terminal_link", "local_link", "global_link"});
    DragonflyParams p;
    p.p = get("p");
    p.a = get("a");
    p.h = get("h");
    if (t["g"]) p.g = get("g");
    if (t["arrangement"])
      p.arrangement = in.at(t["arrangement"], [&] { return parse_global_arrangement(in.text(t["arrangement"], "topology.arrangement")); });
    p.terminal_link = link("terminal_link");
    p.local_link = link("local_link");
    p.global_link = link("global_link");
    return build([&] { return build_dragonfly(net, p, mode, seed); });
  }
  in.fail(t["kind"], fmt::format("unknown topology kind '{}' (ring, torus, star, full, fat-tree, xgft, al-fares, dragonfly)", kind));
}

// `placement: linear` or `placement: {kind: random, seed: 7}`; the same shape for routing.
YAML::Node kind_of(const Reader& in, const YAML::Node& v, const std::string& field, const std::set<std::string>& keys) {
  if (v.IsScalar()) return v;
  in.only_keys(v, field, keys);
  return in.require(v, "kind", field);
}

Placement read_placement(const Reader& in, const YAML::Node& v) {
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
void read_calibration_note(const Reader& in, const YAML::Node& node, ClusterConfig& c) {
  in.only_keys(node, "calibration", {"reliable", "reasons"});
  c.calibration_reliable = in.flag(in.require(node, "reliable", "calibration"), "calibration.reliable");
  if (const YAML::Node reasons = node["reasons"]) {
    if (!reasons.IsSequence()) in.fail(reasons, "'calibration.reasons' must be a list of strings");
    for (const YAML::Node& reason : reasons) c.calibration_reasons.push_back(in.text(reason, "calibration.reasons"));
  }
}

void read_topology(const Reader& in, const YAML::Node& root, ClusterConfig& c) {
  in.only_keys(root, "cluster", {"name", "description", "link_classes", "topology", "nodes", "placement", "routing",
                                 "ranks", "gamma_s_per_byte", "bytes", "calibration"});
  if (root["calibration"]) read_calibration_note(in, root["calibration"], c);
  auto topo = std::make_shared<Topology>();
  Network& net = topo->network;
  read_link_classes(in, in.require(root, "link_classes", ""), net);

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
    fabric = build_fabric(in, root["topology"], net, build_mode, topo->routing_seed, nics);
  } else if (!nodes || nodes->params.nodes > 1) {
    in.fail(root, "missing key 'topology' (only a single node may go without a fabric)");
  }
  if (nodes) {
    NodesFabric built = in.at(nodes->node, [&] { return build_nodes(net, nodes->params, std::move(fabric)); });
    fabric = std::move(built.fabric);
    topo->endpoints_per_node = nodes->params.gpus_per_node;
  }
  net.finalize();
  topo->fabric_summary = fabric.summary;
  topo->endpoints = std::move(fabric.endpoints);
  topo->router = topo->routing == RoutingMode::shortest_path ? std::make_unique<ShortestPathRouter>(net)
                                                             : std::move(fabric.router);

  const std::uint32_t endpoints = std::uint32_t(topo->endpoints.size());
  c.ranks = root["ranks"] ? in.count(root["ranks"], "ranks") : endpoints;
  if (c.ranks > endpoints)
    in.fail(root["ranks"], fmt::format("'ranks' is {} but the network has only {} endpoints", c.ranks, endpoints));
  const Placement placement = root["placement"] ? read_placement(in, root["placement"]) : Placement{};
  in.at(root["placement"] ? root["placement"] : root, [&] { topo->place(placement, c.ranks); });
  c.cost = topo->equivalent_cost_model(in.physical(in.require(root, "gamma_s_per_byte", ""), "gamma_s_per_byte", kGammaRange));
  c.topology = std::move(topo);
}

ClusterConfig read_cluster(const Reader& in, const YAML::Node& root) {
  reject_duplicate_keys(in, root);
  ClusterConfig c;
  c.name = in.text(in.require(root, "name", ""), "name");
  if (root["description"]) c.description = in.text(root["description"], "description");
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

}  // namespace

ClusterConfig parse_cluster_config(const std::string& yaml_text, const std::string& origin) {
  const Reader in(origin);
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("{}:{}:{}: not valid YAML: {}", origin, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  if (!root.IsMap()) in.fail(root, "a cluster file must be a mapping of keys (name, ranks, ...)");
  try {
    return read_cluster(in, root);
  } catch (const YAML::Exception& e) {  // a shape the reader did not foresee: still placed, still one line
    throw Error(fmt::format("{}:{}:{}: {}", origin, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
}

ClusterConfig load_cluster_config(const std::filesystem::path& path) {
  return parse_cluster_config(read_text_file(path, "cluster config", kMaxConfigBytes), path.string());
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& [name, text] : kEmbeddedConfigs) names.emplace_back(name);
  return names;
}

ClusterConfig load_preset(const std::string& name) {
  for (const auto& [preset, text] : kEmbeddedConfigs)
    if (preset == name) return parse_cluster_config(std::string(text), fmt::format("preset {}", name));
  throw Error(fmt::format("unknown preset '{}' (presets: {})", name, fmt::join(preset_names(), ", ")));
}

ClusterConfig default_cluster_config() { return load_preset("baidu-40gpu"); }

}  // namespace collsim
