// topologies/builders/fat_tree.cpp — XGFT fat-trees (k-ary n-tree, Al-Fares) with D-mod-k routes.
#include "topologies/builders/builders.hpp"

#include "collectives/error.hpp"

namespace collsim {

XgftParams k_ary_n_tree(std::uint32_t, std::uint32_t, LinkClassId) { throw Error("xgft: not built yet"); }
XgftParams al_fares(std::uint32_t, LinkClassId) { throw Error("xgft: not built yet"); }
Fabric build_xgft(Network&, const XgftParams&, RoutingMode, std::uint64_t) { throw Error("xgft: not built yet"); }

}  // namespace collsim
