// topologies/builders/nodes.cpp — multi-GPU nodes (NVSwitch/PCIe, NIC per GPU or per node) on a fabric.
//
// One node, one NIC per GPU (GPU i cabled to NIC i), without a backplane:
//
//        gpu0  gpu1 ... gpuG-1        fabric
//          \    |     /               ^    ^
//          n.nvswitch            nic0 ... nicG-1   (fabric endpoints, re-kinded to nic)
//
// With shared NICs the NICs hang off the switch instead. With a backplane the switch is two
// vertices, n.nvswitch.in -> n.nvswitch.out (one capacity link); each GPU (and shared NIC)
// sends into .in and receives from .out, so every flow through the switch crosses it
// (Network::add_split_cable: still one cable).
//
// With `reduction: nvls` each node's switch gets a reducer vertex, n.nvswitch.reducer, with
// a link from the switch (.in) carrying what it reduces and one back to the switch (.out)
// carrying the multicast (SwitchReduction in builders.hpp).
//
// With PXN (NCCL's PCI x NVLink, on by default on rail-optimized NVSwitch nodes) a transfer
// to another node leaves by the NIC of its node on the destination NIC's rail: from GPU i to
// GPU j of the next node, n.gpu{i} -> n.nvswitch -> n.gpu{j} -> n.nic{j} -> rail j -> ...
//
// With peer links (DGX-1 V100's hybrid cube-mesh) a node's GPUs are also cabled pairwise:
//
//     gpu0 ==== gpu3        == two NVLinks, -- one (cube-mesh: two quads joined 0-4, 1-5,
//      |  \   / ||             2-6, 3-7); pairs without a cable go GPU -> switch -> GPU
//     gpu1 ==== gpu2
#include "topologies/builders/builders.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "topologies/builders/fabric_util.hpp"

namespace collsim {
namespace {

constexpr std::uint64_t kMaxGpus = fabric::kMaxEndpoints;

// Both directions of every attachment, as ids (up, up + 1).
struct NodeLinks {
  VertexId first_gpu = 0;
  std::uint32_t gpus = 0, nics = 0;     // per node
  std::vector<LinkId> gpu_up, gpu_down;  // GPU -> switch (.in), switch (.out) -> GPU
  std::vector<LinkId> backplane;         // per node: .in -> .out, or kNoLink
  std::vector<VertexId> nic;             // [node * nics + j]: NIC j's vertex (a fabric endpoint)
  std::vector<LinkId> nic_in, nic_out;   // into the NIC (from its GPU or the switch), out of it

  std::vector<LinkId> peer;              // [node * gpus^2 + a * gpus + b]: cable a -> b, or kNoLink
  bool pxn = false;                      // between nodes, leave by the NIC on the destination's rail

  std::uint32_t node_of(std::uint32_t gpu) const { return gpu / gpus; }
  LinkId peer_link(std::uint32_t src, std::uint32_t dst) const {
    if (peer.empty()) return kNoLink;
    return peer[std::size_t(node_of(src)) * gpus * gpus + src % gpus * gpus + dst % gpus];
  }
  bool dedicated() const { return nics == gpus; }
  std::uint32_t nic_of(std::uint32_t gpu) const { return node_of(gpu) * nics + gpu % gpus * nics / gpus; }
};

class NodesRouter final : public Router {
 public:
  NodesRouter(NodeLinks links, std::unique_ptr<Router> fabric) : l_(std::move(links)), fabric_(std::move(fabric)) {}

  void route(VertexId src, VertexId dst, std::uint64_t flow, std::vector<LinkId>& out) const override {
    if (src == dst) return;
    const std::uint32_t s = gpu(src), d = gpu(dst);
    if (l_.node_of(s) == l_.node_of(d)) {
      if (const LinkId direct = l_.peer_link(s, d); direct != kNoLink) {
        out.push_back(direct);
        return;
      }
      through_switch(s, out);
      out.push_back(l_.gpu_down[d]);
      return;
    }
    const std::uint32_t nic = leaving_nic(s, d);
    if (!l_.dedicated()) through_switch(s, out);
    else if (nic != l_.nic_of(s)) to_proxy(s, nic % l_.nics + l_.node_of(s) * l_.gpus, out);
    out.push_back(l_.nic_in[nic]);
    fabric_->route(l_.nic[nic], l_.nic[l_.nic_of(d)], flow, out);
    out.push_back(l_.nic_out[l_.nic_of(d)]);
    if (l_.dedicated()) return;
    backplane(l_.node_of(d), out);
    out.push_back(l_.gpu_down[d]);
  }

