// tests/sim/test_runtime.cpp — the collective runtime (sim/runtime.hpp): with `runtime: nccl`,
// a collective pays NCCL's base latency once and every transfer NCCL's step latency for its
// protocol and transport instead of its link classes' alpha; NVLS its whole latency once.
// Closed forms written by hand from NCCL 2.30's tuning.cc constants; the flow engine against
// SimGrid where SimGrid is built; a cluster without a runtime is priced as before.
#include <catch2/catch.hpp>

#include <string>

#include <fmt/format.h>

#include "sim/cost_rule.hpp"
#include "sim/prediction.hpp"
#include "sim/runtime.hpp"
#include "tests/support/test_cluster.hpp"
#include "topologies/cluster_config.hpp"

using namespace collsim;

namespace {

// Four GPUs on one NVLink switch (a star of nvlink4 class links: transport nvlink, latency 0,
// alpha 2 us, 25 GB/s x 18 x 0.844), gamma 0, with or without NCCL's runtime.
ClusterConfig nvlink_star(bool runtime) {
  return parse_cluster_config(fmt::format("name: s\nlink_classes:\n  nv: {{technology: nvlink4, links: 18}}\n"
                                          "topology: {{kind: star, endpoints: 4, link: nv}}\ngamma_s_per_byte: 0\n{}",
                                          runtime ? "runtime: nccl\n" : ""),
                              "s.yaml");
}

PredictionRecord ring(const ClusterConfig& c, std::uint64_t bytes, const Protocol& protocol, EngineKind engine) {
  PredictionRequest r = cluster_request(c);
  r.algorithms = {"ring"};
  r.sizes = {bytes};
  r.segments = 1;
  r.protocol = protocol;
  r.engine = engine;
  return predict(r).at(0);
}

constexpr double kNvlink4_Bps = 18 * 25.0e9 * 0.844;

}  // namespace

TEST_CASE("with NCCL's runtime a ring pays the base latency once and the step latency per step, by protocol") {
  const ClusterConfig c = nvlink_star(true);
  const std::uint64_t n = 4 << 20;
  const double chunk = double(n) / 4;
  // tuning.cc: Ring baseLatencies {LL 6.6, LL128 14.0, Simple 8.4} us, NVLink hwLatencies
  // {0.6, 1.9, 3.4} us; LL carries 8 of each 16 bytes, LL128 120 of 128 (sim/protocol.cpp).
  struct Case {
    const char* name;
    double base_us, step_us, payload;
  } cases[] = {{"simple", 8.4, 3.4, 1.0}, {"ll", 6.6, 0.6, 0.5}, {"ll128", 14.0, 1.9, 120.0 / 128.0}};
  for (const Case& k : cases)
    for (EngineKind engine : {EngineKind::analytic, EngineKind::flow}) {
      INFO(k.name << " " << to_string(engine));
      // 2(P-1) = 6 steps of N/P bytes each, one after the other (each waits for the one before).
      const double expected = 1e-6 * k.base_us + 6 * (1e-6 * k.step_us + chunk / (kNvlink4_Bps * k.payload));
      const PredictionRecord rec = ring(c, n, find_protocol(k.name), engine);
      REQUIRE(rec.time_s == Approx(expected).epsilon(1e-12));
      CHECK(rec.runtime_s == Approx(1e-6 * k.base_us).epsilon(1e-12));  // what --detail reports apart
      CHECK(rec.lower_bound_s >= rec.runtime_s);
      // The closed form (analytic engine, one port) is priced by the same runtime.
      if (engine == EngineKind::analytic) CHECK(rec.closed_form_s.value() == Approx(expected).epsilon(1e-12));
    }
}

TEST_CASE("without a runtime the links' alpha stays, and the runtime changes only the start-up") {
  const ClusterConfig plain = nvlink_star(false), nccl = nvlink_star(true);
  const std::uint64_t n = 4 << 20;
  const double alpha = 2e-6, base = 8.4e-6, step = 3.4e-6;
  const double links_only = ring(plain, n, simple_protocol(), EngineKind::flow).time_s;
  REQUIRE(links_only == Approx(6 * (alpha + double(n) / 4 / kNvlink4_Bps)).epsilon(1e-12));
  REQUIRE(ring(nccl, n, simple_protocol(), EngineKind::flow).time_s ==
          Approx(links_only + base + 6 * (step - alpha)).epsilon(1e-12));
}

TEST_CASE("a route's step is priced by the widest transport it crosses") {
  // GPU -> NIC (pcie) -> fabric (ib) -> NIC -> GPU is a network step; GPU -> switch -> GPU an
  // NVLink one. NET Ring hwLatencies {2.7, 4.0, 14.0} us, plus the route's hop latencies.
  const ClusterConfig c = parse_cluster_config(
      "name: n\nlink_classes:\n  nv: {technology: nvlink4, links: 18}\n  pc: {technology: pcie5}\n"
      "  ib: {technology: ib-ndr}\nnodes: {count: 2, gpus_per_node: 2, switch: nvswitch, gpu_link: nv, "
      "nics_per_node: 2, nic_link: pc}\ntopology: {kind: star, link: ib}\ngamma_s_per_byte: 0\nruntime: nccl\n",
      "n.yaml");
  Protocol simple = simple_protocol();
  simple.step = run_runtime(CollectiveRuntime::nccl, "ring", simple, 2, 2).step;
  std::vector<LinkId> inside, across;
  c.topology->route(0, 1, 0, inside);
  c.topology->route(0, 2, 0, across);
  double hops_s = 0;
  for (LinkId l : across) hops_s += c.topology->network.link(l).latency_s;
  REQUIRE(hops_s > 0);
  REQUIRE(route_cost(c.topology->network, inside, 1024, 1, simple).startup_s == Approx(3.4e-6).epsilon(1e-12));
  REQUIRE(route_cost(c.topology->network, across, 1024, 1, simple).startup_s == Approx(14.0e-6 + hops_s).epsilon(1e-12));
  // Without the runtime the same routes pay their classes' largest alpha (2 us each).
  REQUIRE(route_cost(c.topology->network, across, 1024, 1, simple_protocol()).startup_s ==
          Approx(2e-6 + hops_s).epsilon(1e-12));
}

