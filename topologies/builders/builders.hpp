// topologies/builders/builders.hpp — the fabrics collsim can build, each into a Network that
// may already hold other vertices, each with the Router for the chosen routing mode.
// Parameters are validated (Error naming the parameter and the rule it breaks); sizes follow
// the literature (docs/design.md section 5) and tests check them.
//
// A builder appends its endpoints to the network in index order and returns them; the
// Router it returns routes between those endpoints (vertex ids), and may keep a pointer to
// the network (it must outlive the router). Builders implement minimal and ecmp; dragonfly
// adds valiant; shortest-path is the generic ShortestPathRouter, built by the caller.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "topologies/network.hpp"
#include "topologies/routing.hpp"

namespace collsim {

struct Fabric {
  std::vector<VertexId> endpoints;  // endpoint i of the fabric
  std::unique_ptr<Router> router;
  std::string summary;              // e.g. "XGFT(3; 4,4,4; 1,4,4), 64 hosts, 48 switches"
};

// Endpoints cabled in a ring, no switches; unidirectional: only i -> i+1 links.
// Minimal routing goes the short way (ties: forward); ecmp breaks ties by hash.
struct RingParams {
  std::uint32_t endpoints = 0;  // >= 2
  bool bidirectional = true;
  LinkClassId link = 0;
};
Fabric build_ring(Network& net, const RingParams& p, RoutingMode mode, std::uint64_t seed);

// A direct torus: every endpoint is a router cabled to its +1 neighbour in each dimension
// (wrap-around; a dimension of 2 has one cable, of 1 none). Endpoint index: dimension 0
// varies fastest. Minimal = dimension order, short way round (ties: +); ecmp picks the next
// dimension and tie directions by hash among the minimal moves.
struct TorusParams {
  std::vector<std::uint32_t> dims;  // 1..6 dimensions, each >= 1, product >= 2
  LinkClassId link = 0;
};
Fabric build_torus(Network& net, const TorusParams& p, RoutingMode mode, std::uint64_t seed);

// One switch; with a backplane the switch is two vertices joined by one capacity link
// (in -> out) that every flow crosses.
struct StarParams {
  std::uint32_t endpoints = 0;  // >= 1
  LinkClassId link = 0;
  std::optional<double> backplane_Bps;
};
Fabric build_star(Network& net, const StarParams& p, RoutingMode mode, std::uint64_t seed);

// Every pair of endpoints has its own cable: contention-free, the analytic reference.
// At most 2048 endpoints (the cables grow as n^2).
struct FullParams {
  std::uint32_t endpoints = 0;  // 1..2048
  LinkClassId link = 0;
};
Fabric build_full(Network& net, const FullParams& p, RoutingMode mode, std::uint64_t seed);

// XGFT(h; m1..mh; w1..wh) (Ohring et al. 1995): level-0 hosts, levels 1..h of switches; a
// level-l switch has m_l children and each level-(l-1) vertex has w_l parents. Hosts:
// prod m; switches at level l: prod_{i>l} m_i * prod_{i<=l} w_i. Cables between levels l-1
// and l use links[l-1] with bandwidth scaled by taper[l-1] (1 = full; 0.5 = 2:1 tapered).
// Minimal = D-mod-k: going up from level l-1, the parent is
// floor(dst / prod_{i<l} w_i) mod w_l, up to the nearest common ancestor level, then the
// unique path down. ecmp: parents chosen by hash.
struct XgftParams {
  std::vector<std::uint32_t> m;  // children per switch, level 1..h
  std::vector<std::uint32_t> w;  // parents per vertex, level 1..h
  std::vector<LinkClassId> links;  // per level, size h
  std::vector<double> taper;       // per level, size h, in (0, 1]; empty = all 1
};
XgftParams k_ary_n_tree(std::uint32_t k, std::uint32_t n, LinkClassId link);  // k^n hosts, n k^(n-1) switches
XgftParams al_fares(std::uint32_t k, LinkClassId link);  // k pods, k^3/4 hosts, (k/2)^2 cores (k even)
Fabric build_xgft(Network& net, const XgftParams& p, RoutingMode mode, std::uint64_t seed);

// Dragonfly (Kim, Dally, Scott, Abts 2008): g groups of a routers, p terminals per router,
// h global links per router, routers of a group all-to-all. g <= a*h + 1; with fewer groups
// each pair of groups gets floor(a*h / (g-1)) global links (left-over ports unused).
// Global port k of a group (router k / h) reaches another group by the arrangement:
//   absolute:  slot s -> group s, skipping the own group;
//   relative:  slot s -> group (i + s + 1) mod g;
//   circulant: slots in pairs at offsets +(s/2+1), -(s/2+1) (Hastings et al. 2015);
// where s = k mod (g-1) and copy k / (g-1). Minimal: local, global, local (<= 3 router hops,
// one global); deterministic copy = dst mod copies, ecmp hashes it; valiant goes minimal to a
// random intermediate group (not src's or dst's), then minimal to dst.
enum class GlobalArrangement : std::uint8_t { absolute, relative, circulant };
GlobalArrangement parse_global_arrangement(std::string_view name);
struct DragonflyParams {
  std::uint32_t p = 0, a = 0, h = 0, g = 0;  // g = 0: a*h + 1
  GlobalArrangement arrangement = GlobalArrangement::absolute;
  LinkClassId terminal_link = 0, local_link = 0, global_link = 0;
};
Fabric build_dragonfly(Network& net, const DragonflyParams& p, RoutingMode mode, std::uint64_t seed);

// Multi-GPU nodes on top of a fabric. Each node has G GPUs (the endpoints ranks sit on)
// cabled to one internal switch (NVSwitch or PCIe switch; with backplane_Bps, the switch is
// two vertices, in and out, joined by one capacity link every intra-node flow crosses) and
// nics_per_node NICs. With one NIC per GPU, GPU i is cabled straight to NIC i; with fewer,
// the NICs hang off the internal switch and GPU i uses NIC i * nics / G.
// The fabric's endpoints become the NICs (unused ones stay as NICs without a node): NIC j
// of node n is fabric endpoint j * nodes + n when rail_optimized (rail j's NICs share
// leaves: "NIC i of every node on rail switch i"), else n * nics + j. `fabric` is built
// first on the same network and needs >= nodes * nics endpoints; with nodes == 1 it may be
// an empty Fabric (no NICs then).
// Optionally GPUs of a node are also cabled to each other (`peer_links`: DGX-1's hybrid
// cube-mesh of NVLink 2): a pair {a, b, links} is one cable of `links` x peer_link's rate.
// Routes: same node -> the pair's own cable when it has one, else GPU, switch, GPU (and the
// backplane; no forwarding through a third GPU, as CUDA peer copies do without NVLink);
// otherwise GPU -> its NIC (via the switch when shared) -> fabric route -> the destination
// GPU's NIC -> destination GPU. With PXN (`pxn`) the route leaves instead by the source node's
// NIC on the destination NIC's rail: GPU -> (switch or peer cable) -> that NIC's GPU -> NIC,
// so a transfer between nodes stays on one rail (a ring's channel keeps to its rail).
// In-network reduction in a node's switch (NVLink SHARP, `reduction: nvls`): a reducer vertex
// beside the switch, joined by two capacity links. switch -> reducer carries every byte the
// switch reduces, at `throughput_Bps` shared by all of them, plus `latency_s`; reducer ->
// switch carries the multicast back: a multicast to G GPUs is G transfers that each leave
// through their GPU's downlink, so this link offers G times the GPU link's rate and is never
// the bottleneck before the downlinks are (docs/semantics.md, "In-network reduction").
struct SwitchReduction {
  double throughput_Bps = 0;
  double latency_s = 0;
};

struct GpuPairLinks {
  std::uint32_t a = 0, b = 0;  // GPU indices within the node, a != b
  std::uint32_t links = 1;     // parallel links of peer_link between them, >= 1
};
struct NodesParams {
  std::uint32_t nodes = 0;
  std::uint32_t gpus_per_node = 0;
  std::uint32_t nics_per_node = 1;  // 1..G, divides G
  bool rail_optimized = true;
  LinkClassId gpu_link = 0;  // GPU <-> internal switch
  LinkClassId nic_link = 0;  // GPU <-> NIC (one per GPU) or internal switch <-> NIC
  std::optional<double> backplane_Bps;
  std::string switch_name = "nvswitch";  // names the internal switch vertices: n3.nvswitch
  std::vector<GpuPairLinks> peer_links;  // the same in every node; each pair at most once
  LinkClassId peer_link = 0;             // one link of a GPU pair (e.g. one NVLink 2)
  std::optional<SwitchReduction> reduction;  // the switch reduces (NVSwitch only)
  // PXN: a transfer between nodes leaves by its node's NIC on the destination NIC's rail,
  // handed over NVLink to that NIC's GPU. Unset: on where rail-optimized NICs (more than
  // one) sit by an NVSwitch (build_nodes); true needs an NVSwitch.
  std::optional<bool> pxn;
};
struct NodesFabric {
  Fabric fabric;                       // endpoints = GPUs, node-major; router over all
  std::vector<std::uint32_t> node_of;  // node of each GPU endpoint
  std::vector<VertexId> reducers;      // node n's switch reducer; empty when the switch does not reduce
};
NodesFabric build_nodes(Network& net, const NodesParams& p, Fabric fabric);

// In-network reduction in the fabric's switches (InfiniBand SHARP, `topology: reduction:
// sharp`), modelled as ONE logical reducer: the root of SHARP's aggregation tree, reached from
// every endpoint's leaf switch (the switch its link leads to). Vertices sharp.tree.in ->
// sharp.reducer -> sharp.tree.out: every leaf has a link into .in and one back from .out, as
// wide as all the fabric's endpoint links together (never the bottleneck: each flow's own NIC
// link is); .in -> reducer carries every byte the tree reduces, at `throughput_Bps` shared by
// all of them, plus `latency_s` (the tree's depth); reducer -> .out carries the multicast back,
// as wide as the leaf links. A path never passes through a reducer (routing.hpp), so ranks'
// traffic cannot cut through the tree. Call before build_nodes, on the fabric's endpoints;
// throws Error when an endpoint is cabled to no switch (a ring, torus or full fabric).
VertexId add_fabric_reducer(Network& net, const Fabric& fabric, const SwitchReduction& reduction);

}  // namespace collsim
