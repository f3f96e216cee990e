// tests/topologies/test_network.cpp — the network graph (topologies/network.hpp), route checks
// and the shortest-path router (topologies/routing.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/support/route_check.hpp"
#include "base/error.hpp"
#include "topologies/network.hpp"
#include "topologies/routing.hpp"

using namespace collsim;

namespace {

LinkClassId add_class(Network& net, const std::string& name, double bandwidth_Bps, double latency_s,
                      double alpha_s = 0) {
  return net.add_link_class({name, bandwidth_Bps, latency_s, alpha_s});
}

// a, b, c in a line: a <-> b <-> c, plus a one-way a -> c.
struct Line {
  Network net;
  LinkClassId fast = 0, slow = 0;
  VertexId a = 0, b = 0, c = 0;
  LinkId ab = 0, bc = 0, ac = 0;
  Line() {
    fast = add_class(net, "fast", 100e9, 1e-6, 2e-6);
    slow = add_class(net, "slow", 10e9, 5e-6, 1e-6);
    a = net.add_vertex(VertexKind::endpoint, "a");
    b = net.add_vertex(VertexKind::switch_, "b");
    c = net.add_vertex(VertexKind::endpoint, "c");
    ab = net.add_cable(a, b, fast);
    bc = net.add_cable(b, c, slow, 0.5);
    ac = net.add_link(a, c, slow, LinkKind::capacity);
  }
};

}  // namespace

TEST_CASE("add_cable returns the forward link id and the next id is the reverse link") {
  Line g;
  CHECK(g.ab == 0);
  CHECK(g.bc == 2);
  CHECK(g.ac == 4);
  REQUIRE(g.net.link_count() == 5);
  CHECK(g.net.link(g.ab).from == g.a);
  CHECK(g.net.link(g.ab).to == g.b);
  CHECK(g.net.link(g.ab + 1).from == g.b);
  CHECK(g.net.link(g.ab + 1).to == g.a);
  CHECK(g.net.link(g.bc + 1).from == g.c);
  CHECK(g.net.link(g.ab).bandwidth_Bps == 100e9);
  CHECK(g.net.link(g.bc + 1).bandwidth_Bps == 5e9);  // the class's bandwidth times the scale
  CHECK(g.net.link(g.bc).latency_s == 5e-6);
  CHECK(g.net.link(g.ac).kind == LinkKind::capacity);
}

TEST_CASE("the network counts vertices by kind, cables as pairs of cable links, and lists endpoints in order") {
  Line g;
  CHECK(g.net.vertex_count() == 3);
  CHECK(g.net.count(VertexKind::endpoint) == 2);
  CHECK(g.net.count(VertexKind::switch_) == 1);
  CHECK(g.net.count(VertexKind::nic) == 0);
  CHECK(g.net.cable_count() == 2);  // the capacity link is not a cable
  CHECK(g.net.endpoints() == std::vector<VertexId>{g.a, g.c});
  g.net.set_vertex(g.a, VertexKind::nic, "a.nic");
  CHECK(g.net.endpoints() == std::vector<VertexId>{g.c});
  CHECK(g.net.vertex(g.a).name == "a.nic");
  CHECK(to_string(VertexKind::switch_) == "switch");
}

TEST_CASE("find_link finds the directed link before and after finalize and kNoLink when there is none") {
  Line g;
  for (bool finalized : {false, true}) {
    if (finalized) g.net.finalize();
    INFO("finalized " << finalized);
    CHECK(g.net.find_link(g.a, g.b) == g.ab);
    CHECK(g.net.find_link(g.b, g.a) == g.ab + 1);
    CHECK(g.net.find_link(g.c, g.b) == g.bc + 1);
    CHECK(g.net.find_link(g.a, g.c) == g.ac);
    CHECK(g.net.find_link(g.c, g.a) == kNoLink);  // one-way
  }
}

TEST_CASE("finalize freezes the network and builds the graph view") {
  Line g;
  CHECK_THROWS_AS(g.net.graph(), Error);
  g.net.finalize();
  CHECK(g.net.finalized());
  CHECK(boost::num_vertices(g.net.graph()) == 3);
  CHECK(boost::num_edges(g.net.graph()) == 5);
  CHECK_THROWS_AS(g.net.add_vertex(VertexKind::switch_, "late"), Error);
  CHECK_THROWS_AS(g.net.add_cable(g.a, g.c, g.fast), Error);
}