TEST_CASE("NVLS, NVLS-tree and CollNet pay NCCL's whole latency once and nothing per step") {
  const Protocol simple = simple_protocol();
  // NVLS: NVLink hwLatency 25 us on one node, + NET 18 us across nodes.
  REQUIRE(run_runtime(CollectiveRuntime::nccl, "nvls", simple, 1, 8).fixed_s == Approx(25e-6));
  REQUIRE(run_runtime(CollectiveRuntime::nccl, "nvls", simple, 4, 8).fixed_s == Approx(43e-6));
  // NVLS-tree: 25 + 2 log2(nodes) x 20.9 us.
  REQUIRE(run_runtime(CollectiveRuntime::nccl, "nvls-tree", simple, 8, 8).fixed_s == Approx(25e-6 + 6 * 20.9e-6));
  // CollNet Direct: 2 (3.7 + 7 x 0.4) + 31 us on nodes of 8 GPUs.
  REQUIRE(run_runtime(CollectiveRuntime::nccl, "collnet", simple, 16, 8).fixed_s == Approx(2 * (3.7 + 2.8) * 1e-6 + 31e-6));
  const RunRuntime nvls = run_runtime(CollectiveRuntime::nccl, "nvls", simple, 1, 8);
  REQUIRE(nvls.step.active);
  REQUIRE(nvls.step.at(Transport::nvlink) == 0);
  // Tree and Ring keep their own constants; no runtime costs nothing.
  REQUIRE(run_runtime(CollectiveRuntime::nccl, "two-tree", find_protocol("ll"), 1, 8).fixed_s == Approx(6.8e-6));
  REQUIRE(run_runtime(CollectiveRuntime::nccl, "two-tree", find_protocol("ll"), 1, 8).step.at(Transport::net) ==
          Approx(5.0e-6));
  const RunRuntime none = run_runtime(CollectiveRuntime::none, "ring", simple, 1, 8);
  REQUIRE(none.fixed_s == 0);
  REQUIRE_FALSE(none.step.active);
}

TEST_CASE("a config names its runtime and its classes' transport, or is refused saying what is expected") {
  REQUIRE(nvlink_star(true).runtime == CollectiveRuntime::nccl);
  REQUIRE(nvlink_star(false).runtime == CollectiveRuntime::none);
  REQUIRE(nvlink_star(true).topology->network.link_class(0).transport == Transport::nvlink);
  const std::string base = "name: s\nlink_classes:\n  e: {bandwidth_Bps: 1.0e+9, transport: net}\n"
                           "topology: {kind: star, endpoints: 4, link: e}\ngamma_s_per_byte: 0\n";
  REQUIRE(parse_cluster_config(base, "s.yaml").topology->network.link_class(0).transport == Transport::net);
  REQUIRE_THAT(test::config_error(base + "runtime: mpich\n"), Catch::Contains("'runtime' must be nccl or none, got 'mpich'"));
  std::string warp = base;
  warp.replace(warp.find("transport: net"), 14, "transport: warp");
  REQUIRE_THAT(test::config_error(warp), Catch::Contains("unknown transport 'warp' (nvlink, pci, net)"));
}

#ifdef COLLSIM_HAVE_SIMGRID
TEST_CASE("with NCCL's runtime the flow engine and SimGrid agree to 1e-6") {
  const ClusterConfig c = parse_cluster_config(
      "name: n\nlink_classes:\n  nv: {technology: nvlink4, links: 18}\n  pc: {technology: pcie5}\n"
      "  ib: {technology: ib-ndr}\nnodes: {count: 4, gpus_per_node: 2, switch: nvswitch, gpu_link: nv, "
      "nics_per_node: 2, nic_link: pc}\ntopology: {kind: star, link: ib}\ngamma_s_per_byte: 1.234567e-12\n"
      "runtime: nccl\n",
      "n.yaml");
  for (const char* algo : {"ring", "two-tree", "recursive-doubling", "hierarchical-ring"})
    for (const char* protocol : {"ll", "simple"}) {
      INFO(algo << " " << protocol);
      PredictionRequest r = cluster_request(c);
      r.algorithms = {algo};
      // Not a round size: NCCL's round step latencies then make no two events tie up to rounding,
      // which the two engines may order differently (tests/sim/test_simgrid_engine.cpp).
      r.sizes = {1000, 3000017};
      r.protocol = find_protocol(protocol);
      r.engine = EngineKind::flow;
      const std::vector<PredictionRecord> flow = predict(r);
      r.engine = EngineKind::simgrid;
      const std::vector<PredictionRecord> simgrid = predict(r);
      for (std::size_t i = 0; i < flow.size(); ++i) REQUIRE(simgrid[i].time_s == Approx(flow[i].time_s).epsilon(1e-6));
    }
}
#endif
