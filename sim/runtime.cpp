// sim/runtime.cpp — NCCL's runtime constants and which of collsim's algorithms runs as which of
// NCCL's.
//
// Source for every number below: NVIDIA/nccl, src/graph/tuning.cc at 2.30.x (makefiles/
// version.mk: NCCL_MAJOR 2, NCCL_MINOR 30), ncclTunerConstantsDefaults (baseLatencies,
// hwLatencies, in microseconds) and ncclTopoTuneModel (how they add up per algorithm).
#include "sim/runtime.hpp"

#include <array>
#include <bit>

namespace collsim {
namespace {

// NCCL's algorithms whose constants collsim uses, and its protocols, in tuning.cc's order.
enum class Family : std::uint8_t { tree, ring, collnet_direct, nvls, nvls_tree };
enum Proto : std::uint8_t { kLL, kLL128, kSimple };

// baseLatencies[algorithm][protocol], us: Tree {6.8, 14.0, 8.4}, Ring {6.6, 14.0, 8.4}, the
// in-network ones 0 (their latency is all in hwLatencies).
constexpr double kBase[5][3] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};

// hwLatencies[hardware][algorithm][protocol], us, hardware NVLINK, PCI, NET.
constexpr double kHw[3][5][3] = {
    {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 25}, {0, 0, 25}},     // NVLINK
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 0}, {0, 0, 0}},        // PCI
    {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 18}, {0, 0, 20.9}}};    // NET
enum Hw : std::uint8_t { kNvlink, kPci, kNet };

// CollNet Direct's arity serialization: "Add 0.4 us arity serialization latency" per local rank.
constexpr double kCollnetArity_us = 0.4;

// collsim's algorithms as NCCL runs them: its Ring (ring; chain, NCCL's ring for broadcast and
// reduce; hierarchical-ring, rings within and across nodes), its Tree (tree, two-tree, nccl-tree; binomial
// is a tree too), its NVLS, NVLS_TREE and CollNet Direct. NCCL has no recursive doubling,
// Rabenseifner or naive reducer: on a GPU each of their steps is a flag-synchronized transfer
// as a ring's, so they take the Ring's constants.
Family family_of(std::string_view algorithm) {
  if (algorithm == "tree" || algorithm == "two-tree" || algorithm == "nccl-tree" || algorithm == "binomial") return Family::tree;
  if (algorithm == "nvls") return Family::nvls;
  if (algorithm == "nvls-tree") return Family::nvls_tree;
  if (algorithm == "collnet") return Family::collnet_direct;
  return Family::ring;
}

Proto proto_of(const Protocol& protocol) {
  return protocol.name == "ll" ? kLL : protocol.name == "ll128" ? kLL128 : kSimple;
}

double hw_s(Hw hw, Family family, Proto proto) { return 1e-6 * kHw[hw][std::size_t(family)][proto]; }

Rank log2_floor(Rank n) { return n > 1 ? Rank(std::bit_width(n) - 1) : 0; }

// The in-network algorithms' whole latency, as ncclTopoTuneModel adds it (Simple only).
double in_network_latency_s(Family family, Rank nodes, Rank ranks_per_node) {
  const double intra = hw_s(kNvlink, family, kSimple), inter = hw_s(kNet, family, kSimple);
  switch (family) {
    case Family::nvls: return intra + (nodes > 1 ? inter : 0.0);
    case Family::nvls_tree: return intra + 2.0 * double(log2_floor(nodes)) * inter;
    case Family::collnet_direct: {
      const double local = ranks_per_node > 1 ? double(ranks_per_node - 1) : 0.0;
      return 2.0 * ((local > 0 ? intra : 0.0) + local * 1e-6 * kCollnetArity_us) + inter;
    }
    default: return 0.0;
  }
}

}  // namespace

RunRuntime run_runtime(CollectiveRuntime runtime, std::string_view algorithm, const Protocol& protocol, Rank nodes,
                       Rank ranks_per_node) {
  if (runtime == CollectiveRuntime::none) return {};
  const Family family = family_of(algorithm);
  const Proto proto = proto_of(protocol);
  RunRuntime out;
  out.fixed_s = 1e-6 * kBase[std::size_t(family)][proto];
  out.step.active = true;  // in-network algorithms: their latency is fixed, their steps free
  if (family == Family::ring || family == Family::tree) {
    out.step.by_transport[std::size_t(Transport::nvlink)] = hw_s(kNvlink, family, proto);
    out.step.by_transport[std::size_t(Transport::pci)] = hw_s(kPci, family, proto);
    out.step.by_transport[std::size_t(Transport::net)] = hw_s(kNet, family, proto);
  } else {
    out.fixed_s += in_network_latency_s(family, nodes, ranks_per_node);
  }
  return out;
}

}  // namespace collsim
