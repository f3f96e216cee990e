// sim/tuner_plugin.hpp — the choice a tuner plugin makes for NCCL (docs/semantics.md, "The
// runtime"). NCCL asks a loaded tuner plugin for each collective's algorithm and protocol; where
// the plugin answers, NCCL runs its answer and not the one its own cost model would pick. A
// cluster whose `runtime:` map names a plugin (`tuner: aws-ofi-nccl-p5`) gets `--algo nccl` runs
// of the plugin's choice where it makes one, and the fastest of NCCL's candidates elsewhere.
//   aws-ofi-nccl-p5: the region tuner of AWS's aws-ofi-nccl plugin on p5/p5e instances
//   (src/tuner/nccl_ofi_regions.cpp, region_init_internal_p5_p5e and region_get_coll_info_internal_v3,
//   v1.16.3; the p5 regions are the same through v1.18 and the repository's head of 2026-08). Its
//   regions are polygons in the plane of (message bytes, ranks); the first that holds the point,
//   its edges included, names the algorithm and protocol. It answers for allreduce with 8, 2 or 1
//   ranks a node on 3 nodes or more (on 2 nodes or fewer it leaves the choice to NCCL: "the regions
//   are not well defined"), where a region holds the point; NCCL's own choice elsewhere (its
//   allgather and reduce-scatter regions for one GPU a node are not carried here). v1.16.3 places points on the plane as they are
//   (later versions on log2 axes: the same choice at every size and rank count the public runs
//   have, tests/sim/test_tuner_plugin.cpp).
// Touches nothing but its arguments.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "collectives/schedule.hpp"
#include "topologies/cluster_config.hpp"

namespace collsim {

struct TunerChoice {
  std::string_view algorithm;  // collsim's name for NCCL's: ring, nccl-tree, nvls-tree
  std::string_view protocol;   // ll, ll128, simple
};

// The plugin's choice for `collective` of `bytes` on `ranks` ranks over `nodes` nodes, skipping
// regions whose algorithm cannot run here or NCCL_ALGO leaves out (`runs_here`) or whose protocol
// NCCL_PROTO leaves out (`protocol_allowed`; none: any), as NCCL marks those entries ignored;
// none where the plugin leaves the choice to NCCL.
std::optional<TunerChoice> tuner_plugin_choice(TunerPlugin plugin, Collective collective, std::uint64_t bytes,
                                               Rank ranks, Rank nodes,
                                               const std::function<bool(std::string_view)>& runs_here,
                                               const std::function<bool(std::string_view)>& protocol_allowed = {});

// The plugin's name as a config writes it ("aws-ofi-nccl-p5"), and what it covers, for predict's header.
std::string_view tuner_plugin_name(TunerPlugin plugin);
std::string_view tuner_plugin_scope(TunerPlugin plugin);

}  // namespace collsim
