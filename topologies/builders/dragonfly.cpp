// topologies/builders/dragonfly.cpp — dragonfly groups, global-link arrangements, minimal/ECMP/Valiant routes.
#include "topologies/builders/builders.hpp"

#include "collectives/error.hpp"

namespace collsim {

GlobalArrangement parse_global_arrangement(std::string_view) { throw Error("dragonfly: not built yet"); }
Fabric build_dragonfly(Network&, const DragonflyParams&, RoutingMode, std::uint64_t) { throw Error("dragonfly: not built yet"); }

}  // namespace collsim
