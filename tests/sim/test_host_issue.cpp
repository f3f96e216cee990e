// tests/sim/test_host_issue.cpp — the host's issue of a schedule (RunCosts::issue_s,
// sim/host_issue.hpp): one host thread issues the transfers in list order, each taking
// issue_s, so transfer `id` starts no earlier than (id + 1) x issue_s. By hand on a flat
// network for the analytic and flow engines (SimGrid: tests/sim/test_simgrid_engine.cpp); a
// ring that the host cannot keep fed takes n x issue_s plus its last transfer; issue_s = 0
// changes nothing; the flow engine's shortcut, its events and its streamed forms agree with it
// on; --detail's critical path tells the waits for the host apart; explain's steps add up to
// the analytic time where the host or the steps bind.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "collectives/algorithm.hpp"
#include "collectives/transfer_stream.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/engine_table.hpp"
#include "sim/flow_engine.hpp"
#include "sim/flow_report.hpp"
#include "sim/flow_shortcut.hpp"
#include "sim/step_costs.hpp"
#include "tests/support/one_message.hpp"
#include "tests/support/test_cluster.hpp"
#include "topologies/cluster_config.hpp"
#include "topologies/flat_network.hpp"

using namespace collsim;

namespace {

constexpr double kAlpha_s = 2e-6;
constexpr double kBandwidth_Bps = 5e9;
constexpr std::uint64_t kBytes = 10000;  // 2 us at 5 GB/s

// On 2 ranks: 0 -> 1 and 1 -> 0, independent, then 0 -> 1 again after the first.
Schedule two_opposite_transfers_and_a_follower() { return test::two_opposite_transfers_and_a_follower(kBytes); }

RunCosts flat_costs(const Topology& network, double issue_s, double gamma_s_per_byte = 0) {
  RunCosts costs;
  costs.topology = &network;
  costs.gamma_s_per_byte = gamma_s_per_byte;
  costs.issue_s = issue_s;
  return costs;
}

double engine_time(EngineKind kind, const Schedule& s, const RunCosts& costs) {
  FlowResult unused;
  return find_engine(kind).run(s, costs, EngineRun{}, unused);
}

ScheduleRequest request(Rank ranks, std::uint64_t bytes) {
  ScheduleRequest r;
  r.ranks = ranks;
  r.bytes = bytes;
  return r;
}

}  // namespace

TEST_CASE("a transfer starts no earlier than the host has issued it, however early its dependencies are done") {
  const auto network = flat_topology(CostModel::uniform(kAlpha_s, 1 / kBandwidth_Bps, 0), 2, "flat");
  const Schedule s = two_opposite_transfers_and_a_follower();
  const double message_s = kAlpha_s + double(kBytes) / kBandwidth_Bps;  // 4 us
  for (EngineKind kind : {EngineKind::analytic, EngineKind::flow}) {
    INFO(to_string(kind));
    // 5 us a transfer: the follower's dependency is done at 5 + 4 us, but it is issued at 15 us.
    CHECK(engine_time(kind, s, flat_costs(*network, 5e-6)) == Approx(3 * 5e-6 + message_s).epsilon(1e-12));
    // 0.1 us a transfer: the host keeps up, the follower waits for its dependency.
    CHECK(engine_time(kind, s, flat_costs(*network, 1e-7)) == Approx(1e-7 + 2 * message_s).epsilon(1e-12));
    CHECK(engine_time(kind, s, flat_costs(*network, 0)) == Approx(2 * message_s).epsilon(1e-12));
  }
  // The second of the two independent ones: issued at 2 x 5 us.
  const FlowResult f = run_flow(s, *network, 0, {.issue_s = 5e-6, .timeline = true});
  CHECK(f.timeline[1].ready_s == 0);  // ready at once; its wait for the host is before its start
  CHECK(f.timeline[1].start_s == Approx(2 * 5e-6 + kAlpha_s).epsilon(1e-12));
  CHECK(f.timeline[2].ready_s == Approx(5e-6 + message_s).epsilon(1e-12));
  // The analytic engine's critical path begins where the host last held a transfer back.
  const AnalyticResult a = run_analytic(s, *network, 0, {.issue_s = 5e-6});
  CHECK(a.critical_path == std::vector<TransferId>{2});
}

