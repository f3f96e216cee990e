// tests/sim/test_channels_cost.cpp — what channels cost, against forms derived by hand.
//  * Rail-optimized nodes, flow engine: C channels of a ring over C NICs per node, where only
//    the GPU-NIC links are slow, take 2(P-1)/P N / (C B): each rank that leaves a node sends
//    2(P-1) messages of N/(C P) through its own NIC, which never idles, and no two channels
//    leave a node through the same NIC, so the inter-node bandwidth term is divided by C.
//  * Flat network, analytic engine (docs/algorithms.md, Channels): one port per rank is
//    shared by the C instances, so a ring step costs C a + N/P b: channels change only the
//    alpha term; with unlimited ports the instances overlap and a step costs a + N/(C P) b.
#include <catch2/catch.hpp>

#include <string>

#include <fmt/format.h>

#include "collectives/algorithm.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/flow_engine.hpp"
#include "topologies/cluster_config.hpp"
#include "tests/support/schedule_request.hpp"

using namespace collsim;

namespace {

constexpr double kNicBps = 1e10;

// 2 nodes of 4 GPUs, one NIC per GPU on its own rail; everything but the GPU-NIC links is
// 1e5 times faster, and nothing has latency, alpha or reduction cost.
ClusterConfig rail_nodes() {
  return parse_cluster_config(
      fmt::format("name: rails\nlink_classes:\n"
                  "  nv: {{bandwidth_Bps: 1.0e+15, latency_s: 0.0, alpha_s: 0.0}}\n"
                  "  nic: {{bandwidth_Bps: {:.1e}, latency_s: 0.0, alpha_s: 0.0}}\n"
                  "  fabric: {{bandwidth_Bps: 1.0e+15, latency_s: 0.0, alpha_s: 0.0}}\n"
                  "nodes: {{count: 2, gpus_per_node: 4, switch: nvswitch, gpu_link: nv, nics_per_node: 4, "
                  "nic_link: nic, rail_optimized: true}}\n"
                  "topology: {{kind: xgft, m: [2, 4], w: [1, 2], link: fabric}}\nranks: 8\ngamma_s_per_byte: 0.0\n",
                  kNicBps),
      "rails.yaml");
}

Schedule ring(Rank ranks, std::uint64_t bytes, std::uint32_t channels, Rank ranks_per_node, std::uint32_t segments = 0) {
  return generate_schedule("ring", test::allreduce_request(ranks, bytes, channels, ranks_per_node, segments));
}

}  // namespace

TEST_CASE("C ring channels over C rail NICs divide the inter-node bandwidth term by C on the flow engine") {
  const ClusterConfig c = rail_nodes();
  const Rank p = 8;
  const double n = 64 << 20;
  double one = 0;
  for (std::uint32_t channels : {1u, 2u, 4u}) {
    INFO(channels << " channels");
    const double t = run_flow(ring(p, std::uint64_t(n), channels, 4), *c.topology, 0).time_s;
    CHECK(t == Approx(2.0 * (p - 1) / p * n / (channels * kNicBps)).epsilon(1e-3));
    if (channels == 1) one = t;
    CHECK(one / t == Approx(channels).epsilon(1e-3));
  }
}

TEST_CASE("On a flat one-port network channels add alpha terms only, with unlimited ports they divide the bandwidth term") {
  const double a = 2e-6, b = 1e-9;
  const CostModel flat = CostModel::uniform(a, b, 0);
  const Rank p = 6;
  const double n = 6000 * 4;  // every message the same size
  for (std::uint32_t channels : {1u, 2u, 4u}) {
    INFO(channels << " channels");
    const Schedule s = ring(p, std::uint64_t(n), channels, 0, 1);
    CHECK(run_analytic(s, flat).time_s == Approx(2.0 * (p - 1) * (channels * a + n / p * b)).epsilon(1e-12));
    CHECK(run_analytic(s, flat, {.one_port = false}).time_s ==
          Approx(2.0 * (p - 1) * (a + n / (channels * p) * b)).epsilon(1e-12));
  }
}
