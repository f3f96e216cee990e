// topologies/builders/full.cpp — all-to-all cables: the contention-free reference.
#include "topologies/builders/builders.hpp"

#include "collectives/error.hpp"

namespace collsim {

Fabric build_full(Network&, const FullParams&, RoutingMode, std::uint64_t) { throw Error("full: not built yet"); }

}  // namespace collsim