TEST_CASE("link classes must have a unique name and a positive bandwidth") {
  Network net;
  add_class(net, "ib", 25e9, 1e-6);
  CHECK_THROWS_WITH(add_class(net, "ib", 50e9, 1e-6), Catch::Contains("'ib'") && Catch::Contains("twice"));
  CHECK_THROWS_WITH(add_class(net, "zero", 0, 1e-6), Catch::Contains("bandwidth"));
  CHECK_THROWS_WITH(add_class(net, "neg", 1e9, -1), Catch::Contains("latency"));
  CHECK_THROWS_WITH(add_class(net, "", 1e9, 0), Catch::Contains("name"));
  CHECK(net.find_link_class("ib") == 0);
  CHECK_THROWS_WITH(net.find_link_class("eth"), Catch::Contains("'eth'") && Catch::Contains("ib"));
}

TEST_CASE("links between invalid vertices, of unknown classes or with a bad scale are rejected") {
  Line g;
  CHECK_THROWS_AS(g.net.add_link(g.a, g.a, g.fast, LinkKind::cable), Error);
  CHECK_THROWS_AS(g.net.add_link(g.a, 99, g.fast, LinkKind::cable), Error);
  CHECK_THROWS_AS(g.net.add_link(g.a, g.b, 7, LinkKind::cable), Error);
  CHECK_THROWS_AS(g.net.add_cable(g.a, g.b, g.fast, 0), Error);
  CHECK_THROWS_AS(g.net.add_cable(g.a, g.b, g.fast, std::nan("")), Error);
}

TEST_CASE("is_path accepts a connected chain from src to dst and rejects broken chains and wrong ends") {
  Line g;
  const std::vector<LinkId> good{g.ab, g.bc};
  CHECK(is_path(g.net, good, g.a, g.c));
  CHECK(is_path(g.net, std::vector<LinkId>{g.bc + 1, g.ab + 1}, g.c, g.a));
  CHECK_FALSE(is_path(g.net, std::vector<LinkId>{g.ab, g.ac}, g.a, g.c));      // a -> b, then a link from a
  CHECK_FALSE(is_path(g.net, std::vector<LinkId>{g.ab, g.bc + 1}, g.a, g.c));  // second link starts at c
  CHECK_FALSE(is_path(g.net, good, g.a, g.b));                              // ends at c, not b
  CHECK_FALSE(is_path(g.net, good, g.b, g.c));                              // starts at a, not b
  CHECK_FALSE(is_path(g.net, std::vector<LinkId>{g.ab, 999}, g.a, g.c));   // no such link
  CHECK_FALSE(is_path(g.net, std::vector<LinkId>{}, g.a, g.c));
  CHECK(is_path(g.net, std::vector<LinkId>{}, g.b, g.b));
}

TEST_CASE("routing modes print and parse by name, and unknown names list the modes") {
  for (RoutingMode m : {RoutingMode::minimal, RoutingMode::ecmp, RoutingMode::valiant, RoutingMode::shortest_path})
    CHECK(parse_routing_mode(to_string(m)) == m);
  CHECK(to_string(RoutingMode::shortest_path) == "shortest-path");
  CHECK_THROWS_WITH(parse_routing_mode("adaptive"), Catch::Contains("'adaptive'") && Catch::Contains("ecmp"));
}

TEST_CASE("flow_hash depends on every argument") {
  const std::uint64_t h = flow_hash(1, 2, 3, 4);
  CHECK(h == flow_hash(1, 2, 3, 4));
  CHECK(h != flow_hash(2, 2, 3, 4));
  CHECK(h != flow_hash(1, 3, 3, 4));
  CHECK(h != flow_hash(1, 2, 4, 4));
  CHECK(h != flow_hash(1, 2, 3, 5));
  CHECK(flow_hash(1, 2, 3, 4) != flow_hash(2, 1, 3, 4));
}

// s -> t directly on a slow (10 us) link, or s -> u -> t and s -> v -> w -> t on fast ones.
TEST_CASE("the shortest-path router takes the lowest-latency path, then the fewest hops") {
  Network net;
  const LinkClassId slow = add_class(net, "slow", 1e9, 10e-6), fast = add_class(net, "fast", 1e9, 1e-6);
  const VertexId s = net.add_vertex(VertexKind::endpoint, "s"), t = net.add_vertex(VertexKind::endpoint, "t");
  const VertexId u = net.add_vertex(VertexKind::switch_, "u"), v = net.add_vertex(VertexKind::switch_, "v");
  const VertexId w = net.add_vertex(VertexKind::switch_, "w");
  const LinkId direct = net.add_cable(s, t, slow);
  const LinkId su = net.add_cable(s, u, fast), ut = net.add_cable(u, t, fast);
  net.add_cable(s, v, fast);
  net.add_cable(v, w, fast);
  net.add_cable(w, t, fast);
  net.finalize();
  ShortestPathRouter router(net);
  std::vector<LinkId> route;
  router.route(s, t, 0, route);
  CHECK(route == std::vector<LinkId>{su, ut});
  route.assign({direct});  // route appends
  router.route(t, s, 7, route);
  CHECK(route == std::vector<LinkId>{direct, ut + 1, su + 1});
  route.clear();
  router.route(s, s, 0, route);
  CHECK(route.empty());
}

