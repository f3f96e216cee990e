// topologies/builders/fabric_kinds.hpp — the topology kinds a cluster YAML may name
// (`topology: {kind: NAME, ...}`), one table entry each: the name, what it builds, the keys
// it takes and the function that reads those keys and calls the kind's builder. Each
// reader lives in its builder's file, beside the builder it feeds. Adding a kind: its
// builder file (builder + reader) and one line in fabric_kinds.cpp.
#pragma once

#include <string_view>
#include <vector>

#include "topologies/builders/builders.hpp"
#include "topologies/config_reader.hpp"

namespace collsim {

// What a kind's reader gets: the `topology` mapping and where to build.
struct FabricRequest {
  const ConfigReader& in;
  const YAML::Node& node;  // the topology mapping (kind and the kind's keys)
  Network& net;
  RoutingMode mode;
  std::uint64_t seed;
  std::uint32_t endpoints_needed;  // NICs the nodes section asks for; 0 without nodes

  // A whole-number key of the topology ("topology.k").
  std::uint32_t count(const std::string& key) const;
  LinkClassId link(const std::string& key) const;
  // ring, star and full: `endpoints`, or as many as the nodes section needs.
  std::uint32_t endpoints() const;
  // Runs the builder; its Error is placed at the topology mapping.
  template <class Step>
  Fabric build(Step&& step) const {
    return in.at(node, std::forward<Step>(step));
  }
};

using FabricReader = Fabric (*)(const FabricRequest&);

struct FabricKind {
  std::string_view name;
  std::string_view help;
  std::vector<std::string_view> keys;  // besides `kind`
  FabricReader read;
};

const std::vector<FabricKind>& fabric_kinds();
// The kind `topology.kind` names, its keys checked; fails at the node naming the kinds.
const FabricKind& fabric_kind(const FabricRequest& request);

// The readers, one per builder file.
Fabric read_ring(const FabricRequest& r);
Fabric read_torus(const FabricRequest& r);
Fabric read_star(const FabricRequest& r);
Fabric read_full(const FabricRequest& r);
Fabric read_fat_tree(const FabricRequest& r);
Fabric read_xgft(const FabricRequest& r);
Fabric read_al_fares(const FabricRequest& r);
Fabric read_dragonfly(const FabricRequest& r);

}  // namespace collsim
