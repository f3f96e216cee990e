// tests/topologies/test_fat_tree.cpp — XGFT fat-trees, k-ary n-trees and Al-Fares: counts
// against the literature's formulas (docs/design.md section 5), up-down minimal routes, D-mod-k
// and ECMP spreading, tapering.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/support/route_check.hpp"
#include "base/error.hpp"
#include "tests/topologies/built_fabric.hpp"

using namespace collsim;

namespace {

struct Tree : BuiltFabric {
  Tree() : BuiltFabric({"ib", 50e9, 1e-6, 0}) {}
  // 0 for a host "h12", l for a switch "l2.s5".
  std::uint32_t level(VertexId v) const {
    const std::string& name = net.vertex(v).name;
    return name[0] == 'h' ? 0 : std::uint32_t(std::stoul(name.substr(1, name.find('.') - 1)));
  }
};

using Sizes = std::vector<std::uint32_t>;

Tree xgft(const Sizes& m, const Sizes& w, RoutingMode mode = RoutingMode::minimal, std::uint64_t seed = 1,
          std::vector<double> taper = {}) {
  Tree t;
  XgftParams p{m, w, std::vector<LinkClassId>(m.size(), t.link), std::move(taper)};
  t.fabric = build_xgft(t.net, p, mode, seed);
  return t;
}

Tree kary(std::uint32_t k, std::uint32_t n, RoutingMode mode = RoutingMode::minimal, std::uint64_t seed = 1) {
  Tree t;
  t.fabric = build_xgft(t.net, k_ary_n_tree(k, n, t.link), mode, seed);
  return t;
}

std::uint64_t power(std::uint64_t base, std::uint32_t exponent) {
  std::uint64_t out = 1;
  while (exponent-- > 0) out *= base;
  return out;
}

// The nearest common ancestor level: hosts s and d first share a subtree of prod m_1..m_L hosts.
std::uint32_t nca_level(std::uint32_t s, std::uint32_t d, const Sizes& m) {
  std::uint32_t level = 0;
  for (std::uint64_t block = 1; s / block != d / block; block *= m[level++]) {}
  return level;
}

std::map<std::uint32_t, std::uint64_t> switches_per_level(const Tree& t) {
  std::map<std::uint32_t, std::uint64_t> out;
  for (VertexId v = 0; v < t.net.vertex_count(); ++v)
    if (t.net.vertex(v).kind == VertexKind::switch_) ++out[t.level(v)];
  return out;
}

// The route is a path from s to d of 2 * NCA links, strictly up and then strictly down.
void check_up_down(const Tree& t, std::uint32_t s, std::uint32_t d, const std::vector<LinkId>& r, const Sizes& m) {
  INFO(s << " -> " << d);
  REQUIRE(is_path(t.net, r, t.fabric.endpoints[s], t.fabric.endpoints[d]));
  const std::uint32_t top = s == d ? 0 : nca_level(s, d, m);
  REQUIRE(r.size() == 2 * top);
  for (std::size_t i = 0; i < r.size(); ++i) {
    const std::uint32_t from = t.level(t.net.link(r[i]).from), to = t.level(t.net.link(r[i]).to);
    CHECK(to == (i < top ? from + 1 : from - 1));
  }
}

}  // namespace

TEST_CASE("a k-ary n-tree has k^n hosts, n k^(n-1) switches and k^n cables per level") {
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> shapes{{2, 1}, {2, 2}, {2, 3}, {2, 4}, {2, 5},
                                                                     {4, 3}, {8, 2}, {16, 3}, {3, 3}};
  for (auto [k, n] : shapes) {
    INFO(k << "-ary " << n << "-tree");
    const Tree t = kary(k, n);
    CHECK(t.fabric.endpoints.size() == power(k, n));
    CHECK(t.net.count(VertexKind::endpoint) == power(k, n));
    CHECK(t.net.count(VertexKind::switch_) == n * power(k, n - 1));
    CHECK(t.net.cable_count() == n * power(k, n));
    for (auto [level, count] : switches_per_level(t)) CHECK(count == power(k, n - 1));
  }
}

TEST_CASE("k_ary_n_tree gives hosts one parent and switches k children and k parents") {
  const XgftParams p = k_ary_n_tree(4, 3, 7);
  CHECK(p.m == Sizes{4, 4, 4});
  CHECK(p.w == Sizes{1, 4, 4});
  CHECK(p.links == std::vector<LinkClassId>{7, 7, 7});
  CHECK(p.taper.empty());
}

