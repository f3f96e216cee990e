// tests/topologies/test_nodes.cpp
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tests/support/route_check.hpp"
#include "base/error.hpp"
#include "tests/topologies/built_fabric.hpp"
#include "topologies/builders/builders.hpp"

using namespace collsim;

namespace {

// Link classes by id; the NIC class is the slowest, so it bounds every inter-node route.
constexpr LinkClassId kGpu = 0, kNic = 1, kFabric = 2;
constexpr double kGpuBps = 450e9, kNicBps = 25e9;

Network with_classes() {
  Network net;
  net.add_link_class({"nvlink", kGpuBps, 1e-7, 0});
  net.add_link_class({"nic", kNicBps, 1e-6, 0});
  net.add_link_class({"fabric", 50e9, 1e-7, 0});
  return net;
}

// 72 terminals: p=2 a=4 h=2, full size (g=9).
Fabric dragonfly(Network& net) {
  return build_dragonfly(net, {2, 4, 2, 0, GlobalArrangement::absolute, kFabric, kFabric, kFabric},
                         RoutingMode::minimal, 1);
}

NodesParams node_params(std::uint32_t nodes, std::uint32_t gpus, std::uint32_t nics) {
  NodesParams p;
  p.nodes = nodes;
  p.gpus_per_node = gpus;
  p.nics_per_node = nics;
  p.gpu_link = kGpu;
  p.nic_link = kNic;
  p.pxn = false;  // each GPU's own NIC: the plain routes (PXN has its own tests)
  return p;
}

Route route(const NodesFabric& f, std::uint32_t src, std::uint32_t dst, std::uint64_t flow = 0) {
  Route r;
  f.fabric.router->route(f.fabric.endpoints[src], f.fabric.endpoints[dst], flow, r);
  return r;
}

const std::string& name(const Network& net, VertexId v) { return net.vertex(v).name; }

}  // namespace

TEST_CASE("A single node with an empty fabric routes GPU to GPU through its switch") {
  Network net = with_classes();
  const NodesFabric f = build_nodes(net, node_params(1, 8, 8), Fabric{});
  net.finalize();
  CHECK(f.fabric.endpoints.size() == 8);
  CHECK(f.node_of == std::vector<std::uint32_t>(8, 0));
  CHECK(net.count(VertexKind::switch_) == 1);
  CHECK(net.count(VertexKind::nic) == 0);
  CHECK(net.cable_count() == 8);
  CHECK(name(net, f.fabric.endpoints[3]) == "n0.gpu3");
  CHECK(f.fabric.summary == "1 node x 8 GPUs (nvswitch), no NICs");
  const Route r = route(f, 0, 3);
  REQUIRE(r.size() == 2);
  CHECK(is_path(net, r, f.fabric.endpoints[0], f.fabric.endpoints[3]));
  CHECK(name(net, net.link(r[0]).to) == "n0.nvswitch");
  CHECK(route(f, 5, 5).empty());
}

TEST_CASE("With a backplane every intra-node route crosses the node's one capacity link") {
  Network net = with_classes();
  NodesParams p = node_params(1, 4, 1);
  p.backplane_Bps = 900e9;
  p.switch_name = "pcie";
  const NodesFabric f = build_nodes(net, p, Fabric{});
  net.finalize();
  CHECK(net.count(VertexKind::switch_) == 2);
  CHECK(net.cable_count() == 4);
  CHECK(f.fabric.summary == "1 node x 4 GPUs (pcie, backplane 900 GB/s), no NICs");
  for (std::uint32_t s = 0; s < 4; ++s)
    for (std::uint32_t t = 0; t < 4; ++t) {
      if (s == t) continue;
      const Route r = route(f, s, t);
      REQUIRE(r.size() == 3);
      REQUIRE(is_path(net, r, f.fabric.endpoints[s], f.fabric.endpoints[t]));
      REQUIRE(net.link(r[1]).kind == LinkKind::capacity);
      REQUIRE(name(net, net.link(r[1]).from) == "n0.pcie.in");
      REQUIRE(name(net, net.link(r[1]).to) == "n0.pcie.out");
      REQUIRE(net.link(r[1]).bandwidth_Bps == Approx(900e9));
      REQUIRE(slowest_link_Bps(net, r) == Approx(kGpuBps));
    }
}

