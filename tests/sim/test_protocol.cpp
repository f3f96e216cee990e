// tests/sim/test_protocol.cpp — the wire protocols (sim/protocol.hpp) in the one cost rule: a
// run with a protocol costs exactly what the same run costs on links whose efficiency is
// times the payload fraction and whose alpha is times the start-up factor, in the analytic,
// flow and SimGrid engines; the flat model's ring equals its closed form with those factors;
// `auto` keeps the fastest protocol per algorithm and size, which is LL for a few bytes and
// Simple for a gigabyte on an NVSwitch node.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/closed_forms.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/flow_engine.hpp"
#include "sim/prediction.hpp"
#include "sim/protocol.hpp"
#include "topologies/cluster_config.hpp"
#ifdef COLLSIM_HAVE_SIMGRID
#include "sim/simgrid_engine.hpp"
#endif

using namespace collsim;

namespace {

// Two classes, one with size factors, on 4 nodes of 2 GPUs; `efficiency_scale` and
// `alpha_scale` play a protocol on the classes themselves.
ClusterConfig nodes(double efficiency_scale = 1, double alpha_scale = 1) {
  const std::string yaml = fmt::format(
      "name: t\nlink_classes:\n"
      "  e:\n    bandwidth_Bps: 10.0e+9\n    latency_s: 1.0e-7\n    alpha_s: {}\n    efficiency: {}\n"
      "    size_factors: [{{from_bytes: 0, bandwidth: 0.5, latency: 2.0}}, {{from_bytes: 64K, bandwidth: 1.0}}]\n"
      "  f:\n    bandwidth_Bps: 4.0e+9\n    latency_s: 3.0e-7\n    alpha_s: {}\n    efficiency: {}\n"
      "nodes: {{count: 4, gpus_per_node: 2, switch: pcie, gpu_link: e, nics_per_node: 1, nic_link: f}}\n"
      "topology: {{kind: star, link: f}}\ngamma_s_per_byte: 1.0e-11\n",
      2.0e-6 * alpha_scale, 0.8 * efficiency_scale, 1.0e-6 * alpha_scale, 1.0 * efficiency_scale);
  return parse_cluster_config(yaml, "t.yaml");
}

Schedule allreduce(std::string_view algorithm, Rank ranks, std::uint64_t bytes) {
  ScheduleRequest r;
  r.ranks = ranks;
  r.bytes = bytes;
  r.ranks_per_node = 2;
  return generate_schedule(algorithm, r);
}

}  // namespace

TEST_CASE("protocols: LL halves the payload, LL128 keeps 120 of 128 bytes, Simple changes nothing") {
  CHECK(find_protocol("ll").payload_fraction == 0.5);
  CHECK(find_protocol("LL128").payload_fraction == 120.0 / 128.0);
  CHECK(find_protocol("simple").is_simple());
  CHECK(find_protocol("ll").startup_factor < find_protocol("ll128").startup_factor);
  CHECK(find_protocol("ll128").startup_factor < find_protocol("simple").startup_factor);
  CHECK_THROWS_WITH(find_protocol("warp"), Catch::Contains("unknown protocol 'warp'") && Catch::Contains("ll128"));
}

TEST_CASE("a protocol costs what its factors on the link classes cost, in every engine") {
  const ClusterConfig as_configured = nodes();
  for (const Protocol& p : protocol_table()) {
    const ClusterConfig scaled = nodes(p.payload_fraction, p.startup_factor);
    for (const AlgorithmEntry& a : algorithm_table()) {
      if (!a.supports(Collective::allreduce)) continue;
      if (a.in_network != InNetwork::none) continue;  // needs a switch that reduces: test_in_network_cost.cpp
      for (std::uint64_t bytes : {std::uint64_t(8192), std::uint64_t(3) << 20}) {
        const Schedule s = allreduce(a.name, as_configured.ranks, bytes);
        INFO(p.name << ", " << a.name << ", " << bytes << " bytes");
        AnalyticOptions analytic;
        analytic.protocol = p;
        CHECK(run_analytic(s, *as_configured.topology, 1e-11, analytic).time_s ==
              Approx(run_analytic(s, *scaled.topology, 1e-11).time_s).epsilon(1e-12));
        FlowOptions flow;
        flow.protocol = p;
        CHECK(run_flow(s, *as_configured.topology, 1e-11, flow).time_s ==
              Approx(run_flow(s, *scaled.topology, 1e-11).time_s).epsilon(1e-12));
        flow.shortcut = false;
        CHECK(run_flow(s, *as_configured.topology, 1e-11, flow).time_s ==
              Approx(run_flow(s, *scaled.topology, 1e-11).time_s).epsilon(1e-12));
#ifdef COLLSIM_HAVE_SIMGRID
        if (bytes == 8192) {  // SimGrid costs a process per run: one size is enough for the rule
          SimgridOptions simgrid;
          simgrid.protocol = p;
          CHECK(run_simgrid(s, *as_configured.topology, 1e-11, simgrid).time_s ==
                Approx(run_flow(s, *as_configured.topology, 1e-11, flow).time_s).epsilon(1e-6));
        }
#endif
      }
    }
  }
}

TEST_CASE("a streamed ring with a protocol equals the held one") {
  const ClusterConfig c = nodes();
  ScheduleRequest r;
  r.ranks = c.ranks;
  r.bytes = std::uint64_t(1) << 20;
  r.segments = 2;
  for (const Protocol& p : protocol_table()) {
    FlowOptions options;
    options.protocol = p;
    INFO(p.name);
    CHECK(run_flow(*stream_ring(r), *c.topology, 1e-11, options).time_s ==
          Approx(run_flow(generate_schedule("ring", r), *c.topology, 1e-11, options).time_s).epsilon(1e-12));
  }
}

