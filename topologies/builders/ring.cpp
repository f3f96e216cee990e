// topologies/builders/ring.cpp — ring of endpoints (uni/bidirectional) and its routes.
//
//   r0 -> r1 -> r2 -> ... -> r(n-1) -> r0      (bidirectional: each arrow a cable)
//
// Link ids: bidirectional, cable i (r_i -> r_i+1) is base + 2i and its reverse base + 2i + 1;
// with 2 endpoints there is one cable. Unidirectional, link i (r_i -> r_i+1) is base + i.
#include <cstdint>
#include <memory>

#include "topologies/builders/fabric_kinds.hpp"
#include "topologies/builders/fabric_util.hpp"

namespace collsim {
namespace {

class RingRouter final : public Router {
 public:
  RingRouter(const std::vector<VertexId>& endpoints, LinkId base, bool bidirectional, RoutingMode mode,
             std::uint64_t seed)
      : block_("ring", endpoints), base_(base), bidirectional_(bidirectional), ecmp_(mode == RoutingMode::ecmp),
        seed_(seed) {}

  void route(VertexId src, VertexId dst, std::uint64_t flow, std::vector<LinkId>& out) const override {
    const std::uint32_t n = block_.count(), s = block_.index(src), d = block_.index(dst);
    const std::uint32_t ahead = (d + n - s) % n, behind = n - ahead;
    if (ahead == 0) return;
    if (!bidirectional_ || ahead < behind || (ahead == behind && !backward_on_tie(s, d, flow))) {
      for (std::uint32_t i = 0, at = s; i < ahead; ++i, at = (at + 1) % n) out.push_back(forward(at));
    } else {
      for (std::uint32_t i = 0, at = s; i < behind; ++i, at = (at + n - 1) % n) out.push_back(backward(at));
    }
  }

 private:
  bool backward_on_tie(std::uint32_t s, std::uint32_t d, std::uint64_t flow) const {
    return ecmp_ && fabric::FlowDraws(s, d, flow, seed_).pick(0, 2) == 1;
  }
  // r_at -> r_at+1.
  LinkId forward(std::uint32_t at) const {
    if (!bidirectional_) return base_ + at;
    return block_.count() == 2 ? base_ + at : base_ + 2 * at;  // two endpoints: one cable, both ways
  }
  // r_at -> r_at-1: the reverse of the cable from r_at-1.
  LinkId backward(std::uint32_t at) const {
    const std::uint32_t n = block_.count();
    return n == 2 ? forward(at) : base_ + 2 * ((at + n - 1) % n) + 1;
  }

  fabric::EndpointBlock block_;
  LinkId base_;
  bool bidirectional_;
  bool ecmp_;
  std::uint64_t seed_;
};

void check(const Network& net, const RingParams& p, RoutingMode mode) {
  fabric::check_mode("ring", mode);
  if (p.endpoints < 2) throw Error(fmt::format("ring: endpoints must be >= 2 (got {})", p.endpoints));
  if (p.endpoints > fabric::kMaxEndpoints)
    throw Error(fmt::format("ring: endpoints must be <= {} (got {})", fabric::kMaxEndpoints, p.endpoints));
  fabric::check_link_class("ring", "link", net, p.link);
}

}  // namespace

Fabric build_ring(Network& net, const RingParams& p, RoutingMode mode, std::uint64_t seed) {
  check(net, p, mode);
  const std::uint32_t n = p.endpoints;
  std::vector<VertexId> endpoints = fabric::add_endpoints(net, n, "r");
  const LinkId base = LinkId(net.link_count());
  const std::uint32_t links = p.bidirectional && n == 2 ? 1 : n;
  for (std::uint32_t i = 0; i < links; ++i) {
    const VertexId u = endpoints[i], v = endpoints[(i + 1) % n];
    if (p.bidirectional)
      net.add_cable(u, v, p.link);
    else
      net.add_link(u, v, p.link, LinkKind::cable);
  }
  auto router = std::make_unique<RingRouter>(endpoints, base, p.bidirectional, mode, seed);
  std::string summary = fmt::format("{} ring of {} endpoints", p.bidirectional ? "bidirectional" : "unidirectional", n);
  return Fabric{std::move(endpoints), std::move(router), std::move(summary)};
}

// `topology: {kind: ring, endpoints: N, bidirectional: true, link: CLASS}`
Fabric read_ring(const FabricRequest& r) {
  const YAML::Node both = r.node["bidirectional"];
  const RingParams p{r.endpoints(), both ? r.in.flag(both, "topology.bidirectional") : true, r.link("link")};
  return r.build([&] { return build_ring(r.net, p, r.mode, r.seed); });
}

}  // namespace collsim