TEST_CASE("Rail-optimized nodes with a NIC per GPU put NIC j of node n at fabric endpoint j*nodes+n") {
  Network net = with_classes();
  Fabric fabric = dragonfly(net);
  const std::vector<VertexId> fabric_endpoints = fabric.endpoints;
  const std::size_t fabric_cables = net.cable_count(), fabric_switches = net.count(VertexKind::switch_);
  const NodesFabric f = build_nodes(net, node_params(4, 8, 8), std::move(fabric));
  net.finalize();
  CHECK(f.fabric.endpoints.size() == 32);
  CHECK(net.endpoints() == f.fabric.endpoints);
  CHECK(net.count(VertexKind::nic) == 72);
  CHECK(net.count(VertexKind::switch_) == fabric_switches + 4);
  CHECK(net.cable_count() == fabric_cables + 32 + 32);
  CHECK(f.node_of[8 * 2 + 5] == 2);
  for (std::uint32_t n = 0; n < 4; ++n)
    for (std::uint32_t j = 0; j < 8; ++j) {
      const VertexId nic = fabric_endpoints[j * 4 + n];
      REQUIRE(name(net, nic) == fmt::format("n{}.nic{}", n, j));
      REQUIRE(net.vertex(nic).kind == VertexKind::nic);
      REQUIRE(net.find_link(f.fabric.endpoints[n * 8 + j], nic) != kNoLink);  // GPU j's own NIC
    }
  CHECK(name(net, fabric_endpoints[40]) == "nic.unused.40");
  CHECK(net.vertex(fabric_endpoints[40]).kind == VertexKind::nic);
  CHECK_THAT(f.fabric.summary,
             Catch::StartsWith("4 nodes x 8 GPUs (nvswitch), 8 NICs per node, rail-optimized, on: dragonfly p=2"));
}

TEST_CASE("Inter-node routes go down to the NIC, across the fabric's own route and up to the GPU") {
  Network net = with_classes();
  Network reference = with_classes();  // the same dragonfly alone: same link ids
  Fabric fabric = dragonfly(net);
  const Fabric alone = dragonfly(reference);
  const std::vector<VertexId> nics = fabric.endpoints;
  const NodesFabric f = build_nodes(net, node_params(4, 8, 8), std::move(fabric));
  net.finalize();
  for (std::uint32_t s = 0; s < 32; ++s)
    for (std::uint32_t t = 0; t < 32; ++t) {
      const Route r = route(f, s, t, 3);
      REQUIRE(is_path(net, r, f.fabric.endpoints[s], f.fabric.endpoints[t]));
      if (s == t) continue;
      if (f.node_of[s] == f.node_of[t]) {
        REQUIRE(r.size() == 2);
        REQUIRE(slowest_link_Bps(net, r) == Approx(kGpuBps));
        continue;
      }
      Route middle;
      alone.router->route(nics[s % 8 * 4 + s / 8], nics[t % 8 * 4 + t / 8], 3, middle);
      REQUIRE(Route(r.begin() + 1, r.end() - 1) == middle);
      REQUIRE(net.link(r.front()).link_class == kNic);
      REQUIRE(net.link(r.back()).link_class == kNic);
      REQUIRE(slowest_link_Bps(net, r) == Approx(kNicBps));
    }
}

TEST_CASE("Without rail optimization NIC j of node n is fabric endpoint n*nics+j") {
  Network net = with_classes();
  Fabric fabric = dragonfly(net);
  const std::vector<VertexId> nics = fabric.endpoints;
  NodesParams p = node_params(3, 4, 2);
  p.rail_optimized = false;
  const NodesFabric f = build_nodes(net, p, std::move(fabric));
  for (std::uint32_t n = 0; n < 3; ++n)
    for (std::uint32_t j = 0; j < 2; ++j)
      REQUIRE(name(net, nics[n * 2 + j]) == fmt::format("n{}.nic{}", n, j));
  CHECK(name(net, nics[6]) == "nic.unused.6");
  CHECK_THAT(f.fabric.summary, Catch::Contains("2 NICs per node, node-major"));
}

