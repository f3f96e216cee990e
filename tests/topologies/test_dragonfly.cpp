// tests/topologies/test_dragonfly.cpp
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "tests/support/route_check.hpp"
#include "base/error.hpp"
#include "topologies/builders/builders.hpp"

using namespace collsim;

namespace {

// Link classes by id: 0 terminal, 1 local, 2 global.
constexpr LinkClassId kTerminal = 0, kLocal = 1, kGlobal = 2;

struct Dragonfly {
  Network net;
  Fabric fabric;
};

Network with_classes() {
  Network net;
  net.add_link_class({"terminal", 100e9, 1e-7, 0});
  net.add_link_class({"local", 50e9, 1e-7, 0});
  net.add_link_class({"global", 25e9, 1e-6, 0});
  return net;
}

DragonflyParams params(std::uint32_t p, std::uint32_t a, std::uint32_t h, std::uint32_t g,
                       GlobalArrangement arrangement = GlobalArrangement::absolute) {
  return {p, a, h, g, arrangement, kTerminal, kLocal, kGlobal};
}

std::unique_ptr<Dragonfly> build(const DragonflyParams& p, RoutingMode mode = RoutingMode::minimal,
                                 std::uint64_t seed = 1) {
  auto d = std::make_unique<Dragonfly>();
  d->net = with_classes();
  d->fabric = build_dragonfly(d->net, p, mode, seed);
  d->net.finalize();
  return d;
}

// The group of a router or terminal vertex, read from its name "g3.r5" / "g3.r5.t1".
std::uint32_t group_of(const Network& net, VertexId v) {
  const std::string& name = net.vertex(v).name;
  return std::uint32_t(std::stoul(name.substr(1, name.find('.') - 1)));
}

Route route(const Dragonfly& d, std::uint32_t src, std::uint32_t dst, std::uint64_t flow = 0) {
  Route r;
  d.fabric.router->route(d.fabric.endpoints[src], d.fabric.endpoints[dst], flow, r);
  return r;
}

std::size_t count_class(const Network& net, const Route& r, LinkClassId c) {
  return std::size_t(std::count_if(r.begin(), r.end(), [&](LinkId l) { return net.link(l).link_class == c; }));
}

std::size_t router_hops(const Network& net, const Route& r) {
  return r.size() - count_class(net, r, kTerminal);
}

// The spec's arrangement, written independently of the builder: the group slot s of group
// i reaches.
std::uint32_t spec_target(GlobalArrangement arr, std::uint32_t g, std::uint32_t i, std::uint32_t s) {
  if (arr == GlobalArrangement::absolute) return s < i ? s : s + 1;
  if (arr == GlobalArrangement::relative) return (i + s + 1) % g;
  const std::uint32_t d = s / 2 + 1;
  return s % 2 == 0 ? (i + d) % g : (i + g - d) % g;
}

// Expected directed global links as (router from, router to) pairs, router = group*a + r:
// port k of group i pairs with the port of the target group, same copy, whose slot
// points back at i (found by search).
std::multiset<std::pair<std::uint32_t, std::uint32_t>> spec_global_links(const DragonflyParams& p) {
  const std::uint32_t copies = p.a * p.h / (p.g - 1);
  std::multiset<std::pair<std::uint32_t, std::uint32_t>> links;
  for (std::uint32_t i = 0; i < p.g; ++i)
    for (std::uint32_t k = 0; k < copies * (p.g - 1); ++k) {
      const std::uint32_t j = spec_target(p.arrangement, p.g, i, k % (p.g - 1));
      std::uint32_t back = 0;
      while (spec_target(p.arrangement, p.g, j, back) != i) ++back;
      const std::uint32_t k2 = k / (p.g - 1) * (p.g - 1) + back;
      links.insert({i * p.a + k / p.h, j * p.a + k2 / p.h});
    }
  return links;
}

}  // namespace

