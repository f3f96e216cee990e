// topologies/builders/full.cpp — every pair of endpoints on its own cable.
//
// Cables are added for pairs (i, j), i < j, in lexicographic order, so pair (i, j) is cable
// number i*n - i(i+1)/2 + (j - i - 1): link base + 2*that goes i -> j, the next one j -> i.
#include <cstdint>
#include <memory>

#include "topologies/builders/fabric_kinds.hpp"
#include "topologies/builders/fabric_util.hpp"

namespace collsim {
namespace {

constexpr std::uint32_t kMaxFullEndpoints = 2048;

class FullRouter final : public Router {
 public:
  FullRouter(const std::vector<VertexId>& endpoints, LinkId base) : block_("full", endpoints), base_(base) {}

  void route(VertexId src, VertexId dst, std::uint64_t, std::vector<LinkId>& out) const override {
    const std::uint32_t s = block_.index(src), d = block_.index(dst);
    if (s < d) out.push_back(base_ + 2 * cable(s, d));
    if (s > d) out.push_back(base_ + 2 * cable(d, s) + 1);
  }

 private:
  std::uint32_t cable(std::uint32_t i, std::uint32_t j) const {
    return i * block_.count() - i * (i + 1) / 2 + (j - i - 1);
  }

  fabric::EndpointBlock block_;
  LinkId base_;
};

void check(const Network& net, const FullParams& p, RoutingMode mode) {
  fabric::check_mode("full", mode);
  if (p.endpoints < 1 || p.endpoints > kMaxFullEndpoints)
    throw Error(fmt::format("full: endpoints must be 1..{} (got {})", kMaxFullEndpoints, p.endpoints));
  fabric::check_link_class("full", "link", net, p.link);
}

}  // namespace

Fabric build_full(Network& net, const FullParams& p, RoutingMode mode, std::uint64_t) {
  check(net, p, mode);
  std::vector<VertexId> endpoints = fabric::add_endpoints(net, p.endpoints, "h");
  const LinkId base = LinkId(net.link_count());
  for (std::uint32_t i = 0; i < p.endpoints; ++i)
    for (std::uint32_t j = i + 1; j < p.endpoints; ++j) net.add_cable(endpoints[i], endpoints[j], p.link);
  std::string summary = fmt::format("fully connected: {} endpoints, {} cables", p.endpoints,
                                    std::uint64_t(p.endpoints) * (p.endpoints - 1) / 2);
  auto router = std::make_unique<FullRouter>(endpoints, base);
  return Fabric{std::move(endpoints), std::move(router), std::move(summary)};
}

// `topology: {kind: full, endpoints: N, link: CLASS}`
Fabric read_full(const FabricRequest& r) {
  const FullParams p{r.endpoints(), r.link("link")};
  return r.build([&] { return build_full(r.net, p, r.mode, r.seed); });
}

}  // namespace collsim
