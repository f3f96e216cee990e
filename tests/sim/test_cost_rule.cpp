// tests/sim/test_cost_rule.cpp — the one cost rule (sim/cost_rule.hpp) and the engines held to
// it: a route costs its largest class alpha once, its summed hop latencies, and drains at its
// slowest link; a message alone takes exactly that in the analytic, flow and SimGrid engines
// (SimGrid where collsim is built with it), on routes that mix link classes, at sizes from one
// byte to 48 MiB; messages that share a link split the capacity the rule gives it. Plus the
// costs between ranks that `collsim topo --route` prints, the flat stand-in of a topology, and
// why a flat network is priced by its classes (sim/pair_pricing.hpp).
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "collectives/algorithm.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/cost_rule.hpp"
#include "sim/flow_engine.hpp"
#include "sim/pair_pricing.hpp"
#include "topologies/cluster_config.hpp"
#include "tests/support/one_message.hpp"
#ifdef COLLSIM_HAVE_SIMGRID
#include "sim/simgrid_engine.hpp"
#endif

using namespace collsim;
using collsim::test::one_message;
using collsim::test::route_between;

namespace {

// Classes that differ in alpha, latency and bandwidth, so a route's start-up and bottleneck
// come from different links.
ClusterConfig cluster(const std::string& body) {
  return parse_cluster_config(
      "name: t\nlink_classes:\n"
      "  a: {bandwidth_Bps: 2.0e+9, latency_s: 3.0e-7, alpha_s: 1.0e-6}\n"
      "  b: {bandwidth_Bps: 5.0e+9, latency_s: 1.0e-7, alpha_s: 2.0e-6}\n"
      "  nv: {bandwidth_Bps: 100.0e+9, latency_s: 0.0, alpha_s: 5.0e-7}\n"
      "  pcie: {bandwidth_Bps: 20.0e+9, latency_s: 2.0e-7, alpha_s: 0.0}\n" +
          body + "gamma_s_per_byte: 0\n",
      "t.yaml");
}

struct Case {
  std::string fabric;
  std::string yaml;
  std::vector<std::pair<Rank, Rank>> pairs;  // routes to pin
};

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"4 nodes of 4 GPUs (nv inside, pcie to the NIC, a between nodes)",
       "nodes: {count: 4, gpus_per_node: 4, switch: nvswitch, gpu_link: nv, nics_per_node: 1, nic_link: pcie}\n"
       "topology: {kind: star, link: a}\n",
       {{0, 1}, {0, 4}, {5, 14}, {15, 3}}},
      {"dragonfly (a local, b global)",
       "topology: {kind: dragonfly, p: 2, a: 4, h: 1, g: 3, arrangement: absolute, terminal_link: a, local_link: a, "
       "global_link: b}\n",
       {{0, 1}, {0, 7}, {2, 23}, {17, 9}}},
      {"star with a 3 GB/s backplane", "topology: {kind: star, endpoints: 8, link: b, backplane_Bps: 3.0e+9}\n",
       {{0, 1}, {6, 2}}},
  };
  return all;
}

const std::vector<std::uint64_t> kSizes = {1, 1000003, 1 << 20, 48 << 20};


// `senders` messages of `bytes` each, from ranks 1..senders into rank 0, all at once.
Schedule gather_at_zero(Rank senders, std::uint64_t bytes) {
  ScheduleInfo info;
  info.ranks = senders + 1;
  info.bytes = bytes * senders;
  Schedule s(info);
  for (Rank r = 1; r <= senders; ++r) {
    const ChunkId mine = s.add_chunk({(r - 1) * bytes, bytes});  // {offset, size}
    s.append(r, mine, 0, mine, Op::copy, 0, {});
  }
  return s;
}


// Every engine's time for the schedule, by name; SimGrid's where it is built.
std::vector<std::pair<std::string, double>> engine_times(const Schedule& s, const Topology& t) {
  FlowOptions events_only;
  events_only.shortcut = false;
  std::vector<std::pair<std::string, double>> times = {
      {"analytic", run_analytic(s, t, 0).time_s},
      {"flow", run_flow(s, t, 0).time_s},
      {"flow without its shortcut", run_flow(s, t, 0, events_only).time_s},
  };
#ifdef COLLSIM_HAVE_SIMGRID
  times.emplace_back("simgrid", run_simgrid(s, t, 0).time_s);
#endif
  return times;
}

}  // namespace

