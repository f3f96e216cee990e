// topologies/builders/nodes.cpp — multi-GPU nodes (NVSwitch/PCIe, NIC per GPU or per node) on a fabric.
#include "topologies/builders/builders.hpp"

#include "collectives/error.hpp"

namespace collsim {

NodesFabric build_nodes(Network&, const NodesParams&, Fabric) { throw Error("nodes: not built yet"); }

}  // namespace collsim