TEST_CASE("Shared NICs hang off the node's switch and GPU i uses NIC i*nics/gpus") {
  const bool backplane = GENERATE(false, true);
  CAPTURE(backplane);
  Network net = with_classes();
  NodesParams p = node_params(2, 8, 2);
  if (backplane) p.backplane_Bps = 900e9;
  const std::size_t fabric_cables = [&] {
    Network probe = with_classes();
    dragonfly(probe);
    return probe.cable_count();
  }();
  const NodesFabric f = build_nodes(net, p, dragonfly(net));
  net.finalize();
  CHECK(net.cable_count() == fabric_cables + 2 * 8 + 2 * 2);
  const std::size_t hops_to_nic = backplane ? 3 : 2;  // GPU -> switch (-> backplane) -> NIC
  for (std::uint32_t s = 0; s < 16; ++s) {
    const std::uint32_t t = (1 - s / 8) * 8 + (s + 3) % 8;  // a GPU on the other node
    const Route r = route(f, s, t);
    REQUIRE(is_path(net, r, f.fabric.endpoints[s], f.fabric.endpoints[t]));
    const VertexId src_nic = net.link(r[hops_to_nic - 1]).to;
    const VertexId dst_nic = net.link(r[r.size() - hops_to_nic]).from;
    REQUIRE(name(net, src_nic) == fmt::format("n{}.nic{}", s / 8, s % 8 * 2 / 8));
    REQUIRE(name(net, dst_nic) == fmt::format("n{}.nic{}", t / 8, t % 8 * 2 / 8));
    if (backplane) {
      REQUIRE(net.link(r[1]).kind == LinkKind::capacity);
      REQUIRE(net.link(r[r.size() - 2]).kind == LinkKind::capacity);
    }
    REQUIRE(slowest_link_Bps(net, r) == Approx(kNicBps));
  }
}

TEST_CASE("Nodes on a star: an inter-node route crosses the star's backplane once") {
  Network net = with_classes();
  StarParams star;
  star.endpoints = 8;
  star.link = kFabric;
  star.backplane_Bps = 100e9;
  const NodesFabric f = build_nodes(net, node_params(2, 4, 4), build_star(net, star, RoutingMode::minimal, 0));
  net.finalize();
  const Route r = route(f, 1, 6);
  REQUIRE(is_path(net, r, f.fabric.endpoints[1], f.fabric.endpoints[6]));
  CHECK(r.size() == 5);  // GPU -> NIC -> star in => out -> NIC -> GPU
  CHECK(std::count_if(r.begin(), r.end(), [&](LinkId l) { return net.link(l).kind == LinkKind::capacity; }) == 1);
  CHECK(slowest_link_Bps(net, r) == Approx(kNicBps));
}

TEST_CASE("Rail-optimized nodes on a fat-tree keep same-rail traffic under one leaf switch") {
  Network net = with_classes();
  // Two-level 4-ary tree: 16 hosts, leaves of 4 hosts; 4 nodes x 4 GPUs with 4 NICs each.
  const NodesFabric f =
      build_nodes(net, node_params(4, 4, 4), build_xgft(net, k_ary_n_tree(4, 2, kFabric), RoutingMode::minimal, 0));
  net.finalize();
  for (std::uint32_t rail = 0; rail < 4; ++rail) {
    const Route same_rail = route(f, 0 * 4 + rail, 2 * 4 + rail);  // GPU -> NIC -> leaf -> NIC -> GPU
    REQUIRE(is_path(net, same_rail, f.fabric.endpoints[rail], f.fabric.endpoints[8 + rail]));
    REQUIRE(same_rail.size() == 4);
  }
  const Route cross_rail = route(f, 0, 2 * 4 + 1);  // up to the spine and down another leaf
  REQUIRE(is_path(net, cross_rail, f.fabric.endpoints[0], f.fabric.endpoints[9]));
  CHECK(cross_rail.size() == 6);
}

