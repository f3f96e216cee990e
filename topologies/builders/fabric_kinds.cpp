// topologies/builders/fabric_kinds.cpp — the table of topology kinds.
#include "topologies/builders/fabric_kinds.hpp"

#include <set>

namespace collsim {

const std::vector<FabricKind>& fabric_kinds() {
  static const std::vector<FabricKind> kinds{
      {"ring", "endpoints cabled in a ring, no switches", {"endpoints", "bidirectional", "link"}, read_ring},
      {"torus", "direct torus of 1..6 dimensions, wrap-around", {"dims", "link"}, read_torus},
      {"star", "one switch, optionally with a capped backplane", {"endpoints", "link", "backplane_Bps"}, read_star},
      {"full", "a cable per endpoint pair (contention-free)", {"endpoints", "link"}, read_full},
      {"fat-tree", "k-ary n-tree: k^n hosts, n k^(n-1) switches", {"k", "n", "link", "taper"}, read_fat_tree},
      {"xgft", "extended generalized fat-tree XGFT(h; m; w)", {"m", "w", "link", "links", "taper"}, read_xgft},
      {"al-fares", "Al-Fares k-port fat-tree: k pods, k^3/4 hosts", {"k", "link", "taper"}, read_al_fares},
      {"dragonfly", "Kim et al. dragonfly: g groups of a routers, p terminals and h global links each",
       {"p", "a", "h", "g", "arrangement", "terminal_link", "local_link", "global_link"}, read_dragonfly},
  };
  return kinds;
}

const FabricKind& fabric_kind(const FabricRequest& r) {
  const YAML::Node kind_node = r.in.require(r.node, "kind", "topology");
  const std::string name = r.in.text(kind_node, "topology.kind");
  std::vector<std::string_view> names;
  for (const FabricKind& k : fabric_kinds()) {
    names.push_back(k.name);
    if (k.name != name) continue;
    // Every fabric may say its switches reduce (InfiniBand SHARP); read by the cluster loader.
    std::set<std::string> keys{"kind", "reduction", "reduction_Bps", "reduction_latency_s"};
    for (std::string_view key : k.keys) keys.emplace(key);
    r.in.only_keys(r.node, "topology (" + name + ")", keys);
    return k;
  }
  r.in.fail(kind_node, fmt::format("unknown topology kind '{}' ({})", name, fmt::join(names, ", ")));
}

std::uint32_t FabricRequest::count(const std::string& key) const {
  return in.count(in.require(node, key, "topology"), "topology." + key);
}

LinkClassId FabricRequest::link(const std::string& key) const { return in.link_class(node, key, "topology", net); }

std::uint32_t FabricRequest::endpoints() const {
  return node["endpoints"] || endpoints_needed == 0 ? count("endpoints") : endpoints_needed;
}

}  // namespace collsim
