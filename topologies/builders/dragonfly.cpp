// topologies/builders/dragonfly.cpp — dragonfly groups, global-link arrangements, minimal/ECMP/Valiant routes.
//
// Indices: terminal t sits on router t / p; router R = group * a + r. Global port k of a
// group (k < a*h) is port k % h of router k / h and serves slot s = k mod (g-1), copy
// k / (g-1); ports from copies*(g-1) on stay uncabled. g == 1 is allowed: one group of
// all-to-all routers with no global links (copies = 0), e.g. a single Aries group.
//
// Routes are arithmetic: a route is O(hops) table look-ups and a few divisions, with no
// search and no per-pair table; the router keeps only the link id of every port.
#include "topologies/builders/builders.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>

#include "base/error.hpp"
#include "topologies/builders/fabric_kinds.hpp"
#include "topologies/builders/fabric_util.hpp"

namespace collsim {
namespace {

constexpr std::uint64_t kMaxTerminals = fabric::kMaxEndpoints;
// A bound on memory and build time (a Link is 32 bytes): a = 2^20 with p = 1 passes the
// terminal bound but would ask for 2^40 local links.
constexpr std::uint64_t kMaxLinks = 2 * fabric::kMaxCables;

constexpr std::array<std::pair<std::string_view, GlobalArrangement>, 3> kArrangements{{
    {"absolute", GlobalArrangement::absolute},
    {"relative", GlobalArrangement::relative},
    {"circulant", GlobalArrangement::circulant},
}};

std::string_view name_of(GlobalArrangement arrangement) {
  for (const auto& [name, value] : kArrangements)
    if (value == arrangement) return name;
  return "?";
}

// Sizes and the global-port arithmetic, shared by the builder and the router.
struct Shape {
  std::uint32_t p = 0, a = 0, h = 0, g = 0;
  std::uint32_t copies = 0;  // global links per pair of groups
  GlobalArrangement arrangement = GlobalArrangement::absolute;

  std::uint32_t terminals() const { return g * a * p; }
  std::uint32_t group_of(std::uint32_t terminal) const { return terminal / (a * p); }
  std::uint32_t used_ports() const { return copies * (g - 1); }  // per group, ports 0..used-1
  std::uint32_t port(std::uint32_t slot, std::uint32_t copy) const { return copy * (g - 1) + slot; }
  std::uint32_t router_of_port(std::uint32_t group, std::uint32_t port) const { return group * a + port / h; }

  // The group that `slot` of `group` reaches.
  std::uint32_t target(std::uint32_t group, std::uint32_t slot) const {
    switch (arrangement) {
      case GlobalArrangement::absolute: return slot < group ? slot : slot + 1;
      case GlobalArrangement::relative: return (group + slot + 1) % g;
      case GlobalArrangement::circulant: {
        const std::uint32_t offset = slot / 2 + 1;
        return slot % 2 == 0 ? (group + offset) % g : (group + g - offset) % g;
      }
    }
    return group;
  }
  // The inverse of target(): the slot of `group` that reaches `other` (other != group).
  // The reciprocal of a port is port(slot_to(other, group), same copy), so cables pair up.
  std::uint32_t slot_to(std::uint32_t group, std::uint32_t other) const {
    const std::uint32_t distance = (other + g - group) % g;  // 1..g-1
    switch (arrangement) {
      case GlobalArrangement::absolute: return other < group ? other : other - 1;
      case GlobalArrangement::relative: return distance - 1;
      // +d sits at slot 2(d-1) while that slot exists (d <= g/2; for even g the last slot,
      // offset g/2, is its own reciprocal); -d = g - d at slot 2(g-d) - 1.
      case GlobalArrangement::circulant: return distance <= g / 2 ? 2 * (distance - 1) : 2 * (g - distance) - 1;
    }
    return 0;
  }
};

// Every port's link id. Cables give u->v = id, v->u = id + 1, so one id per cable end.
struct Tables {
  VertexId first_terminal = 0;
  std::vector<LinkId> up;      // terminal -> its router; the down link is up + 1
  std::vector<LinkId> local;   // [R * a + r]: router R -> router r of the same group
  std::vector<LinkId> global;  // [group * used_ports + k]: out of global port k
};

class DragonflyRouter final : public Router {
 public:
  DragonflyRouter(Shape shape, Tables tables, RoutingMode mode, std::uint64_t seed)
      : s_(shape), t_(std::move(tables)), mode_(mode), seed_(seed) {}

  void route(VertexId src, VertexId dst, std::uint64_t flow, std::vector<LinkId>& out) const override {
    if (src == dst) return;
    const std::uint32_t from = terminal(src), to = terminal(dst);
    out.push_back(t_.up[from]);
    // Valiant detours only between groups: inside a group the one local link is the route,
    // and with g <= 2 there is no third group to detour through.
    if (mode_ == RoutingMode::valiant && s_.group_of(from) != s_.group_of(to) && s_.g > 2)
      valiant(from, to, flow_hash(from, to, flow, seed_), out);
    else
      hops(from / s_.p, to / s_.p, minimal_copy(from, to, flow), out);
    out.push_back(t_.up[to] + 1);
  }

