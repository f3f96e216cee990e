// topologies/builders/fat_tree.cpp — XGFT fat-trees (k-ary n-tree, Al-Fares) with D-mod-k routes.
//
// XGFT(2; 2,2; 1,2), hosts h0..h3, level-1 switches l1.s0, l1.s1, level-2 l2.s0, l2.s1:
//
//        l2.s0      l2.s1       (each level-1 switch has w_2 = 2 parents,
//         |   \    /   |         each level-2 switch m_2 = 2 children)
//         |    \  /    |
//         |     \/     |
//         |     /\     |
//       l1.s0        l1.s1      (each host has w_1 = 1 parent,
//        /  \        /  \       each level-1 switch m_1 = 2 children)
//      h0    h1    h2    h3
//
// Labels (Ohring et al. 1995): a level-l vertex is (a_h..a_l+1, b_l..b_1) with a_i < m_i and
// b_i < w_i; its index is that tuple in mixed radix, b_1 fastest. Its parents replace a_l+1 by
// each b_l+1 < w_l+1. So with W_l = prod_{i<=l} w_i and M_l = prod_{i<=l} m_i, index x at
// level l-1 splits as x = low + W_l-1 * (a_l + m_l * rest), and its parent b is
// low + W_l-1 * (b + w_l * rest). Hosts (level 0) are plain a_1 + m_1 (a_2 + ...): the hosts
// under one level-l switch are a block of M_l consecutive indices.
//
// Vertices: hosts, then the switches of level 1, 2, ... h, each level in index order. Cables:
// level by level, each level-(l-1) vertex x in index order, its parents b in order, so cable
// (x, b) between levels l-1 and l is link base_l + 2 (x w_l + b) going up, + 1 coming down.
#include <cmath>
#include <cstdint>
#include <memory>

#include "topologies/builders/fabric_kinds.hpp"
#include "topologies/builders/fabric_util.hpp"

namespace collsim {
namespace {

constexpr std::uint64_t kMaxSwitches = std::uint64_t(1) << 21;
using fabric::kMaxCables;

// The XGFT's arithmetic; levels are 1-based as in the literature, index 0 = hosts.
struct Xgft {
  std::uint32_t h = 0;
  std::vector<std::uint32_t> m, w;       // [l] for l = 1..h; [0] unused
  std::vector<std::uint32_t> M, W;       // prefix products, [0] = 1
  std::vector<std::uint32_t> count;      // vertices at level l
  std::vector<LinkId> link_base;         // [l]: first link between levels l-1 and l

  // Parameters already validated: every product fits.
  explicit Xgft(const XgftParams& p) : h(std::uint32_t(p.m.size())), m(h + 1), w(h + 1), M(h + 1, 1), W(h + 1, 1),
                                       count(h + 1), link_base(h + 1) {
    for (std::uint32_t l = 1; l <= h; ++l) {
      m[l] = p.m[l - 1];
      w[l] = p.w[l - 1];
      M[l] = M[l - 1] * m[l];
      W[l] = W[l - 1] * w[l];
    }
    for (std::uint32_t l = 0; l <= h; ++l) count[l] = M[h] / M[l] * W[l];
  }
  // Parent number b of vertex x at level l-1.
  std::uint32_t parent(std::uint32_t l, std::uint32_t x, std::uint32_t b) const {
    const std::uint32_t low = x % W[l - 1], rest = x / W[l - 1] / m[l];
    return low + W[l - 1] * (b + w[l] * rest);
  }
  // The child of level-l switch y on the way down to host dst.
  std::uint32_t child(std::uint32_t l, std::uint32_t y, std::uint32_t dst) const {
    const std::uint32_t low = y % W[l - 1], rest = y / W[l], a = dst / M[l - 1] % m[l];
    return low + W[l - 1] * (a + m[l] * rest);
  }
  // Which parent of its children level-l switch y is.
  std::uint32_t parent_number(std::uint32_t l, std::uint32_t y) const { return y / W[l - 1] % w[l]; }
  LinkId up_link(std::uint32_t l, std::uint32_t x, std::uint32_t b) const { return link_base[l] + 2 * (x * w[l] + b); }
  // The nearest common ancestor level of two different hosts: the first level whose
  // switches hold both in their block.
  std::uint32_t nca_level(std::uint32_t s, std::uint32_t d) const {
    std::uint32_t l = 1;
    while (s / M[l] != d / M[l]) ++l;
    return l;
  }
};

class XgftRouter final : public Router {
 public:
  XgftRouter(const std::vector<VertexId>& endpoints, Xgft shape, RoutingMode mode, std::uint64_t seed)
      : block_("xgft", endpoints), t_(std::move(shape)), ecmp_(mode == RoutingMode::ecmp), seed_(seed) {}