TEST_CASE("With PXN a route between nodes leaves by the NIC on the destination's rail, handed over the NVSwitch to its GPU") {
  Network net = with_classes();
  NodesParams p = node_params(4, 4, 4);
  p.pxn.reset();  // the default on rail-optimized NVSwitch nodes
  const NodesFabric f = build_nodes(net, p, build_xgft(net, k_ary_n_tree(4, 2, kFabric), RoutingMode::minimal, 0));
  net.finalize();
  CHECK_THAT(f.fabric.summary, Catch::Contains("4 NICs per node, rail-optimized, PXN"));
  for (std::uint32_t s = 0; s < 4; ++s)
    for (std::uint32_t rail = 0; rail < 4; ++rail) {
      CAPTURE(s, rail);
      const std::uint32_t t = 2 * 4 + rail;
      const Route r = route(f, s, t);
      REQUIRE(is_path(net, r, f.fabric.endpoints[s], f.fabric.endpoints[t]));
      // GPU s (-> switch -> GPU rail) -> NIC rail -> leaf rail -> node 2's NIC rail -> its GPU rail
      const std::size_t hand_off = s == rail ? 0 : 2;
      REQUIRE(r.size() == 4 + hand_off);
      CHECK(name(net, net.link(r[hand_off]).from) == fmt::format("n0.gpu{}", rail));
      CHECK(name(net, net.link(r[hand_off]).to) == fmt::format("n0.nic{}", rail));
      CHECK(slowest_link_Bps(net, r) == Approx(kNicBps));
    }
}

TEST_CASE("With PXN shared NICs serve the destination's rail, and PXN needs an NVSwitch") {
  Network net = with_classes();
  NodesParams p = node_params(2, 8, 2);
  p.pxn = true;
  const NodesFabric f = build_nodes(net, p, dragonfly(net));
  net.finalize();
  for (std::uint32_t s = 0; s < 8; ++s)
    for (std::uint32_t t = 8; t < 16; ++t) {
      const Route r = route(f, s, t);
      REQUIRE(is_path(net, r, f.fabric.endpoints[s], f.fabric.endpoints[t]));
      CHECK(name(net, net.link(r[1]).to) == fmt::format("n0.nic{}", t % 8 * 2 / 8));  // GPU -> switch -> NIC
    }
  Network pcie = with_classes();
  p.switch_name = "pcie";
  CHECK_THROWS_WITH(build_nodes(pcie, p, dragonfly(pcie)), Catch::Contains("pxn: true hands data over NVLink"));
}

TEST_CASE("Bad node parameters throw naming the parameter") {
  Network net = with_classes();
  auto fails = [&](const NodesParams& p, const std::string& message) {
    CHECK_THROWS_WITH(build_nodes(net, p, Fabric{}), Catch::Contains(message));
  };
  fails(node_params(0, 8, 1), "nodes must be >= 1");
  fails(node_params(1, 0, 1), "gpus_per_node must be >= 1");
  fails(node_params(1, 8, 0), "nics_per_node");
  fails(node_params(1, 8, 3), "nics_per_node");
  fails(node_params(1, 4, 8), "nics_per_node");
  NodesParams bad_backplane = node_params(1, 8, 1);
  bad_backplane.backplane_Bps = 0.0;
  fails(bad_backplane, "backplane_Bps");
  NodesParams bad_class = node_params(1, 8, 1);
  bad_class.nic_link = 7;
  fails(bad_class, "nic_link = 7");
  fails(node_params(2, 8, 1), "the fabric has 0 endpoints");
  CHECK(net.vertex_count() == 0);
}

TEST_CASE("A fabric with fewer endpoints than NICs is an error naming both numbers") {
  Network net = with_classes();
  Fabric fabric = dragonfly(net);  // 72 endpoints
  CHECK_THROWS_WITH(build_nodes(net, node_params(10, 8, 8), std::move(fabric)),
                    Catch::Contains("72 endpoints") && Catch::Contains("80"));
}