TEST_CASE("a route costs its largest class alpha once, its summed latencies, and drains at its slowest link") {
  Network net;
  const LinkClassId fast = net.add_link_class({"fast", 100e9, 1e-6, 2e-6});
  const LinkClassId slow = net.add_link_class({"slow", 10e9, 5e-6, 1e-6});
  const VertexId a = net.add_vertex(VertexKind::endpoint, "a");
  const VertexId b = net.add_vertex(VertexKind::switch_, "b");
  const VertexId c = net.add_vertex(VertexKind::endpoint, "c");
  const LinkId ab = net.add_cable(a, b, fast);
  const LinkId bc = net.add_cable(b, c, slow, 0.5);  // tapered: 5 GB/s
  net.finalize();
  const std::vector<LinkId> route{ab, bc};
  for (std::uint64_t bytes : kSizes) {
    const RouteCost cost = route_cost(net, route, bytes, 1, simple_protocol());
    CHECK(cost.startup_s == Approx(2e-6 + 1e-6 + 5e-6));
    CHECK(cost.bandwidth_Bps == 5e9);
    CHECK(cost.as_link_cost() == LinkCost{cost.startup_s, 1.0 / 5e9});
  }
  const RouteCost none = route_cost(net, std::vector<LinkId>{}, 100, 1, simple_protocol());
  CHECK(none.startup_s == 0);
  CHECK(none.bandwidth_Bps == kNoBottleneck_Bps);
  CHECK(none.as_link_cost() == LinkCost{0, 0});
  CHECK(shared_capacity_Bps(net, ab, simple_protocol()) == 100e9);
  CHECK(shared_capacity_Bps(net, bc, simple_protocol()) == 5e9);
  RouteCostCache cache;
  CHECK(cache.at(net, route, 7, 1, simple_protocol()).startup_s == route_cost(net, route, 7, 1, simple_protocol()).startup_s);
  CHECK(cache.at(net, route, 9, 1, simple_protocol()).bandwidth_Bps == route_cost(net, route, 9, 1, simple_protocol()).bandwidth_Bps);
}

TEST_CASE("a message alone takes the rule's start-up plus its bytes at the route's bottleneck, in every engine") {
  for (const Case& c : cases()) {
    const ClusterConfig config = cluster(c.yaml);
    const Topology& t = *config.topology;
    for (const auto& [src, dst] : c.pairs) {
      const std::vector<LinkId> route = route_between(t, src, dst);
      for (std::uint64_t bytes : kSizes) {
        const RouteCost cost = route_cost(t.network, route, bytes, 1, simple_protocol());
        const double expected = cost.startup_s + double(bytes) / cost.bandwidth_Bps;
        for (const auto& [engine, time_s] : engine_times(one_message(config.ranks, src, dst, bytes), t)) {
          INFO(c.fabric << ": " << src << " -> " << dst << ", " << bytes << " bytes, engine " << engine);
          CHECK(time_s == Approx(expected).epsilon(engine == "simgrid" ? 1e-6 : 1e-12));
        }
      }
    }
  }
}

TEST_CASE("messages into one rank split its link's shared capacity, in the flow engine as in SimGrid") {
  // A star of one class: each sender's own link to the switch is free, the receiver's is shared.
  const ClusterConfig config = cluster("topology: {kind: star, endpoints: 5, link: b}\n");
  const Topology& t = *config.topology;
  for (Rank senders : {2u, 3u, 4u}) {
    for (std::uint64_t bytes : kSizes) {
      const std::vector<LinkId> route = route_between(t, 1, 0);
      const double startup_s = route_cost(t.network, route, bytes, 1, simple_protocol()).startup_s;
      const double expected = startup_s + double(senders * bytes) / shared_capacity_Bps(t.network, route.back(), simple_protocol());
      for (const auto& [engine, time_s] : engine_times(gather_at_zero(senders, bytes), t)) {
        if (engine == "analytic") continue;  // contention-free by definition
        INFO(senders << " senders, " << bytes << " bytes each, engine " << engine);
        CHECK(time_s == Approx(expected).epsilon(engine == "simgrid" ? 1e-6 : 1e-12));
      }
    }
  }
}

TEST_CASE("between ranks: a message inside a node is cheaper than one between nodes") {
  const ClusterConfig c = parse_cluster_config(
      "name: t\nlink_classes:\n  l: {bandwidth_Bps: 1.0e9, latency_s: 1.0e-7}\n"
      "  fast: {bandwidth_Bps: 1.0e10, latency_s: 1.0e-8}\ntopology: {kind: star, link: l}\n"
      "nodes: {count: 4, gpus_per_node: 4, gpu_link: fast, nic_link: fast, nics_per_node: 1}\ngamma_s_per_byte: 0\n",
      "t.yaml");
  const Topology& t = *c.topology;
  const LinkCost intra = pair_cost(t, 0, 1), inter = pair_cost(t, 0, 4);
  REQUIRE(intra.beta_s_per_byte == Approx(1e-10));
  REQUIRE(intra.alpha_s == Approx(2e-8));
  REQUIRE(inter.beta_s_per_byte == Approx(1e-9));
  REQUIRE(inter.alpha_s > intra.alpha_s);
  const CostModel flat = equivalent_cost_model(t, 0);
  REQUIRE(flat.ranks_per_node == 4);
  REQUIRE(flat.intra_node.beta_s_per_byte == Approx(1e-10));
  REQUIRE(flat.inter_node.beta_s_per_byte == Approx(1e-9));
  // Round-robin placement deals ring neighbours over nodes: their messages cross the network.
  c.topology->place({Placement::Kind::round_robin, 1, {}}, c.ranks);
  REQUIRE(pair_cost(t, 0, 1).beta_s_per_byte == Approx(1e-9));
  REQUIRE(pair_cost(t, 0, 4).beta_s_per_byte == Approx(1e-10));
}

