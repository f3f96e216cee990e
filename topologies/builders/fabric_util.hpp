// topologies/builders/fabric_util.hpp — what the ring, torus, star, full and XGFT builders
// share: parameter checks, adding endpoints as one contiguous block of vertex ids (so a
// router maps a vertex to its index by subtraction), and the per-route hash draws of ECMP.
// Private to those builders.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "base/error.hpp"
#include "topologies/builders/builders.hpp"

namespace collsim::fabric {

// The most endpoints a fabric builder makes. Measured on a 2-core machine: a two-level
// fat-tree of 2^20 hosts builds in 11 s and 1.3 GB, of 2^22 in 49 s and 5 GB; beyond 2^21
// a request is more likely a typo than a study, and would not answer within a minute.
inline constexpr std::uint64_t kMaxEndpoints = std::uint64_t(1) << 21;
// The most cables (two directed links each) a fabric may have, for the same reason.
inline constexpr std::uint64_t kMaxCables = std::uint64_t(1) << 23;

// Builders route minimal and ecmp themselves; the other modes belong elsewhere.
inline void check_mode(std::string_view builder, RoutingMode mode) {
  if (mode == RoutingMode::valiant)
    throw Error(fmt::format("{}: routing 'valiant' applies to dragonfly only", builder));
  if (mode == RoutingMode::shortest_path)
    throw Error(fmt::format("{}: routing 'shortest-path' is a ShortestPathRouter the caller builds on the finalized "
                            "network, not a builder's",
                            builder));
}

inline void check_link_class(std::string_view builder, std::string_view param, const Network& net, LinkClassId id) {
  if (id >= net.link_classes().size())
    throw Error(fmt::format("{}: {} is link class {}, but only {} are defined", builder, param, id,
                            net.link_classes().size()));
}

// Adds `count` endpoints named name(0), name(1), ... in one block of consecutive ids.
template <typename NameOf>
std::vector<VertexId> add_named_endpoints(Network& net, std::uint32_t count, NameOf name) {
  std::vector<VertexId> out;
  out.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) out.push_back(net.add_vertex(VertexKind::endpoint, name(i)));
  if (count > 0 && out.back() - out.front() != count - 1)
    throw Error("fabric endpoints are not consecutive vertex ids; routers rely on it");
  return out;
}

// Endpoints named prefix0, prefix1, ...
inline std::vector<VertexId> add_endpoints(Network& net, std::uint32_t count, std::string_view prefix) {
  return add_named_endpoints(net, count, [prefix](std::uint32_t i) { return fmt::format("{}{}", prefix, i); });
}

// Endpoint vertex ids first .. first+count-1 <-> indices 0 .. count-1.
class EndpointBlock {
 public:
  EndpointBlock(std::string_view builder, const std::vector<VertexId>& endpoints)
      : builder_(builder), first_(endpoints.empty() ? 0 : endpoints.front()), count_(std::uint32_t(endpoints.size())) {}
  std::uint32_t index(VertexId v) const {
    const std::uint32_t i = v - first_;  // wraps to a large value below first_
    if (i >= count_) throw Error(fmt::format("{} router: vertex {} is not one of its endpoints", builder_, v));
    return i;
  }
  std::uint32_t count() const { return count_; }

 private:
  std::string builder_;
  VertexId first_;
  std::uint32_t count_;
};

// The ECMP choices of one flow: a key from (src, dst, flow, seed) and one independent draw
// per decision along the route, so a route is a pure function of its arguments and seed.
class FlowDraws {
 public:
  FlowDraws(std::uint32_t src, std::uint32_t dst, std::uint64_t flow, std::uint64_t seed)
      : key_(flow_hash(src, dst, flow, seed)) {}
  // Decision number `step`: one of n options.
  std::uint32_t pick(std::uint32_t step, std::uint32_t n) const {
    return std::uint32_t(flow_hash(key_, step, 0, 0) % n);
  }

 private:
  std::uint64_t key_;
};

}  // namespace collsim::fabric