namespace {

// DGX-1 V100's hybrid cube-mesh (configs/dgx1-v100.yaml): 16 pairs, 24 NVLinks, 6 per GPU.
const std::vector<GpuPairLinks> kCubeMesh = {{0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {0, 4, 2}, {1, 2, 2}, {1, 3, 1},
                                             {1, 5, 2}, {2, 3, 2}, {2, 6, 1}, {3, 7, 1}, {4, 5, 1}, {4, 6, 1},
                                             {4, 7, 2}, {5, 6, 2}, {5, 7, 1}, {6, 7, 2}};

NodesParams cube_mesh_nodes(std::uint32_t nodes) {
  NodesParams p = node_params(nodes, 8, 4);
  p.switch_name = "pcie";
  p.gpu_link = kNic;  // the PCIe path of unlinked pairs: the slow class
  p.peer_link = kFabric;
  p.peer_links = kCubeMesh;
  return p;
}

std::uint32_t links_between(std::uint32_t a, std::uint32_t b) {
  for (const GpuPairLinks& pair : kCubeMesh)
    if ((pair.a == a && pair.b == b) || (pair.a == b && pair.b == a)) return pair.links;
  return 0;
}

}  // namespace

TEST_CASE("Peer links cable each listed GPU pair once, at its link count times the class's rate") {
  Network net = with_classes();
  const NodesFabric f = build_nodes(net, cube_mesh_nodes(1), Fabric{});
  net.finalize();
  CHECK(net.cable_count() == 8 + 16);  // 8 GPU-switch cables, one per linked pair
  CHECK(f.fabric.summary == "1 node x 8 GPUs (pcie, GPU-GPU links: 16 pairs, 24 links), no NICs");
  for (std::uint32_t a = 0; a < 8; ++a) {
    double nvlink_out_Bps = 0;
    for (std::uint32_t b = 0; b < 8; ++b) {
      if (a == b) continue;
      INFO("GPU " << a << " -> GPU " << b);
      const Route r = route(f, a, b);
      REQUIRE(is_path(net, r, f.fabric.endpoints[a], f.fabric.endpoints[b]));
      if (const std::uint32_t links = links_between(a, b); links > 0) {
        REQUIRE(r.size() == 1);
        CHECK(net.link(r[0]).bandwidth_Bps == Approx(links * 50e9));
        CHECK(net.link(r[0]).link_class == kFabric);
        nvlink_out_Bps += net.link(r[0]).bandwidth_Bps;
      } else {  // no NVLink: GPU -> PCIe switch -> GPU, no forwarding through a third GPU
        REQUIRE(r.size() == 2);
        CHECK(name(net, net.link(r[0]).to) == "n0.pcie");
        CHECK(slowest_link_Bps(net, r) == Approx(kNicBps));
      }
    }
    CHECK(nvlink_out_Bps == Approx(6 * 50e9));  // six links per GPU
  }
}

TEST_CASE("Peer links stay inside their node: between nodes a route leaves through the GPU's NIC") {
  Network net = with_classes();
  StarParams star;
  star.endpoints = 8;
  star.link = kFabric;
  const NodesFabric f = build_nodes(net, cube_mesh_nodes(2), build_star(net, star, RoutingMode::minimal, 0));
  net.finalize();
  CHECK(net.cable_count() == 8 + 2 * (8 + 16 + 4));  // star; per node GPUs, pairs, NICs
  const Route within = route(f, 8 + 0, 8 + 4);  // node 1's GPUs 0 and 4: their own double link
  REQUIRE(within.size() == 1);
  CHECK(name(net, net.link(within[0]).from) == "n1.gpu0");
  CHECK(name(net, net.link(within[0]).to) == "n1.gpu4");
  const Route across = route(f, 0, 8 + 4);  // GPU -> switch -> NIC -> star -> NIC -> switch -> GPU
  REQUIRE(is_path(net, across, f.fabric.endpoints[0], f.fabric.endpoints[12]));
  CHECK(across.size() == 6);
  const auto gpu_to_gpu = [&](LinkId l) {
    return net.vertex(net.link(l).from).kind == VertexKind::endpoint &&
           net.vertex(net.link(l).to).kind == VertexKind::endpoint;
  };
  CHECK(std::none_of(across.begin(), across.end(), gpu_to_gpu));
}

TEST_CASE("Bad peer links throw naming the pair and the rule") {
  Network net = with_classes();
  auto fails = [&](std::vector<GpuPairLinks> pairs, const std::string& message) {
    NodesParams p = cube_mesh_nodes(1);
    p.peer_links = std::move(pairs);
    CHECK_THROWS_WITH(build_nodes(net, p, Fabric{}), Catch::Contains(message));
  };
  fails({{0, 8, 1}}, "GPU pair [0, 8, 1]: GPUs are numbered 0..7");
  fails({{3, 3, 1}}, "not linked to itself");
  fails({{0, 1, 0}}, "links must be >= 1");
  fails({{0, 1, 1}, {1, 0, 2}}, "listed twice");
  NodesParams bad_class = cube_mesh_nodes(1);
  bad_class.peer_link = 9;
  CHECK_THROWS_WITH(build_nodes(net, bad_class, Fabric{}), Catch::Contains("peer_link = 9"));
  CHECK(net.vertex_count() == 0);
}
