// tests/topologies/test_direct_networks.cpp — ring, torus, star and fully connected builders:
// vertex and cable counts against their formulas, and every route a minimal path.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "tests/support/route_check.hpp"
#include "base/error.hpp"
#include "tests/topologies/built_fabric.hpp"

using namespace collsim;

namespace {

struct Built : BuiltFabric {
  Built() : BuiltFabric({"wire", 10e9, 1e-6, 0}) {}
};

Built ring(std::uint32_t n, bool bidirectional, RoutingMode mode = RoutingMode::minimal, std::uint64_t seed = 1) {
  Built b;
  b.fabric = build_ring(b.net, {n, bidirectional, b.link}, mode, seed);
  return b;
}

Built torus(const std::vector<std::uint32_t>& dims, RoutingMode mode = RoutingMode::minimal, std::uint64_t seed = 1) {
  Built b;
  b.fabric = build_torus(b.net, {dims, b.link}, mode, seed);
  return b;
}

std::uint32_t ring_distance(std::uint32_t a, std::uint32_t b, std::uint32_t n) {
  const std::uint32_t ahead = (b + n - a) % n;
  return std::min(ahead, n - ahead);
}

// Coordinate j of endpoint v, dimension 0 fastest.
std::uint32_t coord(std::uint32_t v, const std::vector<std::uint32_t>& dims, std::size_t j) {
  for (std::size_t i = 0; i < j; ++i) v /= dims[i];
  return v % dims[j];
}

std::uint32_t torus_distance(std::uint32_t a, std::uint32_t b, const std::vector<std::uint32_t>& dims) {
  std::uint32_t hops = 0;
  for (std::size_t j = 0; j < dims.size(); ++j) hops += ring_distance(coord(a, dims, j), coord(b, dims, j), dims[j]);
  return hops;
}

std::uint64_t torus_cables(const std::vector<std::uint32_t>& dims) {
  std::uint64_t size = 1, cables = 0;
  for (std::uint32_t n : dims) size *= n;
  for (std::uint32_t n : dims) cables += n >= 3 ? size : n == 2 ? size / 2 : 0;
  return cables;
}

// The dimension a torus link moves along: the one coordinate its ends differ in.
std::size_t dimension_of(const Built& b, LinkId l, const std::vector<std::uint32_t>& dims) {
  const std::uint32_t from = b.net.link(l).from - b.fabric.endpoints[0], to = b.net.link(l).to - b.fabric.endpoints[0];
  for (std::size_t j = 0; j < dims.size(); ++j)
    if (coord(from, dims, j) != coord(to, dims, j)) return j;
  FAIL("link " << l << " joins equal coordinates");
  return 0;
}

}  // namespace

// ---- ring ----------------------------------------------------------------------------------

TEST_CASE("a bidirectional ring has n cables, and one cable for two endpoints") {
  for (std::uint32_t n : {2u, 3u, 4u, 7u, 64u}) {
    INFO("n = " << n);
    const Built b = ring(n, true);
    CHECK(b.net.vertex_count() == n);
    CHECK(b.net.count(VertexKind::endpoint) == n);
    CHECK(b.net.cable_count() == (n == 2 ? 1 : n));
    CHECK(b.net.link_count() == (n == 2 ? 2 : 2 * n));
    CHECK(b.fabric.endpoints.size() == n);
    CHECK(b.net.vertex(b.fabric.endpoints[n - 1]).name == std::string("r").append(std::to_string(n - 1)));
    CHECK_THAT(b.fabric.summary, Catch::Contains(std::to_string(n) + " endpoints"));
  }
}

TEST_CASE("a unidirectional ring has only the links from each endpoint to the next") {
  for (std::uint32_t n : {2u, 3u, 8u}) {
    const Built b = ring(n, false);
    REQUIRE(b.net.link_count() == n);
    for (LinkId l = 0; l < n; ++l) {
      CHECK(b.net.link(l).from == b.fabric.endpoints[l]);
      CHECK(b.net.link(l).to == b.fabric.endpoints[(l + 1) % n]);
      CHECK(b.net.link(l).kind == LinkKind::cable);
    }
  }
}

TEST_CASE("ring routes are paths the short way round, and all the way forward when unidirectional") {
  for (std::uint32_t n : {2u, 3u, 4u, 5u, 8u}) {
    for (bool bidirectional : {true, false}) {
      for (RoutingMode mode : {RoutingMode::minimal, RoutingMode::ecmp}) {
        INFO("bidirectional " << bidirectional << " " << to_string(mode));
        check_every_route(ring(n, bidirectional, mode), [&](std::uint32_t s, std::uint32_t d) {
          return bidirectional ? ring_distance(s, d, n) : (d + n - s) % n;
        });
      }
    }
  }
}

