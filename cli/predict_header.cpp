// cli/predict_header.cpp — the lines `collsim predict` prints before its table (see the header).
#include "cli/predict_header.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/units.hpp"
#include "collectives/algorithm.hpp"
#include "sim/cost_rule.hpp"
#include "sim/engine_table.hpp"
#include "sim/pair_pricing.hpp"
#include "sim/runtime.hpp"
#include "sim/tuner_plugin.hpp"

namespace collsim::cli {
namespace {

// Why the header's engine is the one it is, when the user did not choose it.
std::string why_engine(const PredictOptions& o, const ClusterConfig& c) {
  if (o.engine || default_engine(c.topology) != EngineKind::flow) return "";
  return "engine flow by default on a cluster with a topology: links are shared; --engine analytic gives the "
         "contention-free model of the closed forms\n";
}

std::string describe_links(const CostModel& cost) {
  auto link = [](const LinkCost& l) {
    return fmt::format("{:.4g} GB/s, alpha {}", l.beta_s_per_byte > 0 ? to_GBps(1.0 / l.beta_s_per_byte) : 0.0,
                       format_seconds(l.alpha_s));
  };
  std::string out = cost.is_uniform() ? "links " + link(cost.inter_node)
                                      : fmt::format("inter-node {}; intra-node {} ({} ranks per node)",
                                                    link(cost.inter_node), link(cost.intra_node), cost.ranks_per_node);
  return out + fmt::format("; gamma {:.3g} s/B", cost.gamma_s_per_byte);
}

// The header's protocol line, for a run that is not Simple.
std::string describe_protocol(const std::optional<Protocol>& protocol) {
  if (!protocol)
    return "protocol auto: each algorithm and size runs with LL, LL128 and Simple and keeps the fastest (column proto)";
  const Protocol& p = *protocol;
  return fmt::format("protocol {}: {:.4g} of each link's bytes are data, alpha x {:.2g} ({})", p.name, p.payload_fraction,
                     p.startup_factor, p.source);
}

// One part of the header's lines on the network (Topology::header_parts says which it has).
void print_header_part(HeaderPart part, const ClusterConfig& c, const EngineEntry& engine) {
  const Topology& t = *c.topology;
  switch (part) {
    case HeaderPart::routes:
      fmt::print("network: {}\nrouting {}, placement {}; each message costs its route ({})\n", t.fabric_summary,
                 to_string(t.routing), describe(t.placement),
                 engine.contention ? "alpha + latencies, then bytes at a max-min share of every link"
                                   : "largest alpha + latencies, bottleneck bandwidth");
      return;
    case HeaderPart::rank_links:
      if (t.models_core())
        fmt::print("each rank's core: {} of copies, shared by what it receives (the receiver copies) and its "
                   "reductions (alone: bytes x gamma)\n",
                   format_rate(t.network.link(t.memory_of(0)).bandwidth_Bps));
      else if (t.models_memory())
        fmt::print("each rank's memory: {} for its transfers (read by a send, written by a receive) and its "
                   "reductions (3 bytes per byte, at most 3/gamma)\n",
                   format_rate(t.network.link(t.memory_of(0)).bandwidth_Bps));
      return;
    case HeaderPart::stand_in:
      fmt::print("closed forms and 'x bound' use rank 0's cheapest routes: {}\n",
                 describe_links(equivalent_cost_model(t, c.cost.gamma_s_per_byte)));
      return;
    case HeaderPart::port_bound:
      if (engine.contention)  // the lower bound without ports (closed_forms.hpp)
        fmt::print("'x bound' without ports: one alpha, and rank 0's own links together, {:.4g} GB/s{}\n",
                   to_GBps(1 / rank_port_beta(t, 0)),
                   t.has_reducers() ? "; switches reduce, so N bytes each way and no rank's reduction" : "");
      return;
    case HeaderPart::classes:  // as the user gave them, with the cluster's gamma
      fmt::print("{}\n", describe_links(c.cost));
      return;
  }
}

// The header's lines on the network: what its topology says describes it, then a blank line.
// On one rank no route is taken: no closed form, no bound from rank 0's links.
void print_network(const ClusterConfig& c, const EngineEntry& engine, Rank ranks) {
  for (HeaderPart part : c.topology->header_parts)
    if (ranks > 1 || (part != HeaderPart::stand_in && part != HeaderPart::port_bound))
      print_header_part(part, c, engine);
  fmt::print("\n");
}

// "LL, LL128 and Simple", or the protocols NCCL_PROTO leaves, and who set it.
std::string protocols_text(const PredictionRequest& r, const std::vector<Protocol>& protocols) {
  if (r.nccl_protocol)
    return fmt::format("{} only (--protocol: NCCL_PROTO={})", r.nccl_protocol->name, r.nccl_protocol->name);
  if (protocols.size() == protocol_table().size()) return "LL, LL128 and Simple";
  if (ll128_left_out(r))
    return fmt::format("{} (NCCL enables LL128 by default only where a node's GPUs meet over NVLink, and from "
                       "compute capability 7.0: tuning.cc; runtime: proto names it to force it)",
                       protocol_names(protocols));
  return fmt::format("{} only (the cluster's NCCL_PROTO: runtime.proto)", protocol_names(protocols));
}

// "; NCCL_ALGO=... and NCCL_NVLS_ENABLE=0 set by the cluster's runs", or "": the settings that
// leave NCCL fewer algorithms.
std::string environment_text(const NcclEnvironment& env) {
  std::vector<std::string> set;
  for (const auto& [name, value] : nccl_environment_settings(env))
    if (name == "NCCL_ALGO" || name == "NCCL_NVLS_ENABLE") set.push_back(name + "=" + value);
  if (set.empty()) return "";
  return fmt::format("; the cluster's runs set {} (runtime: algo, nvls_enable), and NCCL chooses among the rest",
                     fmt::join(set, " and "));
}

// What "nccl" chooses among here: NCCL's algorithms and protocols, its all-to-all's rule, and who
// restricts them.
void print_nccl_choice(const PredictionRequest& r) {
  if (r.ranks == 1 && r.runtime == CollectiveRuntime::nccl) {
    fmt::print("nccl: on one rank the copy above, whatever the collective (algorithm shows {}, proto none)\n\n",
               kNcclOneRankCopy);
    return;
  }
  if (r.collective == Collective::alltoall) {
    fmt::print("nccl: what NCCL would run: its all-to-all, a send and a receive to every peer at once (linear), "
               "with LL where each peer's part is at most {} and no peer is across the network, else Simple (its "
               "point-to-point rule, src/enqueue.cc; NCCL_PROTO plays no part), by the {} engine\n\n",
               format_size(kNcclP2pLLThreshold), to_string(r.engine));
    return;
  }
  std::vector<std::string_view> between_ranks, in_network;
  for (std::string_view a : nccl_candidates(r.collective, r.collnet_enabled))
    if (nccl_environment_allows(r, a))
      (find_algorithm(a).in_network == InNetwork::none ? between_ranks : in_network).push_back(a);
  const bool nodes_reduce = !r.topology->node_reducers.empty() && !in_network.empty();
  const bool fabric_reduces = r.topology->fabric_reducer && !in_network.empty();
  const bool collnet = fabric_reduces && r.collnet_enabled;
  const std::string in_switches =
      nodes_reduce && collnet ? " and of nvls (one node), nvls-tree and collnet (nodes) with Simple"
      : nodes_reduce          ? " and of nvls (one node) and nvls-tree (nodes) with Simple"
      : collnet               ? " and of collnet (nodes of one GPU) with Simple"
                              : "";
  // NCCL 2.30 src/init.cc: collnetEnable is 0 unless set to 1.
  const std::string collnet_off = fabric_reduces && !collnet ? "; collnet left out: NCCL runs CollNet only with "
                                                               "NCCL_COLLNET_ENABLE=1 (runtime: collnet_enable: true)"
                                                             : "";
  const std::vector<Protocol> protocols = nccl_protocols(r);
  const bool simple_only = std::find(protocols.begin(), protocols.end(), simple_protocol()) == protocols.end();
  fmt::print("nccl: what NCCL would run: the fastest of {} with {}{}, by the {} engine (column proto; algorithm shows "
             "the choice){}{}\n\n",
             fmt::join(between_ranks, ", "), protocols_text(r, protocols), simple_only ? "" : in_switches,
             to_string(r.engine), collnet_off, environment_text(r.runtime_hardware.environment));
  if (r.tuner != TunerPlugin::none)
    fmt::print("tuner {}: {} (runtime: tuner)\n\n", tuner_plugin_name(r.tuner), tuner_plugin_scope(r.tuner));
}

// On one rank no data moves between ranks; NCCL still copies the buffer out of place.
void print_one_rank(const ClusterConfig& c, const PredictionRequest& r) {
  if (c.runtime != CollectiveRuntime::nccl) {
    fmt::print("on one rank a collective moves no data: no time, no bandwidth\n");
    return;
  }
  const double copy_Bps = device_copy_Bps(c.runtime_hardware, r.cost.gamma_s_per_byte);
  fmt::print("on one rank NCCL runs no algorithm: out of place "
             "(separate buffers, as nccl-tests' first columns) it copies the buffer on the GPU, one launch call of {} "
             "then the bytes at {:.1f} GB/s ({}); in place it does nothing (src/enqueue.cc, src/device/onerank.cu). "
             "No bus bandwidth\n",
             format_seconds(kHostKernelLaunchCall_s), to_GBps(copy_Bps),
             c.runtime_hardware.device_copy_Bps > 0 ? "runtime: device_copy_Bps, measured"
                                                    : "the memory's datasheet rate: 3 / (2 x gamma), a copy reading "
                                                      "and writing each byte");
}

}  // namespace

void print_predict_header(const PredictOptions& o, const ClusterConfig& c, const PredictionRequest& r) {
  const EngineEntry& engine = find_engine(r.engine);
  fmt::print("collsim predict: {} on {} rank{} of {}, engine {} ({})\n{}", to_string(r.collective), r.ranks,
             r.ranks == 1 ? "" : "s", c.name, engine.name, engine.model(r.run), why_engine(o, c));
  if (r.ranks == 1) print_one_rank(c, r);
  print_network(c, engine, r.ranks);
  if (c.runtime == CollectiveRuntime::nccl && r.ranks > 1)  // one rank: the copy above
    fmt::print("runtime nccl: each collective pays NCCL's base latency once, each step NCCL's latency for its protocol "
               "and transport (NVLink, PCI, network) instead of the links' alpha, and a ring one more for every "
               "further slice and loop of its pipeline; NVLS and CollNet their whole latency "
               "once{}{} (NCCL 2.30 tuning.cc, enqueue.cc)\n\n",
               c.runtime_hardware.net_latency_s > 0
                   ? fmt::format("; each network step {} more, the latency the network's plugin reports (twice with "
                                 "Simple, as NCCL's model adds it)",
                                 format_seconds(c.runtime_hardware.net_latency_s))
                   : "",
               c.runtime_hardware.compute_capability == 0
                   ? ""
                   : fmt::format("; rings and trees at most NCCL's rates for compute capability {}.{} on the channels "
                                 "it starts by size; NVLS in one segment per loop of NCCL's NVLS channels; NVLink "
                                 "at NCCL's {:g} GB/s a link (topo.h)",
                                 c.runtime_hardware.compute_capability / 10, c.runtime_hardware.compute_capability % 10,
                                 to_GBps(nccl_nvlink_link_Bps(c.runtime_hardware.compute_capability))));
  if (r.gpus_per_thread > 1)
    fmt::print("launching thread: one host thread launches each collective on {} GPUs (nccl-tests -g {}): the last "
               "starts {} kernel launch calls of {} later ({} more per collective; an H100's host, "
               "collsim-gpu-microbench). Not modelled: nccl-tests' back-to-back iterations hide them where the "
               "collective takes longer (published curves: from about 2 MiB)\n\n",
               r.gpus_per_thread, r.gpus_per_thread, r.gpus_per_thread - 1, format_seconds(kHostKernelLaunchCall_s),
               format_seconds(launching_thread_s(r.gpus_per_thread)));
  if (c.host_issue.any())
    fmt::print("host issue: one host thread issues every transfer in the schedule's order, {} each (none starts before "
               "its issue), and synchronizes the {} ranks' streams {} after the GPU's last work (host_issue: collsim's "
               "cuda backend, calibrated)\n\n",
               format_seconds(c.host_issue.per_transfer_s), r.ranks, format_seconds(c.host_issue.sync_of(r.ranks)));
  if (o.protocol != simple_protocol()) fmt::print("{}\n\n", describe_protocol(o.protocol));
  if (std::find(r.algorithms.begin(), r.algorithms.end(), kNcclChoice) != r.algorithms.end()) print_nccl_choice(r);
}

}  // namespace collsim::cli