TEST_CASE("an Al-Fares fat-tree of k-port switches has k^3/4 hosts, 5k^2/4 switches and (k/2)^2 cores") {
  for (std::uint32_t k : {2u, 4u, 8u, 16u, 48u}) {
    INFO("k = " << k);
    Tree t;
    t.fabric = build_xgft(t.net, al_fares(k, t.link), RoutingMode::minimal, 0);
    CHECK(t.fabric.endpoints.size() == std::size_t(k) * k * k / 4);
    CHECK(t.net.count(VertexKind::switch_) == 5 * std::size_t(k) * k / 4);
    const auto levels = switches_per_level(t);
    CHECK(levels.at(1) == std::size_t(k) * k / 2);  // k pods of k/2 edge switches
    CHECK(levels.at(2) == std::size_t(k) * k / 2);  // and k/2 aggregation switches
    CHECK(levels.at(3) == std::size_t(k / 2) * (k / 2));
    // Every switch uses exactly its k ports; a host has one uplink.
    std::vector<std::uint32_t> ports(t.net.vertex_count());
    for (const Link& l : t.net.links()) ++ports[l.from];
    for (VertexId v = 0; v < t.net.vertex_count(); ++v) CHECK(ports[v] == (t.level(v) == 0 ? 1 : k));
  }
}

TEST_CASE("an XGFT level l has prod_{i>l} m_i * prod_{i<=l} w_i switches of m_l children and w_(l+1) parents") {
  const Sizes m{4, 3, 2}, w{1, 2, 3};
  const Tree t = xgft(m, w);
  CHECK(t.fabric.endpoints.size() == 24);
  const auto levels = switches_per_level(t);
  CHECK(levels.at(1) == 3 * 2 * 1);
  CHECK(levels.at(2) == 2 * 1 * 2);
  CHECK(levels.at(3) == 1 * 2 * 3);
  std::vector<std::uint32_t> up(t.net.vertex_count()), down(t.net.vertex_count());
  for (const Link& l : t.net.links()) ++(t.level(l.to) > t.level(l.from) ? up : down)[l.from];
  for (VertexId v = 0; v < t.net.vertex_count(); ++v) {
    const std::uint32_t level = t.level(v);
    INFO(t.net.vertex(v).name);
    CHECK(down[v] == (level == 0 ? 0 : m[level - 1]));
    CHECK(up[v] == (level == 3 ? 0 : w[level]));
  }
  CHECK(t.fabric.summary == "XGFT(3; 4,3,2; 1,2,3): 24 hosts, 16 switches");
}

TEST_CASE("XGFT vertices are hosts h<i> in index order, then switches l<level>.s<i> level by level") {
  const Tree t = xgft({4, 4, 4}, {1, 4, 4});
  CHECK(t.fabric.endpoints.front() == 0);
  CHECK(t.fabric.endpoints.back() == 63);
  CHECK(t.net.vertex(12).name == "h12");
  CHECK(t.net.vertex(64).name == "l1.s0");
  CHECK(t.net.vertex(64 + 16 + 5).name == "l2.s5");
  CHECK(t.net.vertex(64 + 47).name == "l3.s15");
  CHECK(t.fabric.summary == "XGFT(3; 4,4,4; 1,4,4): 64 hosts, 48 switches");
}

TEST_CASE("fat-tree routes go up to the nearest common ancestor and down, 2 links under one leaf") {
  const std::vector<std::pair<Sizes, Sizes>> shapes{
      {{4, 3, 2}, {1, 2, 3}}, {{3, 3, 3}, {1, 3, 3}}, {{2, 2, 4}, {1, 2, 2}}, {{2, 1, 3}, {2, 2, 1}}, {{5}, {1}},
      {{2, 3}, {3, 2}}};
  for (const auto& [m, w] : shapes) {
    for (RoutingMode mode : {RoutingMode::minimal, RoutingMode::ecmp}) {
      const Tree t = xgft(m, w, mode);
      const auto n = std::uint32_t(t.fabric.endpoints.size());
      for (std::uint32_t s = 0; s < n; ++s)
        for (std::uint32_t d = 0; d < n; ++d) check_up_down(t, s, d, t.route(s, d, s * n + d), m);
    }
  }
  const Tree t = kary(4, 3);
  CHECK(t.route(0, 3).size() == 2);
  CHECK(t.route(0, 4).size() == 4);
  CHECK(t.route(0, 16).size() == 6);
}

