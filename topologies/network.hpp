// topologies/network.hpp — the network as a graph: vertices are endpoints (where a rank can
// sit: a GPU, a host's NIC, a torus chip), NICs and switches/routers; edges are directed
// links, each with a bandwidth (bytes/s) and a latency (s) taken from a named link class.
// A physical cable is full duplex: add_cable() makes two links, u->v with id c and v->u
// with id c+1. A capacity that is not a cable (a switch backplane, a node's shared memory)
// is a one-way link too, so contention is always "flows sharing links".
//
// Build order: add classes, vertices, cables; then finalize(), which freezes the network and
// builds the Boost.Graph view that shortest paths, diameters and max-flow work on.
// Units: bytes, seconds, bytes/s.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/graph/compressed_sparse_row_graph.hpp>

namespace collsim {

using VertexId = std::uint32_t;
using LinkId = std::uint32_t;
using LinkClassId = std::uint32_t;
inline constexpr LinkId kNoLink = ~LinkId(0);

// reducer: a switch's in-network reduction engine (NVLink SHARP, InfiniBand SHARP), its own
// vertex beside the switch so that its throughput is a link flows share (builders.hpp).
enum class VertexKind : std::uint8_t { endpoint, nic, switch_, reducer };
std::string_view to_string(VertexKind kind);

// A kind of link, as a config names it: `nvlink4`, `pcie5`, `ib-ndr`, `aries-optical`.
// One row of a link class's size factors (SimGrid SMPI's bandwidth and latency factors): a
// message of s bytes uses the row with the largest from_bytes <= s. Its bandwidth is
// bandwidth_Bps x efficiency x `bandwidth`; its alpha and hop latencies are multiplied by
// `latency` (sim/cost_rule.hpp applies them).
struct SizeFactor {
  std::uint64_t from_bytes = 0;
  double bandwidth = 1;
  double latency = 1;
  friend bool operator==(const SizeFactor&, const SizeFactor&) = default;
};

// What carries a link class's messages, as a collective library tells its paths apart (NCCL's
// NVLink, PCI and NET latencies, sim/runtime.hpp): GPU links, the PCIe fabric, or a network
// through a NIC. unknown: a class given by its numbers alone, which no runtime prices.
// Ordered by scope: a route that crosses several is of the widest (sim/cost_rule.cpp).
enum class Transport : std::uint8_t { unknown, nvlink, pci, net };
inline constexpr std::size_t kTransports = 4;
std::string_view to_string(Transport transport);
Transport parse_transport(std::string_view name);  // nvlink, pci, net; throws Error naming them

struct LinkClass {
  std::string name;
  double bandwidth_Bps = 0;  // per direction, the datasheet rate
  double latency_s = 0;      // per hop, summed along a route
  double alpha_s = 0;        // per-message software overhead; a route pays the largest on it once
  double efficiency = 1;     // the fraction of bandwidth_Bps large messages achieve, in (0, 1]
  std::vector<SizeFactor> size_factors;  // by from_bytes, the first at 0; empty: all factors 1
  // The rows for a message that is one half of an exchange (its receiver sends to its sender in
  // the same step): both ranks then send and receive at once, which a CPU rank pays in start-up
  // (each core handles both messages' handshakes). Same rules as size_factors; empty: the
  // halves of an exchange use size_factors like every other message.
  std::vector<SizeFactor> exchange_factors;
  Transport transport = Transport::unknown;  // what carries its messages (a runtime's step latency)

  // The row a message of `bytes` uses (all ones without a table); `exchange_half`: one half of
  // an exchange, which takes exchange_factors where the class has them.
  SizeFactor factor_at(std::uint64_t bytes, bool exchange_half = false) const;
};

// cable: one direction of a cable. capacity: a budget that is not a cable (a switch's
// backplane). memory: a rank's memory (a GPU's HBM, a core's share of DRAM), from its endpoint
// to itself: every transfer into or out of the endpoint crosses it, and so do its reductions
// (topologies/topology.hpp); it leads nowhere, so it is not an edge of the graph view.
enum class LinkKind : std::uint8_t { cable, capacity, memory };

struct Link {
  VertexId from = 0;
  VertexId to = 0;
  LinkClassId link_class = 0;
  LinkKind kind = LinkKind::cable;
  double bandwidth_Bps = 0;  // the class's, times the builder's scale (tapering)
  double latency_s = 0;
};

struct Vertex {
  VertexKind kind = VertexKind::endpoint;
  std::string name;
};

class Network {
 public:
  // The Boost.Graph view: vertex ids as above; each edge's bundle is its LinkId.
  using Graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, LinkId, boost::no_property,
                                                    VertexId, LinkId>;

  LinkClassId add_link_class(LinkClass link_class);  // throws Error on a duplicate name or bandwidth <= 0
  LinkClassId find_link_class(std::string_view name) const;  // throws Error naming the known classes
  const LinkClass& link_class(LinkClassId id) const { return classes_[id]; }
  const std::vector<LinkClass>& link_classes() const { return classes_; }
  // Whether some class prices the halves of an exchange apart (exchange_factors): only then
  // do the engines look for exchanges in a schedule.
  bool prices_exchanges() const;

  VertexId add_vertex(VertexKind kind, std::string name);
  void set_vertex(VertexId v, VertexKind kind, std::string name);  // e.g. a fabric endpoint becomes a NIC
  // Two links: the returned id is u->v, id+1 is v->u. Bandwidth is the class's times scale.
  LinkId add_cable(VertexId u, VertexId v, LinkClassId link_class, double bandwidth_scale = 1.0);
  // A cable to a switch split by a backplane into v_in and v_out: u -> v_in is the returned
  // id, v_out -> u is id+1.
  LinkId add_split_cable(VertexId u, VertexId v_in, VertexId v_out, LinkClassId link_class,
                         double bandwidth_scale = 1.0);
  LinkId add_link(VertexId from, VertexId to, LinkClassId link_class, LinkKind kind, double bandwidth_scale = 1.0);
  // The memory link of endpoint v (v -> v, LinkKind::memory), of the class's bandwidth.
  LinkId add_memory_link(VertexId v, LinkClassId link_class);

  void finalize();
  bool finalized() const { return finalized_; }
  const Graph& graph() const;  // only after finalize()

  std::size_t vertex_count() const { return vertices_.size(); }
  std::size_t link_count() const { return links_.size(); }
  std::size_t cable_count() const { return cables_; }  // add_cable() calls: two links each
  std::size_t count(VertexKind kind) const;
  const Vertex& vertex(VertexId v) const { return vertices_[v]; }
  const Link& link(LinkId l) const { return links_[l]; }
  const std::vector<Link>& links() const { return links_; }
  // The link from -> to (the first of parallel ones), or kNoLink. After finalize() it scans
  // from's out-edges.
  LinkId find_link(VertexId from, VertexId to) const;
  // Vertices of kind endpoint, in creation order (a builder's endpoint i is endpoints()[i]
  // when the network holds one fabric).
  std::vector<VertexId> endpoints() const;

 private:
  std::vector<LinkClass> classes_;
  std::map<std::string, LinkClassId, std::less<>> class_ids_;  // by name: many classes load in n log n
  std::vector<Vertex> vertices_;
  std::vector<Link> links_;
  Graph graph_;
  std::size_t cables_ = 0;
  bool finalized_ = false;
};

// A route: the directed links a transfer crosses, in order.
using Route = std::vector<LinkId>;

}  // namespace collsim