 private:
  std::uint32_t gpu(VertexId v) const {
    if (v < l_.first_gpu || v - l_.first_gpu >= l_.gpu_up.size())
      throw Error(fmt::format("nodes routing: vertex {} is not one of its GPUs", v));
    return v - l_.first_gpu;
  }
  // The NIC a transfer from GPU s to GPU d of another node leaves by: s's own, or with PXN
  // the NIC of s's node on the rail of d's NIC (its index within the node), so the transfer
  // stays on one rail of the fabric (NCCL 2.12+, "PXN": PCI x NVLink).
  std::uint32_t leaving_nic(std::uint32_t s, std::uint32_t d) const {
    if (!l_.pxn) return l_.nic_of(s);
    return l_.node_of(s) * l_.nics + l_.nic_of(d) % l_.nics;
  }
  // PXN's hand-off: GPU s writes into the memory of the GPU that owns the NIC (its peer cable,
  // or through the switch), and that NIC reads it from there.
  void to_proxy(std::uint32_t s, std::uint32_t proxy, std::vector<LinkId>& out) const {
    if (const LinkId direct = l_.peer_link(s, proxy); direct != kNoLink) {
      out.push_back(direct);
      return;
    }
    through_switch(s, out);
    out.push_back(l_.gpu_down[proxy]);
  }
  void through_switch(std::uint32_t gpu, std::vector<LinkId>& out) const {
    out.push_back(l_.gpu_up[gpu]);
    backplane(l_.node_of(gpu), out);
  }
  void backplane(std::uint32_t node, std::vector<LinkId>& out) const {
    if (l_.backplane[node] != kNoLink) out.push_back(l_.backplane[node]);
  }

