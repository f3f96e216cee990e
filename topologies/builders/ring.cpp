// topologies/builders/ring.cpp — ring of endpoints (uni/bidirectional) and its routes.
#include "topologies/builders/builders.hpp"

#include "collectives/error.hpp"

namespace collsim {

Fabric build_ring(Network&, const RingParams&, RoutingMode, std::uint64_t) { throw Error("ring: not built yet"); }

}  // namespace collsim
