// tests/topologies/built_fabric.hpp — a network holding one fabric, for builder tests: one
// link class, the fabric, and routes between its endpoint indices.
#pragma once

#include <vector>

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

}  // namespace collsim
