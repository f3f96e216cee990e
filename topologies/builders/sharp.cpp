// topologies/builders/sharp.cpp — InfiniBand SHARP as one logical reducer of the fabric
// (builders.hpp, add_fabric_reducer):
//
//              sharp.reducer            .in -> reducer: reduction_Bps, reduction_latency_s
//              ^           |            reducer -> .out: the multicast back
//      sharp.tree.in   sharp.tree.out
//        ^  ^   ^        |   |   |      leaf <-> tree: every endpoint link's rate together
//      leaf0 leaf1 ...  leaf0 leaf1 ...
//      / | \                            (the fabric's own leaves, spines, ... stay as built)
//    nic nic nic
//
// SHARP's aggregation tree (leaf, spine, core switches each reducing what their children
// send) is collapsed into this one vertex: its depth shows only as reduction_latency_s, its
// per-switch limits only as the shared reduction throughput.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "base/error.hpp"
#include "topologies/builders/builders.hpp"

namespace collsim {
namespace {

struct Leaves {
  std::set<VertexId> up, down;  // switches the endpoints send into / receive from
  double endpoint_Bps = 0;      // the fastest endpoint link
};

Leaves leaves_of(const Network& net, const Fabric& fabric) {
  std::vector<bool> is_endpoint(net.vertex_count(), false);
  for (VertexId e : fabric.endpoints) is_endpoint[e] = true;
  std::vector<bool> reaches_switch(net.vertex_count(), false);
  Leaves leaves;
  const auto is_switch = [&](VertexId v) { return net.vertex(v).kind == VertexKind::switch_; };
  for (const Link& l : net.links()) {
    if (is_endpoint[l.from] && is_switch(l.to)) {
      leaves.up.insert(l.to);
      reaches_switch[l.from] = true;
      leaves.endpoint_Bps = std::max(leaves.endpoint_Bps, l.bandwidth_Bps);
    }
    if (is_switch(l.from) && is_endpoint[l.to]) leaves.down.insert(l.from);
  }
  for (VertexId e : fabric.endpoints)
    if (!reaches_switch[e])
      throw Error(fmt::format("reduction: sharp needs endpoints cabled to switches (InfiniBand SHARP reduces in the "
                              "fabric's switches), but {} is cabled to none: use a star, fat-tree, xgft or al-fares "
                              "fabric, or drop 'reduction'",
                              net.vertex(e).name));
  return leaves;
}

}  // namespace

VertexId add_fabric_reducer(Network& net, const Fabric& fabric, const SwitchReduction& reduction) {
  if (fabric.endpoints.empty()) throw Error("reduction: sharp needs a fabric with endpoints");
  const Leaves leaves = leaves_of(net, fabric);
  const double wide_Bps = double(fabric.endpoints.size()) * leaves.endpoint_Bps;
  const LinkClassId tree = net.add_link_class({.name = "sharp-tree", .bandwidth_Bps = wide_Bps});
  const LinkClassId reduce = net.add_link_class(
      {.name = "sharp-reduction", .bandwidth_Bps = reduction.throughput_Bps, .latency_s = reduction.latency_s});
  const LinkClassId multicast = net.add_link_class({.name = "sharp-multicast", .bandwidth_Bps = wide_Bps});
  const VertexId in = net.add_vertex(VertexKind::switch_, "sharp.tree.in");
  const VertexId reducer = net.add_vertex(VertexKind::reducer, "sharp.reducer");
  const VertexId out = net.add_vertex(VertexKind::switch_, "sharp.tree.out");
  for (VertexId leaf : leaves.up) net.add_link(leaf, in, tree, LinkKind::capacity);
  net.add_link(in, reducer, reduce, LinkKind::capacity);
  net.add_link(reducer, out, multicast, LinkKind::capacity);
  for (VertexId leaf : leaves.down) net.add_link(out, leaf, tree, LinkKind::capacity);
  return reducer;
}

}  // namespace collsim