TEST_CASE("a ring the host cannot keep fed takes a transfer's issue per transfer, plus its last transfer") {
  // 4 KiB on 8 ranks, 512-byte chunks: 2 ns alpha and 5 ns to drain, far under 5 us a transfer.
  const double alpha_s = 2e-9, bandwidth_Bps = 100e9, gamma_s_per_byte = 1e-12, issue_s = 5e-6;
  const auto network = flat_topology(CostModel::uniform(alpha_s, 1 / bandwidth_Bps, gamma_s_per_byte), 8, "flat");
  const Schedule s = generate_schedule("ring", request(8, 4096));
  REQUIRE(s.size() == 112);  // 2 (P - 1) steps of P transfers
  const TransferId last = TransferId(s.size() - 1);
  const double chunk = double(s.transfer_bytes(last));
  const double last_own_s =
      alpha_s + chunk / bandwidth_Bps + (s.transfer(last).op == Op::reduce ? chunk * gamma_s_per_byte : 0);
  for (EngineKind kind : {EngineKind::analytic, EngineKind::flow}) {
    INFO(to_string(kind));
    const double t = engine_time(kind, s, flat_costs(*network, issue_s, gamma_s_per_byte));
    CHECK(t >= double(s.size()) * issue_s);
    CHECK(t == Approx(double(s.size()) * issue_s + last_own_s).epsilon(0.01));
  }
}

TEST_CASE("no issue cost changes nothing") {
  const ClusterConfig c = test::test_cluster("  l: {bandwidth_Bps: 2.0e+9, latency_s: 3.0e-7, alpha_s: 1.0e-6}\n",
                                             "{kind: xgft, m: [4, 4], w: [1, 2], link: l}", 16);
  for (const char* algorithm : {"ring", "two-tree", "rabenseifner"}) {
    INFO(algorithm);
    const Schedule s = generate_schedule(algorithm, request(16, (3 << 20) + 7));
    const RunCosts costs = flat_costs(*c.topology, 0, 1e-10);
    CHECK(engine_time(EngineKind::analytic, s, costs) == Approx(run_analytic(s, *c.topology, 1e-10).time_s).epsilon(1e-12));
    CHECK(engine_time(EngineKind::flow, s, costs) == Approx(run_flow(s, *c.topology, 1e-10).time_s).epsilon(1e-12));
  }
}

TEST_CASE("with the host's issue, the flow engine's shortcut, events and streams agree") {
  // Issue costs around a transfer's own, so some transfers wait for the host and some for
  // their dependencies.
  for (double issue_s : {3e-7, 2e-6, 2e-5}) {
    const ClusterConfig exclusive = test::test_cluster("  l: {bandwidth_Bps: 2.0e+9, latency_s: 3.0e-7, alpha_s: 1.0e-6}\n",
                                                       "{kind: torus, dims: [4, 4], link: l}", 16);
    const ClusterConfig shared = test::test_cluster("  l: {bandwidth_Bps: 2.0e+9, latency_s: 3.0e-7, alpha_s: 1.0e-6}\n",
                                                    "{kind: star, endpoints: 12, link: l, backplane_Bps: 3.0e+9}", 12);
    for (const ClusterConfig* c : {&exclusive, &shared}) {
      const Rank ranks = c->topology->ranks();
      ScheduleRequest r = request(ranks, (1 << 16) + 5);
      INFO(fmt::format("issue {} s, {} ranks", issue_s, ranks));
      const Schedule s = generate_schedule("ring", r);
      FlowOptions events{.issue_s = issue_s, .shortcut = false};
      const FlowResult held_events = run_flow(s, *c->topology, 1e-10, events);
      const FlowResult held = run_flow(s, *c->topology, 1e-10, {.issue_s = issue_s});
      const FlowResult streamed = run_flow(*stream_ring(r), *c->topology, 1e-10, {.issue_s = issue_s});
      const FlowResult streamed_events = run_flow(*stream_ring(r), *c->topology, 1e-10, events);
      CHECK(held.time_s > double(s.size()) * issue_s);
      for (const FlowResult* f : {&held, &streamed, &streamed_events}) {
        CHECK(f->time_s == Approx(held_events.time_s).epsilon(1e-12));
        for (Rank k = 0; k < ranks; ++k) CHECK(f->rank_finish_s[k] == Approx(held_events.rank_finish_s[k]).epsilon(1e-12));
      }
      if (c == &exclusive) REQUIRE(run_stream_without_sharing(*stream_ring(r), *c->topology, 1e-10, {.issue_s = issue_s}));
    }
  }
}

