// topologies/network.cpp — vertices, links and the frozen Boost.Graph view.
#include "topologies/network.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "base/error.hpp"

namespace collsim {

std::string_view to_string(Transport transport) {
  switch (transport) {
    case Transport::unknown: return "unknown";
    case Transport::nvlink: return "nvlink";
    case Transport::pci: return "pci";
    case Transport::net: return "net";
  }
  return "?";
}

Transport parse_transport(std::string_view name) {
  for (Transport t : {Transport::nvlink, Transport::pci, Transport::net})
    if (to_string(t) == name) return t;
  throw Error(fmt::format("unknown transport '{}' (nvlink, pci, net)", name));
}

std::string_view to_string(VertexKind kind) {
  switch (kind) {
    case VertexKind::endpoint: return "endpoint";
    case VertexKind::nic: return "nic";
    case VertexKind::switch_: return "switch";
    case VertexKind::reducer: return "reducer";
  }
  return "?";
}

namespace {

// A table of factors is a function of the size (rows by increasing from_bytes, the first at
// 0), and nothing may beat the datasheet (efficiency x bandwidth factor <= 1).
void check_factor_table(const LinkClass& c, const std::vector<SizeFactor>& table, std::string_view key) {
  for (std::size_t i = 0; i < table.size(); ++i) {
    const SizeFactor& f = table[i];
    if (i == 0 && f.from_bytes != 0)
      throw Error(fmt::format("link class '{}': {} must start at from_bytes 0 (got {})", c.name, key, f.from_bytes));
    if (i > 0 && f.from_bytes <= table[i - 1].from_bytes)
      throw Error(fmt::format("link class '{}': {} must be sorted by from_bytes, each larger than the last "
                              "({} after {})",
                              c.name, key, f.from_bytes, table[i - 1].from_bytes));
    if (!(f.bandwidth > 0 && f.bandwidth * c.efficiency <= 1 + 1e-12))
      throw Error(fmt::format("link class '{}': {} bandwidth {} at {} bytes must be > 0 and, times the "
                              "efficiency {}, at most 1 (no message beats the datasheet)",
                              c.name, key, f.bandwidth, f.from_bytes, c.efficiency));
    if (!(f.latency > 0 && f.latency <= 1e4))
      throw Error(fmt::format("link class '{}': {} latency {} at {} bytes must be in (0, 10000]", c.name, key,
                              f.latency, f.from_bytes));
  }
}

void check_efficiency_and_factors(const LinkClass& c) {
  if (!(c.efficiency > 0 && c.efficiency <= 1))
    throw Error(fmt::format("link class '{}': efficiency must be in (0, 1] (got {})", c.name, c.efficiency));
  check_factor_table(c, c.size_factors, "size_factors");
  check_factor_table(c, c.exchange_factors, "exchange_factors");
}

}  // namespace

SizeFactor LinkClass::factor_at(std::uint64_t bytes, bool exchange_half) const {
  const std::vector<SizeFactor>& table = exchange_half && !exchange_factors.empty() ? exchange_factors : size_factors;
  SizeFactor row;
  for (const SizeFactor& f : table) {
    if (f.from_bytes > bytes) break;
    row = f;
  }
  return row;
}

bool Network::prices_exchanges() const {
  return std::any_of(classes_.begin(), classes_.end(), [](const LinkClass& c) { return !c.exchange_factors.empty(); });
}

LinkClassId Network::add_link_class(LinkClass c) {
  if (c.name.empty()) throw Error("a link class needs a name");
  if (class_ids_.count(c.name)) throw Error(fmt::format("link class '{}' is defined twice", c.name));
  if (!std::isfinite(c.bandwidth_Bps) || c.bandwidth_Bps <= 0)
    throw Error(fmt::format("link class '{}': bandwidth must be > 0 bytes/s", c.name));
  if (!std::isfinite(c.latency_s) || c.latency_s < 0 || !std::isfinite(c.alpha_s) || c.alpha_s < 0)
    throw Error(fmt::format("link class '{}': latency and alpha must be >= 0 s", c.name));
  check_efficiency_and_factors(c);
  class_ids_.emplace(c.name, LinkClassId(classes_.size()));
  classes_.push_back(std::move(c));
  return LinkClassId(classes_.size() - 1);
}

LinkClassId Network::find_link_class(std::string_view name) const {
  if (const auto it = class_ids_.find(name); it != class_ids_.end()) return it->second;
  std::string known;
  for (std::size_t i = 0; i < classes_.size() && i < 20; ++i) known += (known.empty() ? "" : ", ") + classes_[i].name;
  if (classes_.size() > 20) known += fmt::format(" and {} more", classes_.size() - 20);
  throw Error(fmt::format("unknown link class '{}' (defined: {})", name, known.empty() ? "none" : known));
}

VertexId Network::add_vertex(VertexKind kind, std::string name) {
  if (finalized_) throw Error("network is finalized; no more vertices");
  if (vertices_.size() >= std::numeric_limits<VertexId>::max() - 1) throw Error("network too large");
  vertices_.push_back({kind, std::move(name)});
  return VertexId(vertices_.size() - 1);
}

void Network::set_vertex(VertexId v, VertexKind kind, std::string name) {
  vertices_.at(v) = {kind, std::move(name)};
}

LinkId Network::add_link(VertexId from, VertexId to, LinkClassId link_class, LinkKind kind, double bandwidth_scale) {
  if (finalized_) throw Error("network is finalized; no more links");
  if (from >= vertices_.size() || to >= vertices_.size() || (from == to) != (kind == LinkKind::memory))
    throw Error("link between invalid vertices");
  if (link_class >= classes_.size()) throw Error("link of an unknown class");
  if (!(bandwidth_scale > 0) || !std::isfinite(bandwidth_scale)) throw Error("link bandwidth scale must be > 0");
  if (links_.size() >= std::numeric_limits<LinkId>::max() - 2) throw Error("network too large");
  const LinkClass& c = classes_[link_class];
  links_.push_back({from, to, link_class, kind, c.bandwidth_Bps * bandwidth_scale, c.latency_s});
  return LinkId(links_.size() - 1);
}

LinkId Network::add_memory_link(VertexId v, LinkClassId link_class) {
  return add_link(v, v, link_class, LinkKind::memory);
}

LinkId Network::add_cable(VertexId u, VertexId v, LinkClassId link_class, double bandwidth_scale) {
  return add_split_cable(u, v, v, link_class, bandwidth_scale);
}

LinkId Network::add_split_cable(VertexId u, VertexId v_in, VertexId v_out, LinkClassId link_class, double bandwidth_scale) {
  const LinkId forward = add_link(u, v_in, link_class, LinkKind::cable, bandwidth_scale);
  add_link(v_out, u, link_class, LinkKind::cable, bandwidth_scale);
  ++cables_;
  return forward;
}

void Network::finalize() {
  if (finalized_) return;
  std::vector<std::pair<VertexId, VertexId>> edges;
  std::vector<LinkId> ids;
  edges.reserve(links_.size());
  ids.reserve(links_.size());
  for (LinkId l = 0; l < links_.size(); ++l) {
    if (links_[l].kind == LinkKind::memory) continue;  // from an endpoint to itself: no way anywhere
    edges.emplace_back(links_[l].from, links_[l].to);
    ids.push_back(l);
  }
  graph_ = Graph(boost::edges_are_unsorted_multi_pass, edges.begin(), edges.end(), ids.begin(), vertices_.size());
  finalized_ = true;
}

const Network::Graph& Network::graph() const {
  if (!finalized_) throw Error("network graph used before finalize()");
  return graph_;
}

std::size_t Network::count(VertexKind kind) const {
  return std::size_t(std::count_if(vertices_.begin(), vertices_.end(), [kind](const Vertex& v) { return v.kind == kind; }));
}

LinkId Network::find_link(VertexId from, VertexId to) const {
  if (from >= vertices_.size()) return kNoLink;
  if (finalized_) {
    for (auto [e, end] = boost::out_edges(from, graph_); e != end; ++e)
      if (boost::target(*e, graph_) == to) return graph_[*e];
    return kNoLink;
  }
  for (LinkId l = 0; l < links_.size(); ++l)
    if (links_[l].from == from && links_[l].to == to) return l;
  return kNoLink;
}

std::vector<VertexId> Network::endpoints() const {
  std::vector<VertexId> out;
  for (VertexId v = 0; v < vertices_.size(); ++v)
    if (vertices_[v].kind == VertexKind::endpoint) out.push_back(v);
  return out;
}

}  // namespace collsim