TEST_CASE("A full-size dragonfly has a*p*(a*h+1) terminals and routers of radix p + h + a - 1") {
  using Shape = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>;
  const auto [p, a, h] = GENERATE(Shape{1, 2, 1}, Shape{2, 4, 2}, Shape{4, 8, 4}, Shape{8, 16, 8}, Shape{3, 2, 5});
  CAPTURE(p, a, h);
  const auto d = build(params(p, a, h, 0));
  const std::uint32_t g = a * h + 1, n = a * p * g;
  CHECK(d->fabric.endpoints.size() == n);
  CHECK(d->net.count(VertexKind::endpoint) == n);
  CHECK(d->net.count(VertexKind::switch_) == g * a);
  CHECK(d->net.cable_count() == n + g * a * (a - 1) / 2 + g * (g - 1) / 2);
  std::vector<std::uint32_t> out_degree(d->net.vertex_count(), 0);
  for (const Link& l : d->net.links()) ++out_degree[l.from];
  for (VertexId v = 0; v < d->net.vertex_count(); ++v)
    if (d->net.vertex(v).kind == VertexKind::switch_) REQUIRE(out_degree[v] == p + h + a - 1);
  CHECK_THAT(d->fabric.summary, Catch::Contains(fmt::format("{} terminals, {} routers", n, g * a)));
}

TEST_CASE("Dragonfly vertices are named by group, router and terminal in endpoint order") {
  const auto d = build(params(2, 4, 2, 0));
  CHECK(d->net.vertex(d->fabric.endpoints[0]).name == "g0.r0.t0");
  CHECK(d->net.vertex(d->fabric.endpoints[1]).name == "g0.r0.t1");
  CHECK(d->net.vertex(d->fabric.endpoints[2]).name == "g0.r1.t0");
  CHECK(d->net.vertex(d->fabric.endpoints[8 * 3 + 7]).name == "g3.r3.t1");
  // A terminal's cable goes to its own router.
  const Route r = route(*d, 8 * 3 + 7, 8 * 3 + 6);
  REQUIRE(r.size() == 2);
  CHECK(d->net.vertex(d->net.link(r[0]).to).name == "g3.r3");
  CHECK(d->net.vertex(d->net.link(r[0]).to).kind == VertexKind::switch_);
}

TEST_CASE("Every used global port has one cable where the arrangement puts it, group pairs get equal copies") {
  using Case = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>;  // a, h, g
  const auto arrangement =
      GENERATE(GlobalArrangement::absolute, GlobalArrangement::relative, GlobalArrangement::circulant);
  // Full size, 2 copies (a*h = 8, g = 5), 2 copies with unused ports (8 ports, 3 slots),
  // 8 copies between two groups, odd and even g.
  const auto [a, h, g] = GENERATE(Case{4, 2, 9}, Case{4, 2, 5}, Case{4, 2, 4}, Case{4, 2, 2}, Case{2, 4, 3},
                                  Case{3, 3, 10}, Case{3, 3, 7}, Case{5, 1, 6});
  CAPTURE(a, h, g, int(arrangement));
  const DragonflyParams p = params(1, a, h, g, arrangement);
  const auto d = build(p);
  const std::uint32_t copies = a * h / (g - 1);
  const VertexId first_router = a * g;  // terminals come first, p = 1
  std::multiset<std::pair<std::uint32_t, std::uint32_t>> actual;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> per_group_pair;
  for (const Link& l : d->net.links()) {
    if (l.link_class != kGlobal) continue;
    actual.insert({l.from - first_router, l.to - first_router});
    ++per_group_pair[{group_of(d->net, l.from), group_of(d->net, l.to)}];
  }
  CHECK(d->net.cable_count() == a * g + g * a * (a - 1) / 2 + g * (g - 1) / 2 * copies);
  CHECK(actual == spec_global_links(p));
  REQUIRE(per_group_pair.size() == g * (g - 1));
  for (const auto& [groups, n] : per_group_pair) {
    CHECK(groups.first != groups.second);
    CHECK(n == copies);
  }
}

TEST_CASE("Global arrangement names parse and an unknown name lists the known ones") {
  CHECK(parse_global_arrangement("absolute") == GlobalArrangement::absolute);
  CHECK(parse_global_arrangement("relative") == GlobalArrangement::relative);
  CHECK(parse_global_arrangement("circulant") == GlobalArrangement::circulant);
  CHECK_THROWS_WITH(parse_global_arrangement("palmtree"),
                    Catch::Contains("palmtree") && Catch::Contains("absolute, relative, circulant"));
}

