// cli/cmd_topo.cpp — `collsim topo`: what a cluster's network is made of (hosts,
// switches, links per class, routed diameter, bisection bandwidth, runtime), the route between two
// ranks, and the whole graph for Graphviz (--format dot).
#include <iostream>
#include <limits>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "base/units.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "sim/cost_rule.hpp"
#include "sim/tuner_plugin.hpp"
#include "topologies/analysis.hpp"
#include "topologies/cluster_config.hpp"
#include "topologies/flat_network.hpp"
#include "topologies/link_catalog.hpp"

namespace collsim::cli {
namespace {

struct TopoOptions {
  ClusterSource cluster;  // FILE, --config FILE or --preset NAME
  std::string format = "table";
  std::vector<Rank> route;  // two ranks
  std::uint64_t flow = 0;
  bool list = false, kinds = false, catalog = false;
};


struct RouteReport {
  Rank src = 0, dst = 0;
  std::uint64_t flow = 0;
  std::vector<LinkId> links;
  LinkCost cost;
};

RouteReport route_between(const Topology& t, const TopoOptions& o) {
  RouteReport r{o.route[0], o.route[1], o.flow, {}, {}};
  for (Rank x : o.route)
    if (x >= t.ranks()) throw Error(fmt::format("--route: rank {} does not exist (0..{})", x, t.ranks() - 1));
  t.route(r.src, r.dst, o.flow, r.links);
  r.cost = pair_cost(t, r.src, r.dst);
  return r;
}

void print_route(const Topology& t, const RouteReport& r) {
  const Network& net = t.network;
  fmt::print("\nroute rank {} -> rank {} (flow {}): {} links\n  {}", r.src, r.dst, r.flow, r.links.size(),
             net.vertex(t.vertex_of(r.src)).name);
  for (LinkId l : r.links) {
    const Link& x = net.link(l);
    fmt::print("\n  -> {:<16} via {} ({}, {})", net.vertex(x.to).name, net.link_class(x.link_class).name,
               format_rate(x.bandwidth_Bps), format_seconds(x.latency_s));
  }
  fmt::print("\n  alpha + latency {}, bottleneck {}\n", format_seconds(r.cost.alpha_s),
             r.cost.beta_s_per_byte > 0 ? format_rate(1.0 / r.cost.beta_s_per_byte) : "none (same endpoint)");
}

// "nccl: compute capability 9.0, intel hosts; tuner aws-ofi-nccl-p5; the runs set NCCL_..." or
// "none (the links alone)": the collective library that drives the links (sim/runtime.hpp).
std::string runtime_text(const ClusterConfig& c) {
  if (c.runtime == CollectiveRuntime::none) return "none (the links alone: no library's latencies or rate caps)";
  const RuntimeHardware& h = c.runtime_hardware;
  std::string out = "nccl";
  if (h.compute_capability > 0)
    out += fmt::format(": compute capability {}.{}, {} hosts", h.compute_capability / 10, h.compute_capability % 10,
                       h.amd_hosts ? "AMD" : "non-AMD");
  if (c.tuner != TunerPlugin::none) out += fmt::format("; tuner {}", tuner_plugin_name(c.tuner));
  if (c.collnet_enabled) out += "; NCCL_COLLNET_ENABLE=1";
  if (h.net_latency_s > 0)
    out += fmt::format("; the network's plugin reports {} of latency (each network step, twice with Simple)",
                       format_seconds(h.net_latency_s));
  std::vector<std::string> set;
  for (const auto& [name, value] : nccl_environment_settings(h.environment)) set.push_back(name + "=" + value);
  if (!set.empty()) out += fmt::format("; the runs set {}", fmt::join(set, " "));
  return out;
}

nlohmann::json runtime_json(const ClusterConfig& c) {
  if (c.runtime == CollectiveRuntime::none) return nullptr;
  nlohmann::json environment = nlohmann::json::object();
  for (const auto& [name, value] : nccl_environment_settings(c.runtime_hardware.environment)) environment[name] = value;
  return {{"library", "nccl"}, {"compute_capability", c.runtime_hardware.compute_capability > 0
                                                        ? nlohmann::json(c.runtime_hardware.compute_capability / 10.0)
                                                        : nlohmann::json(nullptr)},
          {"amd_hosts", c.runtime_hardware.amd_hosts}, {"tuner", tuner_plugin_name(c.tuner)},
          {"collnet_enable", c.collnet_enabled}, {"environment", environment},
          {"net_latency_s", c.runtime_hardware.net_latency_s}};
}

void print_table(const ClusterConfig& c, const TopologyFacts& f) {
  const Topology& t = *c.topology;
  fmt::print("collsim topo: {}\n", c.name);
  if (!c.description.empty()) fmt::print("  {}\n", c.description);
  fmt::print("network      {}\n", t.fabric_summary);
  fmt::print("vertices     {} endpoints (ranks sit here), {} NICs, {} switches/routers\n", f.endpoints, f.nics,
             f.switches);
  fmt::print("links        {} cables (2 directed links each) + {} one-way links (capacities, one-way rings) = {} "
             "directed links\n",
             f.cables, f.one_way_links, f.links);
  for (const LinkClassUse& u : f.classes)
    fmt::print("  {:<16} {:>12} latency {:>9} alpha {:>9}  {} links\n", u.name, format_rate(u.bandwidth_Bps),
               format_seconds(u.latency_s), format_seconds(u.alpha_s), u.links);
  fmt::print("routing      {} (seed {})\n", to_string(t.routing), t.routing_seed);
  fmt::print("placement    {}: {} ranks on {} endpoints\n", describe(t.placement), t.ranks(), f.endpoints);
  fmt::print("diameter     {} links per route at most ({})\n", f.diameter_links,
             f.diameter_exact ? "all endpoint pairs" : fmt::format("from {} sources to all endpoints", f.diameter_sources));
  fmt::print("bisection    {} per direction (max-flow from the first half of the endpoints/nodes to the second)\n",
             format_rate(f.bisection_Bps));
  fmt::print("runtime      {}\n", runtime_text(c));
}

nlohmann::json to_json(const ClusterConfig& c, const TopologyFacts& f, const std::optional<RouteReport>& route) {
  const Topology& t = *c.topology;
  nlohmann::json classes = nlohmann::json::array();
  for (const LinkClassUse& u : f.classes)
    classes.push_back({{"name", u.name}, {"bandwidth_Bps", u.bandwidth_Bps}, {"latency_s", u.latency_s},
                       {"alpha_s", u.alpha_s}, {"links", u.links}});
  nlohmann::json j = {{"name", c.name}, {"description", c.description}, {"network", t.fabric_summary},
                      {"endpoints", f.endpoints}, {"nics", f.nics}, {"switches", f.switches},
                      {"cables", f.cables}, {"one_way_links", f.one_way_links}, {"links", f.links},
                      {"link_classes", classes}, {"routing", to_string(t.routing)}, {"routing_seed", t.routing_seed},
                      {"placement", describe(t.placement)}, {"ranks", t.ranks()},
                      {"diameter_links", f.diameter_links}, {"diameter_exact", f.diameter_exact},
                      {"bisection_Bps", f.bisection_Bps}, {"runtime", runtime_json(c)}};
  if (route) {
    nlohmann::json hops = nlohmann::json::array();
    for (LinkId l : route->links) hops.push_back(t.network.vertex(t.network.link(l).to).name);
    j["route"] = {{"src", route->src}, {"dst", route->dst}, {"hops", hops},
                  {"alpha_plus_latency_s", route->cost.alpha_s},
                  {"bottleneck_Bps", route->cost.beta_s_per_byte > 0 ? 1.0 / route->cost.beta_s_per_byte : 0.0}};
  }
  return j;
}

// --list: the presets, with their descriptions in JSON (each is loaded, so both agree).
void list_presets(const std::string& format) {
  if (format == "dot") throw Error("--list prints a table or JSON, not dot");
  if (format == "table") {
    for (const std::string& name : preset_names()) fmt::print("{}\n", name);
    return;
  }
  nlohmann::json out = nlohmann::json::array();
  for (const std::string& name : preset_names()) {
    const ClusterConfig c = load_preset(name);
    out.push_back({{"name", name}, {"description", c.description}, {"ranks", c.ranks},
                   {"network", c.topology->fabric_summary}});
  }
  std::cout << out.dump(2) << '\n';
}

// --kinds: the topology kinds a config may name, from the builders' table.
void list_kinds(const std::string& format) {
  if (format == "dot") throw Error("--kinds prints a table or JSON, not dot");
  nlohmann::json out = nlohmann::json::array();
  for (const TopologyKindHelp& k : topology_kinds()) {
    if (format == "table") fmt::print("{:<10} {}\n{:<10} keys: kind, {}\n", k.name, k.help, "", fmt::join(k.keys, ", "));
    out.push_back({{"name", k.name}, {"help", k.help}, {"keys", k.keys}});
  }
  if (format == "json") std::cout << out.dump(2) << '\n';
}

// --catalog: the link technologies a link class may name (`technology:`), with their sources.
std::string per_link_note(const LinkTechnology& t) { return t.counted_in_links ? "per link" : "per port"; }

void list_catalog(const std::string& format) {
  if (format == "dot") throw Error("--catalog prints a table, CSV or JSON, not dot");
  const auto rows = link_technologies();
  if (format == "json") {
    nlohmann::json out = nlohmann::json::array();
    for (const LinkTechnology& t : rows)
      out.push_back({{"name", t.name}, {"title", t.title}, {"link_Bps", t.link_Bps},
                     {"counted_in_links", t.counted_in_links}, {"efficiency", t.efficiency},
                     {"latency_s", t.latency_s}, {"alpha_s", t.alpha_s}, {"rate_source", t.rate_source},
                     {"efficiency_source", t.efficiency_source}, {"startup_source", t.startup_source}});
    std::cout << out.dump(2) << '\n';
    return;
  }
  if (format == "csv") {
    const auto quoted = [](std::string_view text) {
      std::string q = "\"";
      for (char ch : text) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      return q + "\"";
    };
    fmt::print("name,title,link_Bps,counted_in_links,efficiency,latency_s,alpha_s,rate_source,efficiency_source,"
               "startup_source\n");
    for (const LinkTechnology& t : rows)
      fmt::print("{},{},{},{},{},{},{},{},{},{}\n", t.name, quoted(t.title), t.link_Bps, t.counted_in_links ? 1 : 0,
                 t.efficiency, t.latency_s, t.alpha_s, quoted(t.rate_source), quoted(t.efficiency_source),
                 quoted(t.startup_source));
    return;
  }
  fmt::print("collsim topo --catalog: link technologies for `technology:` in a link class; rates per direction; "
             "`links: N` multiplies a rate given per link; any field written in the YAML overrides the catalog;\n"
             "under `runtime: nccl` naming its GPUs, an NVLink class carries at most NCCL's rate a link for them\n"
             "(src/graph/topo.h, NCCL 2.30: 18 GB/s sm60, 20 sm70/sm80, 12 sm86, 20.6 sm90, 40.1 sm100)\n\n");
  fmt::print("{:<14} {:>10} {:<8} {:>10} {:>10} {:>8} {:>8}  {}\n", "technology", "rate", "", "achieved",
             "efficiency", "latency", "alpha", "what");
  for (const LinkTechnology& t : rows)
    fmt::print("{:<14} {:>10} {:<8} {:>10} {:>10.3g} {:>8} {:>8}  {}\n", t.name, format_rate(t.link_Bps),
               per_link_note(t), format_rate(t.link_Bps * t.efficiency), t.efficiency, format_seconds(t.latency_s),
               format_seconds(t.alpha_s), t.title);
  fmt::print("\nsources\n");
  for (const LinkTechnology& t : rows)
    fmt::print("  {}\n    rate: {}\n    {}\n    {}\n", t.name, t.rate_source, t.efficiency_source,
               t.startup_source);
}

void run(const TopoOptions& o) {
  if (o.catalog) {
    list_catalog(o.format);
    return;
  }
  if (o.format == "csv") throw Error("--format csv is for --catalog (a cluster prints a table, json or dot)");
  if (o.kinds) {
    list_kinds(o.format);
    return;
  }
  if (o.list) {
    list_presets(o.format);
    return;
  }
  if (o.cluster.config.empty() && o.cluster.preset.empty())
    throw Error("give a cluster FILE (or --config FILE) or --preset NAME (collsim topo --list)");
  const ClusterConfig c = load_cluster(o.cluster);
  require_graph(*c.topology, fmt::format("{} is a flat network of {} ranks, which has no graph above {} ranks: nothing "
                                         "to draw", c.name, c.ranks, kMaxFlatGraphRanks));
  if (o.format == "dot") {
    std::cout << to_dot(*c.topology, c.name);
    return;
  }
  std::optional<RouteReport> route;
  if (!o.route.empty()) route = route_between(*c.topology, o);
  const TopologyFacts facts = analyze(*c.topology);
  if (o.format == "json") {
    std::cout << to_json(c, facts, route).dump(2) << '\n';
    return;
  }
  print_table(c, facts);
  if (route) print_route(*c.topology, *route);
}

}  // namespace

void add_topo_command(CLI::App& app) {
  auto options = std::make_shared<TopoOptions>();
  auto& o = *options;
  CLI::App* cmd = app.add_subcommand("topo", "Describe a cluster's network: counts, diameter, bisection, runtime, routes, dot");
  add_cluster_options(*cmd, o.cluster, "Cluster YAML");
  cmd->add_flag("--list", o.list, "List the presets");
  cmd->add_flag("--kinds", o.kinds, "List the topology kinds a config may name, with their keys");
  cmd->add_flag("--catalog", o.catalog,
                "List the link technologies a link class may name (technology: nvlink4, ib-ndr, ...), with sources");
  cmd->add_option("--route", o.route, "Print the route between two ranks, e.g. --route 0,9")
      ->delimiter(',')
      ->expected(2)
      ->check(whole_number(0, kMaxRanks));
  cmd->add_option("--flow", o.flow, "Flow id of the printed route (ECMP and Valiant hash on it)")
      ->capture_default_str()
      ->check(whole_number(0, std::numeric_limits<std::uint64_t>::max()));
  cmd->add_option("--format", o.format, "Output: table, json, or dot (Graphviz: dot -Tsvg); csv with --catalog")
      ->check(one_of({"table", "csv", "json", "dot"}))
      ->capture_default_str();
  cmd->callback([options] { run(*options); });
}

}  // namespace collsim::cli
