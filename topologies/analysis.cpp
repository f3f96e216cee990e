// topologies/analysis.cpp — counts, routed diameter, max-flow bisection, Graphviz.
#include "topologies/analysis.hpp"

#include <algorithm>
#include <cmath>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>
#include <fmt/format.h>

namespace collsim {
namespace {

std::vector<LinkClassUse> class_use(const Network& net) {
  std::vector<LinkClassUse> out;
  for (const LinkClass& c : net.link_classes()) out.push_back({c.name, c.bandwidth_Bps, c.latency_s, c.alpha_s, 0});
  for (const Link& l : net.links()) ++out[l.link_class].links;
  return out;
}

// Push-relabel wants integer capacities: bytes/s, rounded.
using FlowTraits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<boost::edge_capacity_t, long long,
                    boost::property<boost::edge_residual_capacity_t, long long,
                                    boost::property<boost::edge_reverse_t, FlowTraits::edge_descriptor>>>>;

void add_arc(FlowGraph& g, std::size_t u, std::size_t v, long long capacity) {
  auto capacity_map = boost::get(boost::edge_capacity, g);
  auto reverse = boost::get(boost::edge_reverse, g);
  const auto forward = boost::add_edge(u, v, g).first;
  const auto backward = boost::add_edge(v, u, g).first;
  capacity_map[forward] = capacity;
  capacity_map[backward] = 0;
  reverse[forward] = backward;
  reverse[backward] = forward;
}

}  // namespace

std::uint32_t routed_diameter(const Topology& t, bool& exact, std::size_t& sources) {
  const std::size_t n = t.endpoints.size();
  exact = n <= 512;
  sources = exact ? n : std::clamp<std::size_t>(kMaxDiameterRoutes / std::max<std::size_t>(n, 1), 1, 64);
  std::uint32_t longest = 0;
  std::vector<LinkId> route;
  for (std::size_t s = 0; s < sources; ++s) {
    const std::size_t src = exact ? s : s * n / sources;
    for (std::size_t dst = 0; dst < n; ++dst) {
      route.clear();
      t.router->route(t.endpoints[src], t.endpoints[dst], 0, route);
      longest = std::max(longest, std::uint32_t(route.size()));
    }
  }
  return longest;
}

double bisection_bandwidth(const Topology& t) {
  const Network& net = t.network;
  const std::size_t n = t.endpoints.size();
  if (n < 2) return 0;
  const std::size_t source = net.vertex_count(), sink = source + 1;
  FlowGraph g(net.vertex_count() + 2);
  long long total = 1;
  for (const Link& l : net.links()) {
    if (l.kind == LinkKind::memory) continue;  // inside an endpoint: cuts nothing
    const long long capacity = std::llround(l.bandwidth_Bps);
    add_arc(g, l.from, l.to, capacity);
    total += capacity;
  }
  // Whole nodes on each side (splitting a node would count its internal links); a single
  // node is split in half.
  std::size_t per_node = std::max<std::size_t>(t.endpoints_per_node, 1);
  if (n / per_node < 2) per_node = 1;
  const std::size_t first_half = (n / per_node) / 2 * per_node;
  for (std::size_t i = 0; i < n; ++i) {
    if (i < first_half)
      add_arc(g, source, t.endpoints[i], total);
    else
      add_arc(g, t.endpoints[i], sink, total);
  }
  return double(boost::push_relabel_max_flow(g, source, sink));
}

TopologyFacts analyze(const Topology& t) {
  const Network& net = t.network;
  TopologyFacts f;
  f.endpoints = t.endpoints.size();
  f.nics = net.count(VertexKind::nic);
  f.switches = net.count(VertexKind::switch_);
  f.cables = net.cable_count();
  f.links = net.link_count();
  f.one_way_links = f.links - 2 * f.cables;  // capacity links, unidirectional rings
  f.classes = class_use(net);
  f.diameter_links = routed_diameter(t, f.diameter_exact, f.diameter_sources);
  f.bisection_Bps = bisection_bandwidth(t);
  return f;
}

std::string to_dot(const Topology& t, const std::string& name) {
  const Network& net = t.network;
  std::string out = fmt::format("digraph \"{}\" {{\n  graph [overlap=false, splines=true];\n", name);
  for (VertexId v = 0; v < net.vertex_count(); ++v) {
    const Vertex& x = net.vertex(v);
    const char* shape = x.kind == VertexKind::switch_ ? "box" : x.kind == VertexKind::nic ? "diamond" : "ellipse";
    out += fmt::format("  v{} [label=\"{}\", shape={}];\n", v, x.name, shape);
  }
  for (LinkId l = 0; l < net.link_count(); ++l) {
    const Link& x = net.link(l);
    const std::string& cls = net.link_class(x.link_class).name;
    if (x.kind == LinkKind::memory) {
      out += fmt::format("  v{} -> v{} [label=\"{}\", style=dotted];\n", x.from, x.to, cls);
    } else if (x.kind == LinkKind::capacity) {
      out += fmt::format("  v{} -> v{} [label=\"{} cap\", style=dashed];\n", x.from, x.to, cls);
    } else if (x.from < x.to || net.find_link(x.to, x.from) == kNoLink) {
      // One edge per cable: the reverse link of a full-duplex pair is drawn by dir=both.
      const bool duplex = net.find_link(x.to, x.from) != kNoLink;
      out += fmt::format("  v{} -> v{} [label=\"{}\"{}];\n", x.from, x.to, cls, duplex ? ", dir=both" : "");
    }
  }
  return out + "}\n";
}

}  // namespace collsim