TEST_CASE("Minimal and ECMP routes are paths with at most one global link and three router hops") {
  const auto arrangement =
      GENERATE(GlobalArrangement::absolute, GlobalArrangement::relative, GlobalArrangement::circulant);
  const auto mode = GENERATE(RoutingMode::minimal, RoutingMode::ecmp);
  const std::uint32_t g = GENERATE(9u, 5u);  // full size; two copies per group pair
  CAPTURE(int(arrangement), to_string(mode), g);
  const auto d = build(params(2, 4, 2, g, arrangement), mode, 7);
  const std::uint32_t n = std::uint32_t(d->fabric.endpoints.size());
  for (std::uint32_t s = 0; s < n; ++s)
    for (std::uint32_t t = 0; t < n; ++t) {
      const Route r = route(*d, s, t, s * 31 + t);
      const VertexId src = d->fabric.endpoints[s], dst = d->fabric.endpoints[t];
      REQUIRE(is_path(d->net, r, src, dst));
      if (s == t) continue;
      const bool same_router = s / 2 == t / 2, same_group = s / 8 == t / 8;
      REQUIRE(count_class(d->net, r, kTerminal) == 2);
      REQUIRE(count_class(d->net, r, kGlobal) == (same_group ? 0u : 1u));
      REQUIRE(router_hops(d->net, r) <= (same_group ? (same_router ? 0u : 1u) : 3u));
    }
}

TEST_CASE("Valiant routes detour through a third group with at most two global links and five router hops") {
  const auto arrangement =
      GENERATE(GlobalArrangement::absolute, GlobalArrangement::relative, GlobalArrangement::circulant);
  CAPTURE(int(arrangement));
  const auto d = build(params(2, 4, 2, 9, arrangement), RoutingMode::valiant, 3);
  const auto minimal = build(params(2, 4, 2, 9, arrangement), RoutingMode::minimal, 3);
  const std::uint32_t n = std::uint32_t(d->fabric.endpoints.size());
  for (std::uint32_t s = 0; s < n; ++s)
    for (std::uint32_t t = 0; t < n; ++t) {
      const Route r = route(*d, s, t, s + t);
      REQUIRE(is_path(d->net, r, d->fabric.endpoints[s], d->fabric.endpoints[t]));
      if (s / 8 == t / 8) {  // within a group Valiant is the minimal route
        REQUIRE(r == route(*minimal, s, t, s + t));
        continue;
      }
      REQUIRE(count_class(d->net, r, kGlobal) == 2);
      REQUIRE(router_hops(d->net, r) <= 5);
      const bool detours = std::any_of(r.begin(), r.end(), [&](LinkId l) {
        const std::uint32_t group = group_of(d->net, d->net.link(l).to);
        return group != s / 8 && group != t / 8;
      });
      REQUIRE(detours);
    }
}

TEST_CASE("Valiant with two groups is refused: it has no third group to detour through") {
  REQUIRE_THROWS_WITH(build(params(2, 4, 2, 2), RoutingMode::valiant, 3),
                      Catch::Contains("valiant routing goes through a third group, and this one has 2"));
  REQUIRE_NOTHROW(build(params(2, 4, 2, 3), RoutingMode::valiant, 3));
}

TEST_CASE("ECMP spreads flows between two groups evenly over all copies of their global links") {
  // a*h = 8 ports, g = 3: four copies between each pair of groups.
  const auto d = build(params(2, 4, 2, 3, GlobalArrangement::relative), RoutingMode::ecmp, 11);
  std::map<LinkId, int> used;
  constexpr int kFlows = 4000;
  for (int flow = 0; flow < kFlows; ++flow)
    for (LinkId l : route(*d, 1, 8 + 5, std::uint64_t(flow)))
      if (d->net.link(l).link_class == kGlobal) ++used[l];
  REQUIRE(used.size() == 4);
  for (const auto& [link, flows] : used) CHECK((flows > kFlows / 4 * 8 / 10 && flows < kFlows / 4 * 12 / 10));
}

TEST_CASE("Minimal routing picks the copy by destination terminal, the same for every flow") {
  const auto d = build(params(2, 4, 2, 3, GlobalArrangement::relative), RoutingMode::minimal, 11);
  auto global_of = [&](std::uint32_t dst, std::uint64_t flow) {
    for (LinkId l : route(*d, 1, dst, flow))
      if (d->net.link(l).link_class == kGlobal) return l;
    return kNoLink;
  };
  std::set<LinkId> by_destination;
  for (std::uint32_t dst = 8; dst < 16; ++dst) {
    by_destination.insert(global_of(dst, 0));
    for (std::uint64_t flow = 1; flow < 20; ++flow) REQUIRE(global_of(dst, flow) == global_of(dst, 0));
  }
  CHECK(by_destination.size() == 4);  // dst mod 4 covers all copies
  CHECK(global_of(8, 0) == global_of(12, 0));
}

