// topologies/builders/star.cpp — one switch (optional backplane capacity).
#include "topologies/builders/builders.hpp"

#include "collectives/error.hpp"

namespace collsim {

Fabric build_star(Network&, const StarParams&, RoutingMode, std::uint64_t) { throw Error("star: not built yet"); }

}  // namespace collsim