 private:
  std::uint32_t terminal(VertexId v) const {
    if (v < t_.first_terminal || v - t_.first_terminal >= s_.terminals())
      throw Error(fmt::format("dragonfly routing: vertex {} is not one of its terminals", v));
    return v - t_.first_terminal;
  }

  std::uint32_t minimal_copy(std::uint32_t from, std::uint32_t to, std::uint64_t flow) const {
    if (s_.copies <= 1) return 0;
    if (mode_ == RoutingMode::ecmp) return std::uint32_t(flow_hash(from, to, flow, seed_) % s_.copies);
    return to % s_.copies;
  }

  // Random intermediate group (neither src's nor dst's), random copies for both legs; all
  // from one hash so the route is a function of (src, dst, flow, seed).
  void valiant(std::uint32_t from, std::uint32_t to, std::uint64_t hash, std::vector<LinkId>& out) const {
    const std::uint32_t gs = s_.group_of(from), gd = s_.group_of(to);
    std::uint32_t mid = std::uint32_t(hash % (s_.g - 2));
    if (mid >= std::min(gs, gd)) ++mid;  // skip both end groups, lower first
    if (mid >= std::max(gs, gd)) ++mid;
    const std::uint64_t rest = hash / (s_.g - 2);
    const std::uint32_t first_copy = std::uint32_t(rest % s_.copies);
    const std::uint32_t second_copy = std::uint32_t(rest / s_.copies % s_.copies);
    const std::uint32_t via = arrival(gs, mid, first_copy);
    hops(from / s_.p, via, first_copy, out);
    hops(via, to / s_.p, second_copy, out);
  }

  // Router-to-router minimal: local hop to the port's router, the global link, local hop.
  void hops(std::uint32_t from, std::uint32_t to, std::uint32_t copy, std::vector<LinkId>& out) const {
    const std::uint32_t gf = from / s_.a, gt = to / s_.a;
    if (gf != gt) {
      const std::uint32_t k = s_.port(s_.slot_to(gf, gt), copy);
      local_hop(from, s_.router_of_port(gf, k), out);
      out.push_back(t_.global[gf * s_.used_ports() + k]);
      from = arrival(gf, gt, copy);
    }
    local_hop(from, to, out);
  }

  void local_hop(std::uint32_t from, std::uint32_t to, std::vector<LinkId>& out) const {
    if (from != to) out.push_back(t_.local[from * s_.a + to % s_.a]);
  }

  // The router of group gt where copy `copy` of the link from group gf lands.
  std::uint32_t arrival(std::uint32_t gf, std::uint32_t gt, std::uint32_t copy) const {
    return s_.router_of_port(gt, s_.port(s_.slot_to(gt, gf), copy));
  }