TEST_CASE("Routes depend only on the arguments and the seed") {
  const auto mode = GENERATE(RoutingMode::ecmp, RoutingMode::valiant);
  CAPTURE(to_string(mode));
  const auto one = build(params(2, 4, 2, 5), mode, 42);
  const auto two = build(params(2, 4, 2, 5), mode, 42);
  const auto other_seed = build(params(2, 4, 2, 5), mode, 43);
  int differ = 0;
  for (std::uint32_t s = 0; s < 40; ++s)
    for (std::uint32_t t = 0; t < 40; ++t) {
      REQUIRE(route(*one, s, t, 9) == route(*two, s, t, 9));
      if (route(*one, s, t, 9) != route(*other_seed, s, t, 9)) ++differ;
    }
  CHECK(differ > 100);
}

TEST_CASE("A different seed moves some Valiant flows to other intermediate groups") {
  const auto one = build(params(2, 4, 2, 9), RoutingMode::valiant, 1);
  const auto two = build(params(2, 4, 2, 9), RoutingMode::valiant, 2);
  auto groups = [](const Dragonfly& d, const Route& r) {
    std::set<std::uint32_t> seen;
    for (LinkId l : r) seen.insert(group_of(d.net, d.net.link(l).to));
    return seen;
  };
  int moved = 0;
  for (std::uint32_t t = 8; t < 72; ++t)
    if (groups(*one, route(*one, 0, t)) != groups(*two, route(*two, 0, t))) ++moved;
  CHECK(moved > 20);  // 64 flows, 7 candidate groups: about 55 expected to move
}

TEST_CASE("A single group is an all-to-all of routers with no global links") {
  const auto d = build(params(2, 4, 2, 1));
  CHECK(d->fabric.endpoints.size() == 8);
  CHECK(d->net.cable_count() == 8 + 6);
  CHECK_THAT(d->fabric.summary, Catch::Contains("no global links"));
  for (std::uint32_t s = 0; s < 8; ++s)
    for (std::uint32_t t = 0; t < 8; ++t) {
      const Route r = route(*d, s, t);
      REQUIRE(is_path(d->net, r, d->fabric.endpoints[s], d->fabric.endpoints[t]));
      REQUIRE(router_hops(d->net, r) <= 1);
    }
}

TEST_CASE("The summary names the shape, the arrangement and the copies per group pair") {
  const auto d = build(params(4, 8, 4, 17, GlobalArrangement::circulant));
  CHECK(d->fabric.summary == "dragonfly p=4 a=8 h=4 g=17 (circulant): 544 terminals, 136 routers, "
                             "2 global links per group pair");
}

TEST_CASE("Bad dragonfly parameters throw naming the parameter and leave the network untouched") {
  Network net = with_classes();
  auto fails = [&](const DragonflyParams& p, const std::string& message, RoutingMode mode = RoutingMode::minimal) {
    CHECK_THROWS_WITH(build_dragonfly(net, p, mode, 0), Catch::Contains(message));
    CHECK(net.vertex_count() == 0);
  };
  fails(params(0, 4, 2, 0), "p must be >= 1 (got 0)");
  fails(params(2, 0, 2, 0), "a must be >= 1 (got 0)");
  fails(params(2, 4, 0, 0), "h must be >= 1 (got 0)");
  fails(params(4, 8, 4, 40), "g must be <= a*h+1 = 33 (got 40)");
  fails(params(64, 64, 64, 0), "terminals g*a*p = 16781312 must be <= 2097152");
  fails(params(1, 1u << 20, 1, 1), "links");
  fails(params(2, 4, 2, 0), "ShortestPathRouter", RoutingMode::shortest_path);
  DragonflyParams bad_class = params(2, 4, 2, 0);
  bad_class.global_link = 9;
  fails(bad_class, "global_link = 9");
}

TEST_CASE("The dragonfly router rejects vertices that are not its terminals") {
  const auto d = build(params(1, 2, 1, 0));
  Route r;
  const VertexId router_vertex = VertexId(d->fabric.endpoints.size());
  CHECK_THROWS_AS(d->fabric.router->route(d->fabric.endpoints[0], router_vertex, 0, r), Error);
}
