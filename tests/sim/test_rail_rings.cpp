// tests/sim/test_rail_rings.cpp — a ring's channels keep to their rails (PXN), so a spine taper
// under a rail-optimized fabric barely matters, as on NCCL's rings (issue 34's cluster):
// 64 DGX-style nodes of 8 H100s with 8 NDR NICs each, rail-optimized on XGFT(2; 32,16; 1,32),
// NVLink 4 through an NVSwitch; tapered 2:1 at the spines: XGFT(2; 32,16; 1,16).
//  * Without start-ups or latencies, the non-blocking ring's time is its closed form
//    (closed_forms::rail_ring_drain): the busier of a NIC (one channel) and a GPU's NVSwitch
//    downlink (every channel, one of them as PXN's hand-off).
//  * With NCCL's runtime, the tapered ring is within 5% of the non-blocking one, and no
//    spine link is on its critical path; without PXN (each channel leaves a node from GPU
//    c-1 and enters the next at GPU c, changing rail) the spines halve its bandwidth.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "collectives/closed_forms.hpp"
#include "sim/flow_engine.hpp"
#include "sim/prediction.hpp"
#include "topologies/cluster_config.hpp"

using namespace collsim;

namespace {

constexpr std::uint64_t kBytes = std::uint64_t(1) << 30;
constexpr Rank kRanks = 64 * 8;

struct Fabric {
  int spine_links = 32;        // w2: up-links per leaf (32 non-blocking, 16 for 2:1)
  bool pxn = true;
  bool bandwidth_only = false;  // no alpha, latency, runtime or reduction cost
};

ClusterConfig cluster(const Fabric& f) {
  const std::string quiet = f.bandwidth_only ? ", alpha_s: 0.0, latency_s: 0.0" : "";
  const std::string text = fmt::format(
      "name: rails\n"
      "link_classes:\n"
      "  nvlink4: {{technology: nvlink4, links: 18{0}}}\n"
      "  pcie5: {{technology: pcie5{0}}}\n"
      "  ib-ndr: {{technology: ib-ndr{0}}}\n"
      "nodes: {{count: 64, gpus_per_node: 8, switch: nvswitch, gpu_link: nvlink4, nics_per_node: 8, "
      "nic_link: pcie5, rail_optimized: true, pxn: {1}}}\n"
      "topology: {{kind: xgft, m: [32, 16], w: [1, {2}], link: ib-ndr}}\n"
      "gamma_s_per_byte: {3}\n{4}",
      quiet, f.pxn, f.spine_links, f.bandwidth_only ? "0.0" : "8.96e-13", f.bandwidth_only ? "" : "runtime: nccl\n");
  return parse_cluster_config(text, "rails.yaml");
}

struct RingRun {
  double time_s = 0;
  double runtime_s = 0;  // of time_s, the runtime's fixed cost: the same on every fabric
  std::uint32_t channels = 0;
  double spine_drain_s = 0;  // the critical path's draining across spine links
};

RingRun ring_1g(const ClusterConfig& c) {
  PredictionRequest request = cluster_request(c);
  request.algorithms = {"ring"};
  request.sizes = {kBytes};
  request.engine = EngineKind::flow;
  request.streaming = Streaming::never;
  RingRun out;
  request.on_flow_run = [&](const PredictionRecord&, const Schedule&, const FlowResult& result) {
    for (const CriticalLink& link : result.critical_links) {
      // XGFT's level-2 switches are the spines: l2.s<k>.
      if (link_name(c.topology->network, link.link).find("l2.") != std::string::npos) out.spine_drain_s += link.drain_s;
    }
  };
  const std::vector<PredictionRecord> records = predict(request);
  REQUIRE(records.size() == 1);
  out.time_s = records[0].time_s;
  out.runtime_s = records[0].runtime_s;
  out.channels = records[0].channels;
  return out;
}

// The rate a large message gets from a link class of the cluster.
double effective_Bps(const ClusterConfig& c, std::string_view name) {
  const LinkClass& k = c.topology->network.link_class(c.topology->network.find_link_class(name));
  return k.bandwidth_Bps * k.efficiency;
}

}  // namespace

TEST_CASE("A rail-local ring on 64 x 8 H100s without latencies takes its closed form: the busier of a NIC and a GPU's NVSwitch link") {
  const ClusterConfig c = cluster({.bandwidth_only = true});
  const RingRun run = ring_1g(c);
  REQUIRE(run.channels == 8);
  const double nic = std::min({effective_Bps(c, "pcie5"), effective_Bps(c, "ib-ndr")});
  const double form = closed_forms::rail_ring_drain(kRanks, double(kBytes), 8, effective_Bps(c, "nvlink4"), nic);
  CHECK(run.time_s == Approx(form).epsilon(1e-3));
}

TEST_CASE("A 2:1 spine taper under rail-optimized nodes costs a rail-local ring under 5%, and its critical path stays under the leaves") {
  const RingRun full = ring_1g(cluster({}));
  const RingRun tapered = ring_1g(cluster({.spine_links = 16}));
  INFO("non-blocking " << full.time_s << " s, tapered " << tapered.time_s << " s");
  CHECK(tapered.time_s <= 1.05 * full.time_s);
  // Rail j's 64 NICs fill two leaves, so two of its 64 hops cross a spine (nodes 31 -> 32
  // and 63 -> 0): the critical path drains there for those few transfers, not for its whole
  // length as a rail-changing ring's does (all of its 11 ms on the tapered fabric).
  INFO("critical path: " << tapered.spine_drain_s << " s draining across spine links");
  CHECK(tapered.spine_drain_s < 0.01 * tapered.time_s);
  // What PXN changes: a channel that enters the next node at another GPU's NIC changes rail,
  // crosses the spines, and the taper halves it.
  const RingRun crossing = ring_1g(cluster({.spine_links = 16, .pxn = false}));
  CHECK(crossing.time_s - crossing.runtime_s > 1.5 * (tapered.time_s - tapered.runtime_s));
}
