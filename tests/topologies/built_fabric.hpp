// tests/topologies/built_fabric.hpp — a network holding one fabric, for builder tests: one
// link class, the fabric, routes between its endpoint indices, an all-pairs route check, and
// the slowest link of a route (what a builder's tapering or NIC must bound).
#pragma once

#include <algorithm>
#include <limits>
#include <span>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/support/route_check.hpp"
#include "topologies/builders/builders.hpp"

namespace collsim {

struct BuiltFabric {
  Network net;
  LinkClassId link = 0;
  Fabric fabric;

  explicit BuiltFabric(const LinkClass& link_class) { link = net.add_link_class(link_class); }
  std::vector<LinkId> route(std::uint32_t s, std::uint32_t d, std::uint64_t flow = 0) const {
    std::vector<LinkId> out;
    fabric.router->route(fabric.endpoints[s], fabric.endpoints[d], flow, out);
    return out;
  }
};

// The smallest link bandwidth along a route (+inf when empty): a fact of the built network.
// What a message then costs is sim/cost_rule.hpp's, tested with the engines.
inline double slowest_link_Bps(const Network& net, std::span<const LinkId> route) {
  double least = std::numeric_limits<double>::infinity();
  for (LinkId l : route) least = std::min(least, net.link(l).bandwidth_Bps);
  return least;
}

// Every route (flow s * n + d) is a path from endpoint s to endpoint d of expected(s, d) links.
template <class ExpectedLinks>
void check_every_route(const BuiltFabric& b, ExpectedLinks expected) {
  const auto n = std::uint32_t(b.fabric.endpoints.size());
  for (std::uint32_t s = 0; s < n; ++s)
    for (std::uint32_t d = 0; d < n; ++d) {
      INFO(n << " endpoints, " << s << " -> " << d);
      const std::vector<LinkId> r = b.route(s, d, std::uint64_t(s) * n + d);
      CHECK(is_path(b.net, r, b.fabric.endpoints[s], b.fabric.endpoints[d]));
      CHECK(r.size() == expected(s, d));
    }
}

}  // namespace collsim