TEST_CASE("a star with one link class costs alpha, two hop latencies and the link bandwidth, and so does its flat model") {
  const ClusterConfig c = parse_cluster_config(
      "name: t\nlink_classes:\n  eth: {bandwidth_Bps: 1.0e9, latency_s: 1.0e-6, alpha_s: 5.0e-6}\n"
      "topology: {kind: star, endpoints: 8, link: eth}\ngamma_s_per_byte: 0\n",
      "t.yaml");
  const LinkCost cost = pair_cost(*c.topology, 2, 5);
  REQUIRE(cost.alpha_s == Approx(5e-6 + 2e-6));
  REQUIRE(cost.beta_s_per_byte == Approx(1e-9));
  REQUIRE(equivalent_cost_model(*c.topology, 0).inter_node.alpha_s == Approx(7e-6));
}

TEST_CASE("the embedded default cluster offers about 6 GB/s between nodes and 10 GB/s inside one") {
  const ClusterConfig c = default_cluster_config();
  REQUIRE(1.0 / pair_cost(*c.topology, 0, 8).beta_s_per_byte == Approx(6e9));
  REQUIRE(1.0 / pair_cost(*c.topology, 0, 1).beta_s_per_byte == Approx(10e9));
}

TEST_CASE("every topology in configs/ costs its first-to-last route with a start-up and a bandwidth") {
  for (const auto& entry : std::filesystem::directory_iterator(COLLSIM_CONFIGS_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path().string());
    const ClusterConfig c = load_cluster_config(entry.path());
    if (!c.topology) continue;
    const LinkCost cost = pair_cost(*c.topology, 0, c.ranks - 1);
    REQUIRE(cost.alpha_s >= 0);
    REQUIRE((c.ranks == 1 || cost.beta_s_per_byte > 0));
  }
}

TEST_CASE("a flat network's routes cost exactly its classes, so pricing it by them loses nothing") {
  // Why sim/pair_pricing.cpp prices a flat network by its classes: the generated graph's routes
  // give every pair, under every protocol, what its class gives it; and so does the stand-in.
  CostModel classes{{2e-6, 1e-9}, {5e-7, 1e-10}, 0, 4};
  const ClusterConfig c = flat_cluster("f", classes, 12);
  const Topology& t = *c.topology;
  ScheduleRequest request;
  request.ranks = 12;
  request.bytes = 1 << 20;
  const Schedule ring = generate_schedule("ring", request);
  for (const char* name : {"simple", "ll", "ll128"}) {
    INFO(name);
    const Protocol& protocol = find_protocol(name);
    const ClassPricing by_classes(classes, 1e-11, protocol);
    RoutePricing(t, 1e-11, protocol).price(ring, [&](auto&& link, auto&& gamma, const TransferContext&) {
      for (Rank a = 0; a < 12; ++a)
        for (Rank b = 0; b < 12; ++b) {
          if (a == b) continue;
          const LinkCost routed = link(a, b, 4096, false), classed = by_classes.stand_in(0).link(a, b);
          CHECK(routed.alpha_s == Approx(classed.alpha_s).epsilon(1e-12));
          CHECK(routed.beta_s_per_byte == Approx(classed.beta_s_per_byte).epsilon(1e-12));
        }
      CHECK(gamma(3, 4096, false) == 1e-11);
      return 0;
    });
    const CostModel routed = RoutePricing(t, 1e-11, protocol).stand_in(kLargeMessage), exact = by_classes.stand_in(0);
    CHECK(routed.inter_node.beta_s_per_byte == Approx(exact.inter_node.beta_s_per_byte).epsilon(1e-12));
    CHECK(routed.intra_node.alpha_s == Approx(exact.intra_node.alpha_s).epsilon(1e-12));
    CHECK(routed.ranks_per_node == exact.ranks_per_node);
    CHECK(equivalent_cost_model(t, 1e-11, kLargeMessage, protocol).inter_node == exact.inter_node);
  }
}