TEST_CASE("on a flat network, a ring with a protocol equals its closed form with alpha and beta corrected") {
  const CostModel flat = CostModel::uniform(3e-6, 1.0 / 12e9, 1e-10);
  for (const Protocol& p : protocol_table())
    for (Rank ranks : {2u, 5u, 8u}) {
      ScheduleRequest r;
      r.ranks = ranks;
      r.bytes = std::uint64_t(ranks) << 16;
      const Schedule s = generate_schedule("ring", r);
      AnalyticOptions options;
      options.protocol = p;
      const CostModel sent = CostModel::uniform(3e-6 * p.startup_factor, 1.0 / (12e9 * p.payload_fraction), 1e-10);
      INFO(p.name << ", P = " << ranks);
      CHECK(run_analytic(s, flat, options).time_s ==
            Approx(*closed_forms::ring(Collective::allreduce, ranks, double(r.bytes), sent, s.info().segments)).epsilon(1e-12));
    }
}

TEST_CASE("protocol auto keeps each algorithm's fastest protocol: LL for 8 bytes, Simple for 1 GiB on an NVSwitch node") {
  const ClusterConfig c = parse_cluster_config(
      "name: n\nlink_classes:\n  nvl: {bandwidth_Bps: 450.0e+9, latency_s: 0, alpha_s: 2.0e-6, efficiency: 0.844}\n"
      "nodes: {count: 1, gpus_per_node: 8, switch: nvswitch, gpu_link: nvl}\ngamma_s_per_byte: 8.96e-13\n",
      "n.yaml");
  PredictionRequest r;
  r.algorithms = {"ring", "two-tree"};
  r.sizes = {8, std::uint64_t(1) << 30};
  r.ranks = c.ranks;
  r.cost = c.cost;
  r.topology = c.topology;
  r.engine = EngineKind::flow;
  r.protocol.reset();  // auto
  const std::vector<PredictionRecord> chosen = predict(r);
  REQUIRE(chosen.size() == 4);
  for (const PredictionRecord& rec : chosen) {
    double fastest = 1e300;
    std::string_view fastest_name;
    for (const Protocol& p : protocol_table()) {
      PredictionRequest one = r;
      one.algorithms = {rec.algorithm};
      one.sizes = {rec.bytes};
      one.protocol = p;
      const PredictionRecord run = predict(one).at(0);
      CHECK(run.protocol.name == p.name);
      if (run.time_s < fastest) fastest = run.time_s, fastest_name = run.protocol.name;
    }
    INFO(rec.algorithm << " " << rec.bytes);
    CHECK(rec.time_s == fastest);
    CHECK(rec.protocol.name == fastest_name);
    CHECK(rec.protocol.name == (rec.bytes == 8 ? "ll" : "simple"));
  }
}

TEST_CASE("an unknown protocol name is refused, naming the known ones") {
  CHECK_THROWS_WITH(find_protocol("warp"), Catch::Contains("unknown protocol 'warp' (known: ll, ll128, simple)"));
}

TEST_CASE("algo nccl keeps the fastest of NCCL's algorithms with every protocol, and says which it ran") {
  const ClusterConfig c = nodes();
  for (Collective collective : {Collective::allreduce, Collective::reduce_scatter, Collective::broadcast}) {
    PredictionRequest r;
    r.collective = collective;
    r.algorithms = {"binomial", "nccl"};
    if (collective == Collective::reduce_scatter) r.algorithms[0] = "ring";
    r.sizes = {64, std::uint64_t(4) << 20};
    r.ranks = c.ranks;
    r.cost = c.cost;
    r.topology = c.topology;
    r.engine = EngineKind::flow;
    const std::vector<PredictionRecord> records = predict(r);
    REQUIRE(records.size() == 4);
    for (const PredictionRecord& rec : records) {
      if (rec.algorithm != "nccl") {
        CHECK(rec.runs == rec.algorithm);
        continue;
      }
      double fastest = 1e300;
      for (std::string_view a : nccl_candidates(collective, false)) {
        if (find_algorithm(a).in_network != InNetwork::none) continue;  // these switches do not reduce
        PredictionRequest one = r;
        one.algorithms = {std::string(a)};
        one.sizes = {rec.bytes};
        one.protocol.reset();  // auto
        fastest = std::min(fastest, predict(one).at(0).time_s);
      }
      INFO(to_string(collective) << " " << rec.bytes << ": ran " << rec.runs << " " << rec.protocol.name);
      CHECK(rec.time_s == fastest);
      const std::vector<std::string_view> candidates = nccl_candidates(collective, false);
      CHECK(std::find(candidates.begin(), candidates.end(), rec.runs) != candidates.end());
    }
  }
  CHECK(nccl_candidates(Collective::allreduce, false) ==
        std::vector<std::string_view>{"ring", "nccl-tree", "nvls", "nvls-tree"});  // CollNet off: NCCL's default
  CHECK(nccl_candidates(Collective::allreduce, true) ==
        std::vector<std::string_view>{"ring", "nccl-tree", "nvls", "nvls-tree", "collnet"});
  CHECK(nccl_candidates(Collective::reduce_scatter, true) == std::vector<std::string_view>{"ring"});
  // NCCL's ring from the root
  CHECK(nccl_candidates(Collective::broadcast, true) == std::vector<std::string_view>{"chain"});
}