  Shape s_;
  Tables t_;
  RoutingMode mode_;
  std::uint64_t seed_;
};

void check_link_class(const Network& net, LinkClassId id, std::string_view what) {
  if (id >= net.link_classes().size())
    throw Error(fmt::format("dragonfly: {} = {} is not a link class of the network", what, id));
}

Shape validate(const Network& net, const DragonflyParams& p, RoutingMode mode) {
  for (const auto& [name, value] : {std::pair{"p", p.p}, std::pair{"a", p.a}, std::pair{"h", p.h}})
    if (value < 1) throw Error(fmt::format("dragonfly: {} must be >= 1 (got {})", name, value));
  const std::uint64_t max_g = std::uint64_t(p.a) * p.h + 1;
  const std::uint64_t g = p.g == 0 ? max_g : p.g;
  if (g > max_g) throw Error(fmt::format("dragonfly: g must be <= a*h+1 = {} (got {})", max_g, g));
  const std::uint64_t terminals = g * p.a * p.p;
  if (terminals > kMaxTerminals)
    throw Error(fmt::format("dragonfly: terminals g*a*p = {} must be <= {}", terminals, kMaxTerminals));
  const std::uint64_t copies = g == 1 ? 0 : (max_g - 1) / (g - 1);
  const std::uint64_t links = 2 * terminals + g * p.a * (p.a - 1) + g * (g - 1) * copies;
  if (links > kMaxLinks)
    throw Error(fmt::format("dragonfly: p={} a={} h={} g={} needs {} links, more than {}", p.p, p.a, p.h, g, links,
                            kMaxLinks));
  check_link_class(net, p.terminal_link, "terminal_link");
  check_link_class(net, p.local_link, "local_link");
  check_link_class(net, p.global_link, "global_link");
  if (mode == RoutingMode::shortest_path)
    throw Error("dragonfly: shortest-path routing is not built in; the caller builds a ShortestPathRouter");
  // Valiant detours through a third group; with two or fewer there is none, and a cluster
  // that names valiant would be routed minimal while saying valiant.
  if (mode == RoutingMode::valiant && g <= 2)
    throw Error(fmt::format("dragonfly: valiant routing goes through a third group, and this one has {} (g = {}): use "
                            "routing: minimal, or at least 3 groups",
                            g, g));
  return {p.p, p.a, p.h, std::uint32_t(g), std::uint32_t(copies), p.arrangement};
}

// Terminals first (endpoint index order), then routers; returns the first router's vertex.
VertexId add_vertices(Network& net, const Shape& s, std::vector<VertexId>& endpoints) {
  endpoints.reserve(s.terminals());
  for (std::uint32_t t = 0; t < s.terminals(); ++t)
    endpoints.push_back(net.add_vertex(
        VertexKind::endpoint, fmt::format("g{}.r{}.t{}", s.group_of(t), t / s.p % s.a, t % s.p)));
  const VertexId first_router = VertexId(net.vertex_count());
  for (std::uint32_t r = 0; r < s.g * s.a; ++r)
    net.add_vertex(VertexKind::switch_, fmt::format("g{}.r{}", r / s.a, r % s.a));
  return first_router;
}

void cable_groups(Network& net, const Shape& s, const DragonflyParams& p, VertexId first_router, Tables& t) {
  t.local.assign(std::size_t(s.g) * s.a * s.a, kNoLink);
  for (std::uint32_t group = 0; group < s.g; ++group)
    for (std::uint32_t i = group * s.a; i < (group + 1) * s.a; ++i)
      for (std::uint32_t j = i + 1; j < (group + 1) * s.a; ++j) {
        const LinkId c = net.add_cable(first_router + i, first_router + j, p.local_link);
        t.local[i * s.a + j % s.a] = c;
        t.local[j * s.a + i % s.a] = c + 1;
      }
}

// Each cable is added once, from the end in the lower-numbered group; the other end is the
// reciprocal port, which points back (slot_to inverts target).
void cable_global(Network& net, const Shape& s, const DragonflyParams& p, VertexId first_router, Tables& t) {
  t.global.assign(std::size_t(s.g) * s.used_ports(), kNoLink);
  for (std::uint32_t group = 0; group < s.g; ++group)
    for (std::uint32_t k = 0; k < s.used_ports(); ++k) {
      const std::uint32_t other = s.target(group, k % (s.g - 1));
      if (other < group) continue;
      const std::uint32_t back = s.port(s.slot_to(other, group), k / (s.g - 1));
      const LinkId c = net.add_cable(first_router + s.router_of_port(group, k),
                                     first_router + s.router_of_port(other, back), p.global_link);
      t.global[group * s.used_ports() + k] = c;
      t.global[other * s.used_ports() + back] = c + 1;
    }
}

std::string summary(const Shape& s) {
  const std::string links =
      s.g == 1 ? "no global links" : fmt::format("{} global link{} per group pair", s.copies, s.copies == 1 ? "" : "s");
  return fmt::format("dragonfly p={} a={} h={} g={} ({}): {} terminals, {} routers, {}", s.p, s.a, s.h, s.g,
                     name_of(s.arrangement), s.terminals(), s.g * s.a, links);
}

}  // namespace

GlobalArrangement parse_global_arrangement(std::string_view name) {
  for (const auto& [known, value] : kArrangements)
    if (known == name) return value;
  throw Error(fmt::format("unknown dragonfly global arrangement '{}' (absolute, relative, circulant)", name));
}

Fabric build_dragonfly(Network& net, const DragonflyParams& p, RoutingMode mode, std::uint64_t seed) {
  const Shape s = validate(net, p, mode);
  Fabric fabric;
  Tables t;
  const VertexId first_router = add_vertices(net, s, fabric.endpoints);
  t.first_terminal = fabric.endpoints.front();
  t.up.reserve(s.terminals());
  for (std::uint32_t i = 0; i < s.terminals(); ++i)
    t.up.push_back(net.add_cable(fabric.endpoints[i], first_router + i / s.p, p.terminal_link));
  cable_groups(net, s, p, first_router, t);
  cable_global(net, s, p, first_router, t);
  fabric.router = std::make_unique<DragonflyRouter>(s, std::move(t), mode, seed);
  fabric.summary = summary(s);
  return fabric;
}

// `topology: {kind: dragonfly, p: P, a: A, h: H, g: G, arrangement: NAME, terminal_link: C,
// local_link: C, global_link: C}`
Fabric read_dragonfly(const FabricRequest& r) {
  DragonflyParams p;
  p.p = r.count("p");
  p.a = r.count("a");
  p.h = r.count("h");
  if (r.node["g"]) p.g = r.count("g");
  if (const YAML::Node a = r.node["arrangement"])
    p.arrangement = r.in.at(a, [&] { return parse_global_arrangement(r.in.text(a, "topology.arrangement")); });
  p.terminal_link = r.link("terminal_link");
  p.local_link = r.link("local_link");
  p.global_link = r.link("global_link");
  return r.build([&] { return build_dragonfly(r.net, p, r.mode, r.seed); });
}

}  // namespace collsim