TEST_CASE("on a ring minimal routing breaks ties forward and ecmp splits them by flow") {
  const Built minimal = ring(6, true);
  CHECK(minimal.route(0, 3) == std::vector<LinkId>{0, 2, 4});  // cables r0->r1, r1->r2, r2->r3
  CHECK(minimal.route(4, 1) == std::vector<LinkId>{8, 10, 0});
  const Built ecmp = ring(6, true, RoutingMode::ecmp);
  int forward = 0;
  for (std::uint64_t flow = 0; flow < 400; ++flow) forward += ecmp.route(0, 3, flow).front() == 0;
  CHECK(forward > 150);
  CHECK(forward < 250);
  for (std::uint64_t flow = 0; flow < 50; ++flow) CHECK(ecmp.route(0, 2, flow) == minimal.route(0, 2));
}

TEST_CASE("bad ring parameters throw naming the parameter") {
  Built b;
  CHECK_THROWS_WITH(build_ring(b.net, {1, true, b.link}, RoutingMode::minimal, 0), Catch::Contains("endpoints"));
  CHECK_THROWS_WITH(build_ring(b.net, {0, false, b.link}, RoutingMode::minimal, 0), Catch::Contains("endpoints"));
  CHECK_THROWS_WITH(build_ring(b.net, {4, true, 9}, RoutingMode::minimal, 0), Catch::Contains("link"));
  CHECK_THROWS_WITH(build_ring(b.net, {4, true, b.link}, RoutingMode::valiant, 0),
                    Catch::Contains("valiant") && Catch::Contains("dragonfly only"));
  CHECK_THROWS_WITH(build_ring(b.net, {4, true, b.link}, RoutingMode::shortest_path, 0),
                    Catch::Contains("ShortestPathRouter"));
  CHECK(b.net.vertex_count() == 0);  // nothing half-built
}

TEST_CASE("a fabric router rejects vertices that are not its endpoints") {
  Built b;
  const VertexId other = b.net.add_vertex(VertexKind::endpoint, "other");
  b.fabric = build_ring(b.net, {4, true, b.link}, RoutingMode::minimal, 0);
  std::vector<LinkId> out;
  CHECK_THROWS_WITH(b.fabric.router->route(other, b.fabric.endpoints[1], 0, out), Catch::Contains("not one of"));
  CHECK_THROWS_WITH(b.fabric.router->route(b.fabric.endpoints[1], 99, 0, out), Catch::Contains("not one of"));
  b.fabric.router->route(b.fabric.endpoints[0], b.fabric.endpoints[2], 0, out);
  CHECK(is_path(b.net, out, b.fabric.endpoints[0], b.fabric.endpoints[2]));  // after a vertex it did not add
}

// ---- torus ---------------------------------------------------------------------------------

TEST_CASE("a torus has one cable per endpoint and dimension, half that for a dimension of 2, none for 1") {
  const std::vector<std::vector<std::uint32_t>> shapes{{4, 4}, {3, 3, 3}, {2, 3}, {2, 2, 2}, {1, 5}, {5, 1, 2},
                                                       {4, 2, 1, 3}, {2}, {3}, {8, 8, 8}, {2, 2, 2, 2, 2, 2}};
  for (const auto& dims : shapes) {
    const Built b = torus(dims);
    std::uint64_t size = 1;
    for (std::uint32_t n : dims) size *= n;
    INFO("torus of " << dims.size() << " dims, " << size << " endpoints");
    CHECK(b.net.vertex_count() == size);
    CHECK(b.fabric.endpoints.size() == size);
    CHECK(b.net.cable_count() == torus_cables(dims));
    CHECK(b.net.link_count() == 2 * torus_cables(dims));
  }
}

TEST_CASE("torus endpoints are named by coordinates with dimension 0 varying fastest") {
  const Built b = torus({4, 3, 2});
  CHECK(b.net.vertex(b.fabric.endpoints[0]).name == "t.0.0.0");
  CHECK(b.net.vertex(b.fabric.endpoints[1]).name == "t.1.0.0");
  CHECK(b.net.vertex(b.fabric.endpoints[4]).name == "t.0.1.0");
  CHECK(b.net.vertex(b.fabric.endpoints[3 + 4 * 2 + 12 * 1]).name == "t.3.2.1");
  CHECK(b.fabric.summary == "torus 4x3x2: 24 endpoints, 60 cables");
}

