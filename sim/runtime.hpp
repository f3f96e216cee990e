// sim/runtime.hpp — the collective library that drives the links (docs/semantics.md, "The
// runtime"): what a GPU collective pays that no link explains, priced per run.
//   fixed:  once per collective, before its first transfer: the library's base latency for
//           the algorithm and protocol (kernel launch and set-up); for NVLS, NVLS-tree and
//           CollNet, whose steps the library does not count, the whole collective's latency;
//   step:   each transfer of a ring or tree waits on a flag its peer sets: a latency by
//           protocol (LL and LL128 poll their lines, Simple fences and polls a flag) and by the
//           transport it crosses (NVLink, PCIe, network), which takes the place of the link
//           classes' alpha (sim/protocol.hpp, StepLatency).
// The numbers are NCCL's own tuning constants (src/graph/tuning.cc, NCCL 2.30.x: baseLatencies
// and hwLatencies, NVIDIA's measurements of its runtime on its hardware), read as facts of the
// library and never fitted here to an allreduce measurement. A cluster names its runtime in
// its config (`runtime: nccl`); without one (CPU MPI clusters) nothing changes.
// Touches nothing but its arguments.
#pragma once

#include <string_view>

#include "collectives/schedule.hpp"
#include "sim/protocol.hpp"
#include "topologies/cluster_config.hpp"

namespace collsim {

struct RunRuntime {
  double fixed_s = 0;  // once per collective
  StepLatency step;    // per transfer, by transport (inactive: the classes' alpha)
};

// The runtime of `algorithm` (collsim's name) run with `protocol` on ranks spanning `nodes`
// nodes of `ranks_per_node` (NVLS-tree and CollNet count them); none: a zero cost.
RunRuntime run_runtime(CollectiveRuntime runtime, std::string_view algorithm, const Protocol& protocol, Rank nodes,
                       Rank ranks_per_node);

}  // namespace collsim