TEST_CASE("the shortest-path router prefers fewer hops among zero-latency paths") {
  Network net;
  const LinkClassId free = add_class(net, "free", 1e9, 0);
  std::vector<VertexId> v;
  for (const char* name : {"a", "b", "c", "d"}) v.push_back(net.add_vertex(VertexKind::switch_, name));
  net.add_cable(v[0], v[1], free);
  net.add_cable(v[1], v[2], free);
  net.add_cable(v[2], v[3], free);
  const LinkId shortcut = net.add_cable(v[0], v[3], free);
  net.finalize();
  std::vector<LinkId> route;
  ShortestPathRouter(net).route(v[0], v[3], 0, route);
  CHECK(route == std::vector<LinkId>{shortcut});
}

TEST_CASE("the shortest-path router throws naming both ends when there is no route") {
  Network net;
  const LinkClassId c = add_class(net, "c", 1e9, 1e-6);
  const VertexId a = net.add_vertex(VertexKind::endpoint, "a"), b = net.add_vertex(VertexKind::endpoint, "b");
  const VertexId island = net.add_vertex(VertexKind::endpoint, "island");
  net.add_cable(a, b, c);
  net.add_link(island, a, c, LinkKind::cable);  // island reaches a, nothing reaches island
  net.finalize();
  ShortestPathRouter router(net);
  std::vector<LinkId> route;
  CHECK_THROWS_WITH(router.route(a, island, 0, route), Catch::Contains("no route") && Catch::Contains("island"));
  router.route(island, b, 0, route);
  CHECK(is_path(net, route, island, b));
}

TEST_CASE("the shortest-path router needs a finalized network") {
  Line g;
  CHECK_THROWS_WITH(ShortestPathRouter(g.net), Catch::Contains("finalized"));
}

TEST_CASE("the shortest-path router takes the faster of two parallel cables") {
  Network net;
  const LinkClassId slow = add_class(net, "slow", 1e9, 10e-6), fast = add_class(net, "fast", 1e9, 1e-6);
  const VertexId a = net.add_vertex(VertexKind::endpoint, "a"), b = net.add_vertex(VertexKind::endpoint, "b");
  net.add_cable(a, b, slow);
  const LinkId quick = net.add_cable(a, b, fast);
  net.finalize();
  const ShortestPathRouter router(net);
  std::vector<LinkId> route;
  router.route(a, b, 0, route);
  REQUIRE(route == std::vector<LinkId>{quick});
}

TEST_CASE("a cable to a switch split by a backplane is one cable of two links") {
  Network net;
  const LinkClassId l = add_class(net, "l", 1e9, 0);
  const VertexId host = net.add_vertex(VertexKind::endpoint, "h"), in = net.add_vertex(VertexKind::switch_, "in"),
                 out = net.add_vertex(VertexKind::switch_, "out");
  const LinkId up = net.add_split_cable(host, in, out, l);
  REQUIRE(net.cable_count() == 1);
  REQUIRE(net.link(up).to == in);
  REQUIRE(net.link(up + 1).from == out);
  REQUIRE(net.link(up + 1).to == host);
}

TEST_CASE("a memory link goes from an endpoint to itself, only as a memory link, and is no edge of the graph") {
  Line g;
  CHECK_THROWS_AS(g.net.add_link(g.a, g.a, g.fast, LinkKind::capacity), Error);
  CHECK_THROWS_AS(g.net.add_link(g.a, g.c, g.fast, LinkKind::memory), Error);  // memory stays on its endpoint
  const LinkId memory = g.net.add_memory_link(g.a, g.slow);
  CHECK(g.net.link(memory).from == g.a);
  CHECK(g.net.link(memory).to == g.a);
  CHECK(g.net.link(memory).kind == LinkKind::memory);
  g.net.finalize();
  CHECK(boost::num_edges(g.net.graph()) == g.net.link_count() - 1);  // every link but the memory
  CHECK(g.net.find_link(g.a, g.a) == kNoLink);
  const ShortestPathRouter router(g.net);
  std::vector<LinkId> route;
  router.route(g.a, g.c, 0, route);
  CHECK(std::find(route.begin(), route.end(), memory) == route.end());
}