TEST_CASE("fat-tree routes are as short as the shortest paths on the same network") {
  Tree t = xgft({4, 3, 2}, {1, 2, 3});
  t.net.finalize();
  const ShortestPathRouter shortest(t.net);
  for (std::uint32_t s = 0; s < 24; ++s)
    for (std::uint32_t d = 0; d < 24; ++d) {
      std::vector<LinkId> reference;
      shortest.route(t.fabric.endpoints[s], t.fabric.endpoints[d], 0, reference);
      CHECK(t.route(s, d).size() == reference.size());
    }
}

TEST_CASE("a 16,384-host XGFT routes sampled pairs minimally up and down") {
  const Sizes m{32, 32, 16}, w{1, 32, 32};
  const Tree t = xgft(m, w, RoutingMode::ecmp);
  CHECK(t.fabric.endpoints.size() == 16384);
  CHECK(t.net.count(VertexKind::switch_) == 512 + 512 + 1024);
  for (std::uint32_t i = 0; i < 3000; ++i) {
    const auto s = std::uint32_t(flow_hash(i, 0, 0, 9) % 16384), d = std::uint32_t(flow_hash(i, 1, 0, 9) % 16384);
    check_up_down(t, s, d, t.route(s, d, i), m);
  }
}

TEST_CASE("D-mod-k sends every route to a destination through the same top switch") {
  const Tree t = kary(4, 3);
  for (std::uint32_t d = 0; d < 64; d += 5) {
    std::set<VertexId> tops;
    for (std::uint32_t s = 0; s < 64; ++s) {
      const std::vector<LinkId> r = t.route(s, d, s);  // the flow id does not matter
      if (r.size() == 6) tops.insert(t.net.link(r[2]).to);
    }
    CHECK(tops.size() == 1);
  }
}

TEST_CASE("D-mod-k spreads k destinations with different d mod k over all up-ports of a leaf") {
  for (std::uint32_t k : {2u, 4u, 8u}) {
    const Tree t = kary(k, 3);
    const std::uint32_t pod = k * k;  // hosts under one level-2 switch
    for (std::uint32_t s : {0u, k - 1, pod + 1}) {
      std::set<LinkId> up_ports;
      for (std::uint32_t i = 0; i < k; ++i) {
        const std::vector<LinkId> r = t.route(s, (s / pod + 1) % k * pod + i, 0);  // the next pod
        REQUIRE(r.size() == 6);
        up_ports.insert(r[1]);
      }
      INFO("k " << k << " source " << s);
      CHECK(up_ports.size() == k);
    }
  }
}

TEST_CASE("ECMP spreads flows between two pods evenly over all up-ports and keeps routes minimal") {
  const Tree t = kary(4, 3, RoutingMode::ecmp);
  const std::uint32_t flows = 4000;
  std::map<LinkId, int> leaf_up, spine_up;
  for (std::uint64_t flow = 0; flow < flows; ++flow) {
    const std::vector<LinkId> r = t.route(1, 62, flow);
    REQUIRE(r.size() == 6);
    REQUIRE(is_path(t.net, r, t.fabric.endpoints[1], t.fabric.endpoints[62]));
    ++leaf_up[r[1]];
    ++spine_up[r[2]];
  }
  REQUIRE(leaf_up.size() == 4);
  for (auto [link, count] : leaf_up) CHECK(std::abs(count - 1000) < 300);
  REQUIRE(spine_up.size() == 16);  // 4 level-2 switches x 4 up-ports each
  for (auto [link, count] : spine_up) CHECK(std::abs(count - 250) < 75);
}

TEST_CASE("minimal fat-tree routes ignore the flow id, ECMP routes depend only on the arguments and the seed") {
  const Tree minimal = kary(4, 3);
  for (std::uint64_t flow = 0; flow < 20; ++flow) CHECK(minimal.route(3, 60, flow) == minimal.route(3, 60, 0));
  const Tree a = kary(4, 3, RoutingMode::ecmp, 7), again = kary(4, 3, RoutingMode::ecmp, 7);
  const Tree other = kary(4, 3, RoutingMode::ecmp, 8);
  int differ = 0;
  for (std::uint32_t s = 0; s < 64; s += 3)
    for (std::uint32_t d = 0; d < 64; ++d) {
      CHECK(a.route(s, d, 5) == again.route(s, d, 5));
      differ += a.route(s, d, 5) != other.route(s, d, 5);
    }
  CHECK(differ > 0);
}

