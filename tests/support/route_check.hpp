// tests/support/route_check.hpp — what the routing tests assert of a route: a connected chain
// of links from src to dst.
#pragma once

#include <span>

#include "topologies/network.hpp"

namespace collsim {

// Whether the route is a connected chain of links from src to dst (empty only when src == dst).
inline bool is_path(const Network& net, std::span<const LinkId> route, VertexId src, VertexId dst) {
  VertexId at = src;
  for (LinkId l : route) {
    if (l >= net.link_count() || net.link(l).from != at) return false;
    at = net.link(l).to;
  }
  return at == dst && (!route.empty() || src == dst);
}

}  // namespace collsim