  void route(VertexId src, VertexId dst, std::uint64_t flow, std::vector<LinkId>& out) const override {
    const std::uint32_t s = block_.index(src), d = block_.index(dst);
    if (s == d) return;
    const std::uint32_t top = t_.nca_level(s, d);
    const fabric::FlowDraws draws(s, d, flow, seed_);
    std::uint32_t x = s;
    for (std::uint32_t l = 1; l <= top; ++l) {
      const std::uint32_t b = up_choice(l, d, draws);
      out.push_back(t_.up_link(l, x, b));
      x = t_.parent(l, x, b);
    }
    for (std::uint32_t l = top; l >= 1; --l) {
      const std::uint32_t below = t_.child(l, x, d);
      out.push_back(t_.up_link(l, below, t_.parent_number(l, x)) + 1);
      x = below;
    }
  }

 private:
  // D-mod-k: destinations spread over the parents by their digits; ecmp: by flow hash.
  std::uint32_t up_choice(std::uint32_t l, std::uint32_t d, const fabric::FlowDraws& draws) const {
    if (t_.w[l] == 1) return 0;
    if (ecmp_) return draws.pick(l, t_.w[l]);
    return d / t_.W[l - 1] % t_.w[l];
  }

  fabric::EndpointBlock block_;
  Xgft t_;
  bool ecmp_;
  std::uint64_t seed_;
};

// a * b, or kLimit + 1 once it exceeds kLimit: counts are checked against limits far below.
std::uint64_t capped_product(std::uint64_t a, std::uint64_t b) {
  constexpr std::uint64_t kLimit = std::uint64_t(1) << 40;
  return b != 0 && a > kLimit / b ? kLimit + 1 : a * b;
}

void check_shape(const XgftParams& p) {
  const std::size_t h = p.m.size();
  if (h < 1) throw Error("xgft: m must list h >= 1 levels (got 0)");
  if (p.w.size() != h) throw Error(fmt::format("xgft: w must have h = {} entries like m (got {})", h, p.w.size()));
  if (p.links.size() != h)
    throw Error(fmt::format("xgft: links must have h = {} entries like m (got {})", h, p.links.size()));
  if (!p.taper.empty() && p.taper.size() != h)
    throw Error(fmt::format("xgft: taper must be empty or have h = {} entries (got {})", h, p.taper.size()));
  for (std::size_t i = 0; i < h; ++i) {
    if (p.m[i] < 1) throw Error(fmt::format("xgft: m[{}] must be >= 1 (got 0)", i + 1));
    if (p.w[i] < 1) throw Error(fmt::format("xgft: w[{}] must be >= 1 (got 0)", i + 1));
  }
  for (std::size_t i = 0; i < p.taper.size(); ++i)
    if (!(p.taper[i] > 0 && p.taper[i] <= 1))
      throw Error(fmt::format("xgft: taper[{}] must be in (0, 1] (got {})", i + 1, p.taper[i]));
}

void check_size(const XgftParams& p) {
  const std::size_t h = p.m.size();
  std::uint64_t hosts = 1, switches = 0, cables = 0;
  for (std::uint32_t mi : p.m) hosts = capped_product(hosts, mi);
  if (hosts > fabric::kMaxEndpoints)
    throw Error(fmt::format("xgft: hosts (the product of m) must be <= {} (got {}; larger fabrics take minutes and "
                            "gigabytes to build)",
                            fabric::kMaxEndpoints, hosts));
  for (std::size_t l = 1; l <= h; ++l) {
    std::uint64_t level = 1;
    for (std::size_t i = 0; i < h; ++i) level = capped_product(level, i < l ? p.w[i] : p.m[i]);
    switches += level;
    cables += capped_product(level, p.m[l - 1]);
    if (switches > kMaxSwitches) throw Error(fmt::format("xgft: switches must total <= {}", kMaxSwitches));
    if (cables > kMaxCables) throw Error(fmt::format("xgft: cables must total <= {}", kMaxCables));
  }
}

void check(const Network& net, const XgftParams& p, RoutingMode mode) {
  fabric::check_mode("xgft", mode);
  check_shape(p);
  check_size(p);
  for (std::size_t i = 0; i < p.links.size(); ++i)
    fabric::check_link_class("xgft", fmt::format("links[{}]", i + 1), net, p.links[i]);
}

std::string summary(const Xgft& t, const XgftParams& p) {
  std::string m = fmt::format("{}", t.m[1]), w = fmt::format("{}", t.w[1]), taper;
  std::uint64_t switches = 0;
  for (std::uint32_t l = 1; l <= t.h; ++l) {
    if (l > 1) {
      m += fmt::format(",{}", t.m[l]);
      w += fmt::format(",{}", t.w[l]);
    }
    switches += t.count[l];
    if (!p.taper.empty() && p.taper[l - 1] < 1)
      taper += fmt::format(", {:.3g}:1 tapered at level {}", 1 / p.taper[l - 1], l);
  }
  return fmt::format("XGFT({}; {}; {}): {} hosts, {} switches{}", t.h, m, w, t.count[0], switches, taper);
}

}  // namespace

XgftParams k_ary_n_tree(std::uint32_t k, std::uint32_t n, LinkClassId link) {
  if (k < 2) throw Error(fmt::format("k-ary n-tree: k must be >= 2 (got {})", k));
  if (n < 1 || n > 24) throw Error(fmt::format("k-ary n-tree: n must be 1..24 (got {})", n));
  XgftParams p{std::vector<std::uint32_t>(n, k), std::vector<std::uint32_t>(n, k),
               std::vector<LinkClassId>(n, link), {}};
  p.w[0] = 1;  // a host has one uplink
  return p;
}

XgftParams al_fares(std::uint32_t k, LinkClassId link) {
  if (k < 2 || k % 2 != 0) throw Error(fmt::format("al-fares: k must be even and >= 2 (got {})", k));
  // Edge switches: k/2 hosts each; pods: k/2 edge x k/2 aggregation; k pods under each core.
  return XgftParams{{k / 2, k / 2, k}, {1, k / 2, k / 2}, {link, link, link}, {}};
}

Fabric build_xgft(Network& net, const XgftParams& p, RoutingMode mode, std::uint64_t seed) {
  check(net, p, mode);
  Xgft t(p);
  std::vector<VertexId> endpoints = fabric::add_endpoints(net, t.count[0], "h");
  std::vector<VertexId> first(t.h + 1, endpoints.front());  // vertex id of index 0 per level
  for (std::uint32_t l = 1; l <= t.h; ++l) {
    first[l] = VertexId(net.vertex_count());
    for (std::uint32_t i = 0; i < t.count[l]; ++i) net.add_vertex(VertexKind::switch_, fmt::format("l{}.s{}", l, i));
  }
  for (std::uint32_t l = 1; l <= t.h; ++l) {
    t.link_base[l] = LinkId(net.link_count());
    const double scale = p.taper.empty() ? 1.0 : p.taper[l - 1];
    for (std::uint32_t x = 0; x < t.count[l - 1]; ++x)
      for (std::uint32_t b = 0; b < t.w[l]; ++b)
        net.add_cable(first[l - 1] + x, first[l] + t.parent(l, x, b), p.links[l - 1], scale);
  }
  std::string text = summary(t, p);
  auto router = std::make_unique<XgftRouter>(endpoints, std::move(t), mode, seed);
  return Fabric{std::move(endpoints), std::move(router), std::move(text)};
}

namespace {

// The taper shared by the three fat-tree kinds: `taper: [1, 0.5]`, one factor per level.
Fabric build_tapered(const FabricRequest& r, XgftParams p) {
  if (const YAML::Node taper = r.node["taper"]) p.taper = r.in.numbers(taper, "topology.taper");
  return r.build([&] { return build_xgft(r.net, p, r.mode, r.seed); });
}

}  // namespace

// `topology: {kind: fat-tree, k: K, n: N, link: CLASS, taper: [...]}`
Fabric read_fat_tree(const FabricRequest& r) {
  return build_tapered(r, r.in.at(r.node, [&] { return k_ary_n_tree(r.count("k"), r.count("n"), r.link("link")); }));
}

// `topology: {kind: al-fares, k: K, link: CLASS, taper: [...]}`
Fabric read_al_fares(const FabricRequest& r) {
  return build_tapered(r, r.in.at(r.node, [&] { return al_fares(r.count("k"), r.link("link")); }));
}

// `topology: {kind: xgft, m: [...], w: [...], link: CLASS | links: [CLASS per level], taper: [...]}`
Fabric read_xgft(const FabricRequest& r) {
  XgftParams p;
  p.m = r.in.counts(r.in.require(r.node, "m", "topology"), "topology.m");
  p.w = r.in.counts(r.in.require(r.node, "w", "topology"), "topology.w");
  const YAML::Node links = r.node["links"];
  if (links && r.node["link"]) r.in.fail(links, "give 'link' or 'links', not both");
  if (!links) {
    p.links.assign(p.m.size(), r.link("link"));
  } else {
    if (!links.IsSequence()) r.in.fail(links, "'topology.links' must be a list of link classes, one per level");
    for (const YAML::Node& item : links)
      p.links.push_back(r.in.at(item, [&] { return r.net.find_link_class(r.in.text(item, "topology.links")); }));
  }
  return build_tapered(r, std::move(p));
}

}  // namespace collsim