TEST_CASE("tapering scales the bandwidth of cables into a level and of routes that climb to it") {
  const Tree t = xgft({4, 4, 4}, {1, 4, 4}, RoutingMode::minimal, 0, {1, 1, 0.5});
  for (const Link& l : t.net.links()) {
    const bool top = t.level(l.from) == 3 || t.level(l.to) == 3;
    CHECK(l.bandwidth_Bps == Approx(top ? 25e9 : 50e9));
  }
  CHECK(slowest_link_Bps(t.net, t.route(0, 63)) == Approx(25e9));  // cross-pod: through level 3
  CHECK(slowest_link_Bps(t.net, t.route(0, 15)) == Approx(50e9));  // inside a pod
  CHECK_THAT(t.fabric.summary, Catch::Contains("2:1 tapered at level 3"));
}

TEST_CASE("each XGFT level uses its own link class") {
  Tree t;
  const LinkClassId fast = t.net.add_link_class({"fast", 100e9, 1e-7, 0});
  t.fabric = build_xgft(t.net, {{2, 2}, {1, 2}, {t.link, fast}, {}}, RoutingMode::minimal, 0);
  for (const Link& l : t.net.links())
    CHECK(l.link_class == (t.level(l.from) + t.level(l.to) == 1 ? t.link : fast));
}

TEST_CASE("bad fat-tree parameters throw naming the parameter and leave the network untouched") {
  Tree t;
  const LinkClassId L = t.link;
  auto build = [&](XgftParams p, RoutingMode mode = RoutingMode::minimal) { build_xgft(t.net, p, mode, 0); };
  CHECK_THROWS_WITH(build({{}, {}, {}, {}}), Catch::Contains("m must") && Catch::Contains(">= 1"));
  CHECK_THROWS_WITH(build({{2, 2}, {1}, {L, L}, {}}), Catch::Contains("w must have"));
  CHECK_THROWS_WITH(build({{2, 2}, {1, 2}, {L}, {}}), Catch::Contains("links must have"));
  CHECK_THROWS_WITH(build({{2, 2}, {1, 2}, {L, L}, {1}}), Catch::Contains("taper must"));
  CHECK_THROWS_WITH(build({{2, 2}, {1, 2}, {L, L}, {1, 0}}), Catch::Contains("taper[2]"));
  CHECK_THROWS_WITH(build({{2, 2}, {1, 2}, {L, L}, {1.5, 1}}), Catch::Contains("taper[1]"));
  CHECK_THROWS_WITH(build({{2, 2}, {1, 2}, {L, L}, {std::nan(""), 1}}), Catch::Contains("taper[1]"));
  CHECK_THROWS_WITH(build({{2, 0}, {1, 2}, {L, L}, {}}), Catch::Contains("m[2]"));
  CHECK_THROWS_WITH(build({{2, 2}, {0, 2}, {L, L}, {}}), Catch::Contains("w[1]"));
  CHECK_THROWS_WITH(build({{4096, 4097}, {1, 1}, {L, L}, {}}), Catch::Contains("hosts"));
  CHECK_THROWS_WITH(build({{2, 2}, {2048, 4096}, {L, L}, {}}), Catch::Contains("switches"));
  CHECK_THROWS_WITH(build({{2, 2}, {1, 2}, {L, 5}, {}}), Catch::Contains("links[2]"));
  CHECK_THROWS_WITH(build(k_ary_n_tree(2, 2, L), RoutingMode::valiant), Catch::Contains("valiant"));
  CHECK_THROWS_WITH(build(k_ary_n_tree(2, 2, L), RoutingMode::shortest_path), Catch::Contains("shortest-path"));
  CHECK(t.net.vertex_count() == 0);
  CHECK_THROWS_WITH(k_ary_n_tree(1, 3, L), Catch::Contains("k must be >= 2"));
  CHECK_THROWS_WITH(k_ary_n_tree(4, 0, L), Catch::Contains("n must be"));
  CHECK_THROWS_WITH(al_fares(6 + 1, L), Catch::Contains("k must be even"));
  CHECK_THROWS_WITH(al_fares(0, L), Catch::Contains("k must be even"));
}