TEST_CASE("torus routes are paths whose length is the sum of the shortest ring distances") {
  const std::vector<std::vector<std::uint32_t>> shapes{{5}, {4, 4}, {3, 2, 4}, {2, 2, 2}, {1, 6}, {5, 1, 3, 2}};
  for (const auto& dims : shapes) {
    for (RoutingMode mode : {RoutingMode::minimal, RoutingMode::ecmp}) {
      INFO(to_string(mode));
      check_every_route(torus(dims, mode), [&](std::uint32_t s, std::uint32_t d) { return torus_distance(s, d, dims); });
    }
  }
}

TEST_CASE("minimal torus routes finish each dimension before the next and break ties toward +") {
  const std::vector<std::uint32_t> dims{4, 6, 3};
  const Built b = torus(dims);
  for (std::uint32_t s = 0; s < 72; s += 5)
    for (std::uint32_t d = 0; d < 72; ++d) {
      const std::vector<LinkId> r = b.route(s, d);
      for (std::size_t i = 1; i < r.size(); ++i) CHECK(dimension_of(b, r[i - 1], dims) <= dimension_of(b, r[i], dims));
    }
  // t.0.0.0 -> t.2.3.0: two hops + in dimension 0, then three + in dimension 1.
  const std::vector<LinkId> r = b.route(0, 2 + 4 * 3);
  REQUIRE(r.size() == 5);
  CHECK(b.net.vertex(b.net.link(r[0]).to).name == "t.1.0.0");
  CHECK(b.net.vertex(b.net.link(r[2]).to).name == "t.2.1.0");
}

TEST_CASE("ecmp torus routes vary the dimension order and the direction of ties by flow") {
  const std::vector<std::uint32_t> dims{4, 4};
  const Built b = torus(dims, RoutingMode::ecmp);
  std::set<std::vector<LinkId>> routes;
  std::set<LinkId> first_links;
  for (std::uint64_t flow = 0; flow < 200; ++flow) {
    const std::vector<LinkId> r = b.route(0, 2 + 4 * 2, flow);  // a tie in both dimensions
    routes.insert(r);
    first_links.insert(r.front());
  }
  CHECK(first_links.size() == 4);  // +x, -x, +y, -y
  CHECK(routes.size() >= 16);      // 4 direction choices x 6 orders of the 4 hops
}

TEST_CASE("torus routes depend only on the arguments and the seed") {
  const std::vector<std::uint32_t> dims{5, 4, 3};
  const Built a = torus(dims, RoutingMode::ecmp, 42), again = torus(dims, RoutingMode::ecmp, 42);
  const Built other = torus(dims, RoutingMode::ecmp, 43);
  int differ = 0;
  for (std::uint32_t s = 0; s < 60; s += 7)
    for (std::uint32_t d = 0; d < 60; ++d) {
      CHECK(a.route(s, d, s + d) == again.route(s, d, s + d));
      differ += a.route(s, d, s + d) != other.route(s, d, s + d);
    }
  CHECK(differ > 0);
}

TEST_CASE("bad torus parameters throw naming the parameter") {
  Built b;
  auto build = [&](std::vector<std::uint32_t> dims) {
    build_torus(b.net, {std::move(dims), b.link}, RoutingMode::minimal, 0);
  };
  CHECK_THROWS_WITH(build({}), Catch::Contains("dims"));
  CHECK_THROWS_WITH(build({2, 2, 2, 2, 2, 2, 2}), Catch::Contains("dims") && Catch::Contains("1..6"));
  CHECK_THROWS_WITH(build({4, 0}), Catch::Contains("dims") && Catch::Contains(">= 1"));
  CHECK_THROWS_WITH(build({1, 1}), Catch::Contains("dims") && Catch::Contains(">= 2"));
  CHECK_THROWS_WITH(build({4096, 4096, 4096}), Catch::Contains("dims"));
  CHECK_THROWS_WITH(build_torus(b.net, {{4}, 3}, RoutingMode::minimal, 0), Catch::Contains("link"));
  CHECK_THROWS_WITH(build_torus(b.net, {{4}, b.link}, RoutingMode::valiant, 0), Catch::Contains("valiant"));
  CHECK(b.net.vertex_count() == 0);
}

// ---- star ----------------------------------------------------------------------------------