TEST_CASE("with the host's issue the flow engine equals the analytic engine with unlimited ports where routes share no link") {
  const ClusterConfig c = test::test_cluster("  l: {bandwidth_Bps: 2.0e+9, latency_s: 3.0e-7, alpha_s: 1.0e-6}\n",
                                             "{kind: full, endpoints: 8, link: l}", 8);
  for (const char* algorithm : {"ring", "recursive-doubling", "rabenseifner", "binomial", "two-tree"}) {
    for (double issue_s : {5e-7, 5e-6}) {
      INFO(algorithm << ", issue " << issue_s << " s");
      ScheduleRequest r = request(8, 3 << 20);
      r.segments = 1;  // one segment: as in test_flow_engine.cpp's cross-check without issue
      const Schedule s = generate_schedule(algorithm, r);
      const double analytic = run_analytic(s, *c.topology, 1e-10, {.one_port = false, .issue_s = issue_s}).time_s;
      CHECK(run_flow(s, *c.topology, 1e-10, {.issue_s = issue_s}).time_s == Approx(analytic).epsilon(1e-9));
      CHECK(analytic >= double(s.size()) * issue_s);
    }
  }
}

TEST_CASE("explain's steps wait for the host's issue and add up to the analytic time where the host or the steps bind") {
  const auto network = flat_topology(CostModel::uniform(1e-6, 1 / 5e9, 1e-11), 8, "flat");
  const Schedule s = generate_schedule("ring", request(8, 64 << 10));  // 8 KiB chunks: about 2.6 us a step
  for (double issue_s : {1e-8, 5e-6}) {
    INFO("issue " << issue_s << " s");
    const RunCosts costs = flat_costs(*network, issue_s, 1e-11);
    double steps_s = 0;
    for (const StepCost& step : step_costs(s, costs)) steps_s += step.time_s();
    CHECK(steps_s == Approx(engine_time(EngineKind::analytic, s, costs)).epsilon(1e-9));
  }
  const std::vector<StepCost> steps = step_costs(s, flat_costs(*network, 5e-6, 1e-11));
  CHECK(steps.front().issue_wait_s == Approx(8 * 5e-6).epsilon(1e-12));  // its 8 transfers issued
  CHECK(step_costs(s, flat_costs(*network, 0, 1e-11)).front().issue_wait_s == 0);
}

TEST_CASE("the critical path tells the waits for the host's issue apart, and its parts still sum to the run's time") {
  const ClusterConfig c = test::test_cluster("  l: {bandwidth_Bps: 2.0e+9, latency_s: 3.0e-7, alpha_s: 1.0e-6}\n",
                                             "{kind: torus, dims: [2, 4], link: l}", 8);
  const Schedule s = generate_schedule("ring", request(8, 4096));
  for (bool shortcut : {true, false}) {
    INFO("shortcut " << shortcut);
    const FlowResult host_bound = run_flow(s, *c.topology, 1e-10, {.issue_s = 5e-6, .shortcut = shortcut});
    const CriticalBreakdown b = critical_breakdown(host_bound);
    CHECK(b.issue_s + b.latency_s + b.drain_s + b.reduction_s == Approx(host_bound.time_s).epsilon(1e-12));
    // The host issues the last transfer at 112 x 5 us; the path's transfers cost about 2 us
    // each (14 of them): the rest of it is waiting for the host.
    CHECK(b.issue_s > 0.9 * host_bound.time_s);
    CHECK(b.latency_s > 0);
    CHECK(flow_detail_text(s, *c.topology, host_bound).find("waiting for the host's issue") != std::string::npos);
    const FlowResult no_issue = run_flow(s, *c.topology, 1e-10, {.shortcut = shortcut});
    CHECK(critical_breakdown(no_issue).issue_s == 0);
    CHECK(flow_detail_text(s, *c.topology, no_issue).find("host") == std::string::npos);
  }
}