  NodeLinks l_;
  std::unique_ptr<Router> fabric_;
};

// Each pair names two different GPUs of the node, once, with at least one link.
void validate_peer_links(const NodesParams& p) {
  std::vector<bool> seen(std::size_t(p.gpus_per_node) * p.gpus_per_node, false);
  for (const GpuPairLinks& pair : p.peer_links) {
    const std::string which = fmt::format("nodes: GPU pair [{}, {}, {}]", pair.a, pair.b, pair.links);
    if (pair.a >= p.gpus_per_node || pair.b >= p.gpus_per_node)
      throw Error(fmt::format("{}: GPUs are numbered 0..{} within a node", which, p.gpus_per_node - 1));
    if (pair.a == pair.b) throw Error(fmt::format("{}: a GPU is not linked to itself", which));
    if (pair.links < 1) throw Error(fmt::format("{}: links must be >= 1", which));
    const std::size_t key = std::size_t(std::min(pair.a, pair.b)) * p.gpus_per_node + std::max(pair.a, pair.b);
    if (seen[key]) throw Error(fmt::format("{}: the pair is listed twice (give its links once)", which));
    seen[key] = true;
  }
}

void validate(const Network& net, const NodesParams& p, const Fabric& fabric) {
  if (p.nodes < 1) throw Error("nodes: nodes must be >= 1 (got 0)");
  if (p.gpus_per_node < 1) throw Error("nodes: gpus_per_node must be >= 1 (got 0)");
  if (p.nics_per_node < 1 || p.nics_per_node > p.gpus_per_node || p.gpus_per_node % p.nics_per_node != 0)
    throw Error(fmt::format("nodes: nics_per_node must be in 1..gpus_per_node and divide gpus_per_node = {} (got {})",
                            p.gpus_per_node, p.nics_per_node));
  if (std::uint64_t(p.nodes) * p.gpus_per_node > kMaxGpus)
    throw Error(fmt::format("nodes: nodes*gpus_per_node = {} must be <= {}", std::uint64_t(p.nodes) * p.gpus_per_node,
                            kMaxGpus));
  if (p.backplane_Bps && !(std::isfinite(*p.backplane_Bps) && *p.backplane_Bps > 0))
    throw Error(fmt::format("nodes: backplane_Bps must be > 0 (got {})", *p.backplane_Bps));
  const std::uint64_t needed = std::uint64_t(p.nodes) * p.nics_per_node;
  const bool lone_node = p.nodes == 1 && fabric.endpoints.empty();
  if (fabric.endpoints.size() < needed && !lone_node)
    throw Error(fmt::format("nodes: the fabric has {} endpoints but nodes*nics_per_node = {} NICs need one each",
                            fabric.endpoints.size(), needed));
  if (!lone_node && !fabric.router) throw Error("nodes: the fabric has no router");
  for (const auto& [name, id] : {std::pair{"gpu_link", p.gpu_link}, std::pair{"nic_link", p.nic_link},
                                 std::pair{"peer_link", p.peer_link}})
    if (id >= net.link_classes().size())
      throw Error(fmt::format("nodes: {} = {} is not a link class of the network", name, id));
  validate_peer_links(p);
  if (p.pxn.value_or(false) && p.switch_name != "nvswitch")
    throw Error(fmt::format("nodes: pxn: true hands data over NVLink through an NVSwitch, not a {} switch; drop 'pxn' "
                            "or use switch: nvswitch",
                            p.switch_name));
  if (p.reduction && p.switch_name != "nvswitch")
    throw Error(fmt::format("nodes: reduction: nvls needs an NVSwitch, not a {} switch (only NVSwitch gen3+ reduces: "
                            "NVLink SHARP); drop 'reduction' or use switch: nvswitch",
                            p.switch_name));
}

// The two link classes of the node switches' reducers: what they reduce, and the multicast
// path back, G GPU links wide (SwitchReduction).
std::pair<LinkClassId, LinkClassId> add_reducer_classes(Network& net, const NodesParams& p) {
  const LinkClassId reduce = net.add_link_class(
      {.name = "nvls-reduction", .bandwidth_Bps = p.reduction->throughput_Bps, .latency_s = p.reduction->latency_s});
  const LinkClassId multicast = net.add_link_class(
      {.name = "nvls-multicast", .bandwidth_Bps = p.gpus_per_node * net.link_class(p.gpu_link).bandwidth_Bps});
  return {reduce, multicast};
}

VertexId add_reducer(Network& net, std::uint32_t node, std::pair<VertexId, VertexId> sw,
                     std::pair<LinkClassId, LinkClassId> classes, const NodesParams& p) {
  const VertexId reducer = net.add_vertex(VertexKind::reducer, fmt::format("n{}.{}.reducer", node, p.switch_name));
  net.add_link(sw.first, reducer, classes.first, LinkKind::capacity);
  net.add_link(reducer, sw.second, classes.second, LinkKind::capacity);
  return reducer;
}

// The node's switch: one vertex, or .in/.out joined by the backplane. Returns {in, out}.
std::pair<VertexId, VertexId> add_switch(Network& net, const NodesParams& p, std::uint32_t node, NodeLinks& l) {
  const std::string name = fmt::format("n{}.{}", node, p.switch_name);
  if (!p.backplane_Bps) {
    const VertexId v = net.add_vertex(VertexKind::switch_, name);
    l.backplane.push_back(kNoLink);
    return {v, v};
  }
  const VertexId in = net.add_vertex(VertexKind::switch_, name + ".in");
  const VertexId out = net.add_vertex(VertexKind::switch_, name + ".out");
  const double scale = *p.backplane_Bps / net.link_class(p.gpu_link).bandwidth_Bps;
  l.backplane.push_back(net.add_link(in, out, p.gpu_link, LinkKind::capacity, scale));
  return {in, out};
}

// Both directions between a vertex and the switch halves (one vertex when no backplane).
std::pair<LinkId, LinkId> attach(Network& net, VertexId v, std::pair<VertexId, VertexId> sw, LinkClassId link) {
  const LinkId up = net.add_split_cable(v, sw.first, sw.second, link);
  return {up, up + 1};
}

// Fabric endpoint e becomes NIC j of node n (rail-optimized: e = j * nodes + n); the rest
// stay NICs that no GPU uses.
void adopt_nics(Network& net, const NodesParams& p, const Fabric& fabric, NodeLinks& l) {
  if (fabric.endpoints.empty()) return;
  std::vector<bool> used(fabric.endpoints.size(), false);
  l.nic.resize(std::size_t(p.nodes) * p.nics_per_node);
  for (std::uint32_t n = 0; n < p.nodes; ++n)
    for (std::uint32_t j = 0; j < p.nics_per_node; ++j) {
      const std::size_t e = p.rail_optimized ? std::size_t(j) * p.nodes + n : std::size_t(n) * p.nics_per_node + j;
      used[e] = true;
      l.nic[n * p.nics_per_node + j] = fabric.endpoints[e];
      net.set_vertex(fabric.endpoints[e], VertexKind::nic, fmt::format("n{}.nic{}", n, j));
    }
  for (std::size_t e = 0; e < used.size(); ++e)
    if (!used[e]) net.set_vertex(fabric.endpoints[e], VertexKind::nic, fmt::format("nic.unused.{}", e));
}

// One cable per GPU pair of the node, `links` times the peer class's rate.
void cable_peers(Network& net, const NodesParams& p, std::uint32_t node, NodeLinks& l) {
  if (p.peer_links.empty()) return;
  const std::uint32_t g = p.gpus_per_node, first = node * g;
  l.peer.resize(std::size_t(node + 1) * g * g, kNoLink);
  for (const GpuPairLinks& pair : p.peer_links) {
    const LinkId c = net.add_cable(l.first_gpu + first + pair.a, l.first_gpu + first + pair.b, p.peer_link,
                                   double(pair.links));
    l.peer[std::size_t(node) * g * g + pair.a * g + pair.b] = c;
    l.peer[std::size_t(node) * g * g + pair.b * g + pair.a] = c + 1;
  }
}

std::pair<VertexId, VertexId> cable_node(Network& net, const NodesParams& p, std::uint32_t node, NodeLinks& l) {
  const auto sw = add_switch(net, p, node, l);
  for (std::uint32_t i = node * p.gpus_per_node; i < (node + 1) * p.gpus_per_node; ++i) {
    const auto [up, down] = attach(net, l.first_gpu + i, sw, p.gpu_link);
    l.gpu_up.push_back(up);
    l.gpu_down.push_back(down);
  }
  cable_peers(net, p, node, l);
  if (l.nic.empty()) return sw;
  for (std::uint32_t j = node * p.nics_per_node; j < (node + 1) * p.nics_per_node; ++j) {
    const VertexId nic = l.nic[j];
    if (l.dedicated()) {
      const LinkId c = net.add_cable(l.first_gpu + j, nic, p.nic_link);  // GPU j is NIC j's
      l.nic_in.push_back(c);
      l.nic_out.push_back(c + 1);
    } else {
      const auto [from_nic, to_nic] = attach(net, nic, sw, p.nic_link);
      l.nic_in.push_back(to_nic);
      l.nic_out.push_back(from_nic);
    }
  }
  return sw;
}

// PXN where the config asks for it, or by default where a node has several NICs on
// separate rails and an NVSwitch to hand data to any of their GPUs (NCCL enables PXN by
// default since 2.12; it hands over only on NVLink, never over PCIe).
bool pxn_enabled(const NodesParams& p) {
  if (p.pxn) return *p.pxn;
  return p.nics_per_node > 1 && p.rail_optimized && p.switch_name == "nvswitch";
}

std::string plural(std::uint32_t n, std::string_view noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

std::string summary(const NodesParams& p, const Fabric& fabric) {
  const std::string backplane =
      p.backplane_Bps ? fmt::format(", backplane {:g} GB/s", to_GBps(*p.backplane_Bps)) : std::string();
  std::uint32_t peer_links = 0;
  for (const GpuPairLinks& pair : p.peer_links) peer_links += pair.links;
  const std::string peers =
      p.peer_links.empty() ? std::string()
                           : fmt::format(", GPU-GPU links: {} pairs, {}", p.peer_links.size(), plural(peer_links, "link"));
  const std::string reduction =
      p.reduction ? fmt::format(", reduces: nvls {:g} GB/s", to_GBps(p.reduction->throughput_Bps)) : std::string();
  const std::string head = fmt::format("{} x {} ({}{}{}{})", plural(p.nodes, "node"), plural(p.gpus_per_node, "GPU"),
                                       p.switch_name, backplane, peers, reduction);
  if (fabric.endpoints.empty()) return head + ", no NICs";
  // With one NIC per node there are no rails to optimize.
  const std::string layout = p.nics_per_node == 1    ? ""
                             : !p.rail_optimized     ? ", node-major"
                             : pxn_enabled(p)        ? ", rail-optimized, PXN"
                                                     : ", rail-optimized";
  return fmt::format("{}, {} per node{}, on: {}", head, plural(p.nics_per_node, "NIC"), layout, fabric.summary);
}

}  // namespace

NodesFabric build_nodes(Network& net, const NodesParams& p, Fabric fabric) {
  validate(net, p, fabric);
  NodesFabric result;
  NodeLinks l;
  l.gpus = p.gpus_per_node;
  l.nics = p.nics_per_node;
  l.pxn = pxn_enabled(p);
  l.first_gpu = VertexId(net.vertex_count());
  result.fabric.endpoints.reserve(std::size_t(p.nodes) * p.gpus_per_node);
  result.node_of.reserve(result.fabric.endpoints.capacity());
  for (std::uint32_t i = 0; i < p.nodes * p.gpus_per_node; ++i) {
    result.fabric.endpoints.push_back(
        net.add_vertex(VertexKind::endpoint, fmt::format("n{}.gpu{}", i / p.gpus_per_node, i % p.gpus_per_node)));
    result.node_of.push_back(i / p.gpus_per_node);
  }
  adopt_nics(net, p, fabric, l);
  const auto reducer_classes = p.reduction ? add_reducer_classes(net, p) : std::pair<LinkClassId, LinkClassId>{};
  for (std::uint32_t n = 0; n < p.nodes; ++n) {
    const auto sw = cable_node(net, p, n, l);
    if (p.reduction) result.reducers.push_back(add_reducer(net, n, sw, reducer_classes, p));
  }
  result.fabric.summary = summary(p, fabric);
  result.fabric.router = std::make_unique<NodesRouter>(std::move(l), std::move(fabric.router));
  return result;
}

}  // namespace collsim