TEST_CASE("a star has one switch and a cable per endpoint, and routes are two links through it") {
  for (std::uint32_t n : {1u, 2u, 9u}) {
    Built b;
    b.fabric = build_star(b.net, {n, b.link, std::nullopt}, RoutingMode::minimal, 0);
    INFO("n = " << n);
    CHECK(b.net.vertex_count() == n + 1);
    CHECK(b.net.count(VertexKind::switch_) == 1);
    CHECK(b.net.cable_count() == n);
    CHECK(b.net.link_count() == 2 * n);
    CHECK(b.net.vertex(n).name == "sw");
    check_every_route(b, [](std::uint32_t s, std::uint32_t d) { return s == d ? 0u : 2u; });
  }
}

TEST_CASE("a star backplane is one capacity link from sw.in to sw.out that every route crosses") {
  Built b;
  b.fabric = build_star(b.net, {5, b.link, 40e9}, RoutingMode::ecmp, 0);
  CHECK(b.net.vertex_count() == 7);
  CHECK(b.net.vertex(5).name == "sw.in");
  CHECK(b.net.vertex(6).name == "sw.out");
  CHECK(b.net.link_count() == 11);
  CHECK(b.net.cable_count() == 5);  // 10 one-way cable links
  const LinkId backplane = b.net.find_link(5, 6);
  REQUIRE(backplane != kNoLink);
  CHECK(b.net.link(backplane).kind == LinkKind::capacity);
  CHECK(b.net.link(backplane).bandwidth_Bps == Approx(40e9));
  CHECK(b.net.find_link(6, 5) == kNoLink);
  for (std::uint32_t s = 0; s < 5; ++s)
    for (std::uint32_t d = 0; d < 5; ++d) {
      if (s == d) continue;
      const std::vector<LinkId> r = b.route(s, d, s + d);
      CHECK(is_path(b.net, r, b.fabric.endpoints[s], b.fabric.endpoints[d]));
      REQUIRE(r.size() == 3);
      CHECK(r[1] == backplane);
      CHECK(b.net.link(r[0]).kind == LinkKind::cable);
    }
  CHECK_THAT(b.fabric.summary, Catch::Contains("backplane"));
}

TEST_CASE("bad star parameters throw naming the parameter") {
  Built b;
  auto build = [&](StarParams p, RoutingMode mode = RoutingMode::minimal) { build_star(b.net, p, mode, 0); };
  CHECK_THROWS_WITH(build({0, b.link, std::nullopt}), Catch::Contains("endpoints"));
  CHECK_THROWS_WITH(build({4, b.link, 0.0}), Catch::Contains("backplane"));
  CHECK_THROWS_WITH(build({4, b.link, -1.0}), Catch::Contains("backplane"));
  CHECK_THROWS_WITH(build({4, b.link, std::nan("")}), Catch::Contains("backplane"));
  CHECK_THROWS_WITH(build({4, 5, std::nullopt}), Catch::Contains("link"));
  CHECK_THROWS_WITH(build({4, b.link, std::nullopt}, RoutingMode::valiant), Catch::Contains("valiant"));
  CHECK(b.net.vertex_count() == 0);
}

// ---- fully connected -----------------------------------------------------------------------

TEST_CASE("a fully connected fabric has a cable per pair and every route is that one link") {
  for (std::uint32_t n : {1u, 2u, 7u, 40u}) {
    for (RoutingMode mode : {RoutingMode::minimal, RoutingMode::ecmp}) {
      Built b;
      b.fabric = build_full(b.net, {n, b.link}, mode, 0);
      INFO("n = " << n);
      CHECK(b.net.vertex_count() == n);
      CHECK(b.net.cable_count() == std::size_t(n) * (n - 1) / 2);
      check_every_route(b, [](std::uint32_t s, std::uint32_t d) { return s == d ? 0u : 1u; });
    }
  }
}

TEST_CASE("bad fully connected parameters throw naming the parameter") {
  Built b;
  CHECK_THROWS_WITH(build_full(b.net, {0, b.link}, RoutingMode::minimal, 0), Catch::Contains("endpoints"));
  CHECK_THROWS_WITH(build_full(b.net, {2049, b.link}, RoutingMode::minimal, 0),
                    Catch::Contains("endpoints") && Catch::Contains("2048"));
  CHECK_THROWS_WITH(build_full(b.net, {4, 2}, RoutingMode::minimal, 0), Catch::Contains("link"));
  CHECK_THROWS_WITH(build_full(b.net, {4, b.link}, RoutingMode::shortest_path, 0), Catch::Contains("shortest-path"));
  CHECK(b.net.vertex_count() == 0);
}
