// topologies/builders/star.cpp — endpoints on one switch, optionally with a backplane.
//
//   h0 --\                 h0 --> sw.in ==backplane==> sw.out --> h0
//   h1 --- sw              h1 -->                             --> h1
//   h2 --/                 (with a backplane: one-way links, every flow crosses in -> out)
//
// Link ids: endpoint i's link up is base + 2i and its link down base + 2i + 1, in both forms
// (add_cable and add_split_cable number a cable that way). The backplane link, when there is one, comes first, at base - 1.
#include <cmath>
#include <cstdint>
#include <memory>

#include "base/units.hpp"
#include "topologies/builders/fabric_kinds.hpp"
#include "topologies/builders/fabric_util.hpp"

namespace collsim {
namespace {

class StarRouter final : public Router {
 public:
  StarRouter(const std::vector<VertexId>& endpoints, LinkId base, LinkId backplane)
      : block_("star", endpoints), base_(base), backplane_(backplane) {}

  void route(VertexId src, VertexId dst, std::uint64_t, std::vector<LinkId>& out) const override {
    const std::uint32_t s = block_.index(src), d = block_.index(dst);
    if (s == d) return;
    out.push_back(base_ + 2 * s);
    if (backplane_ != kNoLink) out.push_back(backplane_);
    out.push_back(base_ + 2 * d + 1);
  }

 private:
  fabric::EndpointBlock block_;
  LinkId base_;
  LinkId backplane_;  // kNoLink without one
};

void check(const Network& net, const StarParams& p, RoutingMode mode) {
  fabric::check_mode("star", mode);
  if (p.endpoints < 1) throw Error("star: endpoints must be >= 1 (got 0)");
  if (p.endpoints > fabric::kMaxEndpoints)
    throw Error(fmt::format("star: endpoints must be <= {} (got {})", fabric::kMaxEndpoints, p.endpoints));
  fabric::check_link_class("star", "link", net, p.link);
  if (p.backplane_Bps && !(std::isfinite(*p.backplane_Bps) && *p.backplane_Bps > 0))
    throw Error(fmt::format("star: backplane_Bps must be > 0 bytes/s (got {})", *p.backplane_Bps));
}

}  // namespace

Fabric build_star(Network& net, const StarParams& p, RoutingMode mode, std::uint64_t) {
  check(net, p, mode);
  std::vector<VertexId> endpoints = fabric::add_endpoints(net, p.endpoints, "h");
  LinkId backplane = kNoLink;
  std::string summary = fmt::format("star: {} endpoints on one switch", p.endpoints);
  if (p.backplane_Bps) {
    const VertexId in = net.add_vertex(VertexKind::switch_, "sw.in");
    const VertexId out = net.add_vertex(VertexKind::switch_, "sw.out");
    // A capacity in bytes/s becomes a scale of the class the backplane borrows its latency from.
    const double scale = *p.backplane_Bps / net.link_class(p.link).bandwidth_Bps;
    backplane = net.add_link(in, out, p.link, LinkKind::capacity, scale);
    for (VertexId e : endpoints) net.add_split_cable(e, in, out, p.link);
    summary += fmt::format(", backplane {:g} GB/s", to_GBps(*p.backplane_Bps));
  } else {
    const VertexId sw = net.add_vertex(VertexKind::switch_, "sw");
    for (VertexId e : endpoints) net.add_cable(e, sw, p.link);
  }
  const LinkId base = LinkId(net.link_count() - 2 * endpoints.size());
  auto router = std::make_unique<StarRouter>(endpoints, base, backplane);
  return Fabric{std::move(endpoints), std::move(router), std::move(summary)};
}

// `topology: {kind: star, endpoints: N, link: CLASS, backplane_Bps: B}`
Fabric read_star(const FabricRequest& r) {
  StarParams p{r.endpoints(), r.link("link"), {}};
  if (const YAML::Node b = r.node["backplane_Bps"]) p.backplane_Bps = r.in.physical(b, "topology.backplane_Bps", kBandwidthRange);
  return r.build([&] { return build_star(r.net, p, r.mode, r.seed); });
}

}  // namespace collsim
