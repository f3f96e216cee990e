// tests/topologies/built_fabric.hpp — a network holding one fabric, for builder tests: one
// link class, the fabric, routes between its endpoint indices, and an all-pairs route check.
#pragma once

#include <vector>

#include <catch2/catch.hpp>

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
