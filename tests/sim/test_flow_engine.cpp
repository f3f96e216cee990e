// tests/sim/test_flow_engine.cpp — the flow engine: equal to the analytic engine (unlimited
// ports) where routes share no link, and max-min sharing where they do.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "collectives/algorithm.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/flow_engine.hpp"
#include "sim/flow_report.hpp"
#include "sim/flow_shortcut.hpp"
#include "tests/sim/cyclic_schedule.hpp"
#include "tests/support/test_cluster.hpp"
#include "topologies/cluster_config.hpp"

using namespace collsim;

namespace {

ClusterConfig cluster(const std::string& topology, Rank ranks) {
  return test::test_cluster("  l: {bandwidth_Bps: 2.0e+9, latency_s: 3.0e-7, alpha_s: 1.0e-6}\n", topology, ranks);
}

double analytic_unlimited(const Schedule& s, const Topology& t, double gamma) {
  return run_analytic(s, t, gamma, {false}).time_s;
}

}  // namespace

TEST_CASE("where routes share no link the flow engine equals the analytic engine with unlimited ports") {
  for (Rank p : {2u, 3u, 5u, 8u, 12u}) {
    const ClusterConfig c = cluster(fmt::format("{{kind: full, endpoints: {}, link: l}}", p), p);
    for (const auto& algorithm : algorithm_table()) {
      if (algorithm.in_network != InNetwork::none) continue;  // needs a switch that reduces: test_in_network_cost.cpp
      for (Collective collective : algorithm.collectives) {
        ScheduleRequest r;
        r.collective = collective;
        r.ranks = p;
        r.bytes = 3 << 20;
        // One segment: a pipeline's segments on one tree edge share that edge's link in the
        // flow engine, while the unlimited-port analytic engine gives each the full bandwidth.
        r.segments = algorithm.pipelined ? 1 : 0;
        if (algorithm.needs_ranks_per_node) {  // hierarchical-ring, rail-alltoall
          if (p % 2 != 0) continue;
          r.ranks_per_node = 2;
        }
        INFO(algorithm.name << " " << to_string(collective) << " P=" << p);
        const Schedule s = generate_schedule(algorithm.name, r);
        const FlowResult flow = run_flow(s, *c.topology, 1e-10);
        REQUIRE(flow.time_s == Approx(analytic_unlimited(s, *c.topology, 1e-10)).epsilon(1e-9));
      }
    }
  }
}

TEST_CASE("two flows out of one rank share its link: each drains at half the bandwidth") {
  const ClusterConfig c = cluster("{kind: star, endpoints: 3, link: l}", 3);
  ScheduleRequest r;
  r.collective = Collective::broadcast;
  r.ranks = 3;
  r.bytes = 1 << 20;
  const Schedule s = generate_schedule("naive", r);
  const FlowResult flow = run_flow(s, *c.topology, 0);
  // Naive broadcast: the root sends 1 MiB to each of the two others at once: alpha, two hop
  // latencies, then 2 MiB through the root's 2 GB/s uplink.
  REQUIRE(s.size() == 2);
  REQUIRE(flow.time_s == Approx(1e-6 + 6e-7 + 2.0 * (1 << 20) / 2e9).epsilon(1e-9));
  const LinkId root_up = c.topology->network.find_link(c.topology->vertex_of(0), 3);
  REQUIRE(root_up != kNoLink);
  REQUIRE(flow.links[root_up].bytes == Approx(2.0 * (1 << 20)));
  REQUIRE(flow.rank_finish_s[1] == Approx(flow.time_s));
}

TEST_CASE("the flow engine gives identical results on identical runs") {
  const ClusterConfig c = cluster("{kind: fat-tree, k: 4, n: 2, link: l, taper: [1, 0.5]}", 16);
  ScheduleRequest r;
  r.ranks = 16;
  r.bytes = 1 << 22;
  const Schedule s = generate_schedule("two-tree", r);
  const FlowResult a = run_flow(s, *c.topology, 1e-10), b = run_flow(s, *c.topology, 1e-10);
  REQUIRE(a.time_s == b.time_s);
  REQUIRE(a.rank_finish_s == b.rank_finish_s);
  REQUIRE(a.events == b.events);
  REQUIRE(a.rate_solves == b.rate_solves);
  for (LinkId l = 0; l < a.links.size(); ++l) {
    REQUIRE(a.links[l].bytes == b.links[l].bytes);
    REQUIRE(a.links[l].busy_s == b.links[l].busy_s);
    REQUIRE(a.links[l].peak_utilization == b.links[l].peak_utilization);
  }
  REQUIRE(a.critical_path.size() == b.critical_path.size());
  for (std::size_t i = 0; i < a.critical_path.size(); ++i) REQUIRE(a.critical_path[i].id == b.critical_path[i].id);
}

namespace {

// A schedule of independent copies of `bytes` each, all ready at time 0.
Schedule independent_copies(Rank ranks, std::uint64_t bytes, const std::vector<std::pair<Rank, Rank>>& pairs) {
  ScheduleInfo info;
  info.ranks = ranks;
  info.bytes = bytes;
  Schedule s(info);
  const ChunkId all = s.add_chunk({0, bytes});
  for (const auto& [src, dst] : pairs) s.append(src, all, dst, all, Op::copy, 0, {});
  return s;
}

ClusterConfig zero_latency_cluster(const std::string& topology, Rank ranks) {
  return parse_cluster_config(fmt::format("name: t\nlink_classes:\n  l: {{bandwidth_Bps: 1.0e+9}}\ntopology: {}\n"
                                          "ranks: {}\ngamma_s_per_byte: 0\n",
                                          topology, ranks),
                              "t.yaml");
}

double ring_time(const ClusterConfig& c, Rank ranks, std::uint64_t bytes) {
  ScheduleRequest r;
  r.ranks = ranks;
  r.bytes = bytes;
  return run_flow(generate_schedule("ring", r), *c.topology, 0).time_s;
}

}  // namespace

TEST_CASE("the classic max-min case: a flow bottlenecked elsewhere leaves its share to the other") {
  // On a star: 0->3, 2->3 and 4->3 split rank 3's downlink three ways (B/3 each); 0->1 shares
  // rank 0's uplink only with 0->3, so it gets the rest, 2B/3, and ends at 1.5 b/B.
  const ClusterConfig c = zero_latency_cluster("{kind: star, endpoints: 5, link: l}", 5);
  const double b = 1e6, bandwidth = 1e9;
  const Schedule s = independent_copies(5, std::uint64_t(b), {{0, 3}, {0, 1}, {2, 3}, {4, 3}});
  FlowOptions options;
  options.timeline = true;
  const FlowResult f = run_flow(s, *c.topology, 0, options);
  REQUIRE(f.timeline[1].arrival_s == Approx(1.5 * b / bandwidth).epsilon(1e-12));
  for (TransferId id : {0u, 2u, 3u}) REQUIRE(f.timeline[id].arrival_s == Approx(3 * b / bandwidth).epsilon(1e-12));
  const LinkId down3 = c.topology->network.find_link(5, c.topology->vertex_of(3));
  REQUIRE(f.links[down3].peak_utilization == Approx(1.0));
  REQUIRE(f.links[down3].busy_s == Approx(3 * b / bandwidth));
}

TEST_CASE("ring allreduce on a 2:1 tapered fat-tree takes exactly twice as long as untapered") {
  // 4 leaves of 2 hosts under one spine; ring neighbours 1->2, 3->4, 5->6, 7->0 cross the
  // spine, one per leaf uplink. Without latency every step takes chunk / (slowest link's
  // rate): the tapered uplinks halve it. Ring: 2 (P-1) steps of N/P bytes.
  const std::uint64_t bytes = 8 << 20;
  const ClusterConfig full = zero_latency_cluster("{kind: xgft, m: [2, 4], w: [1, 1], link: l}", 8);
  const ClusterConfig tapered = zero_latency_cluster("{kind: xgft, m: [2, 4], w: [1, 1], link: l, taper: [1, 0.5]}", 8);
  const double t_full = ring_time(full, 8, bytes), t_tapered = ring_time(tapered, 8, bytes);
  REQUIRE(t_full == Approx(2.0 * 7 * (bytes / 8) / 1e9).epsilon(1e-9));
  REQUIRE(t_tapered / t_full == Approx(2.0).epsilon(1e-9));
}

TEST_CASE("a placement that spreads each node's GPUs around the ring shares the node's NIC") {
  // 4 nodes x 4 GPUs, one NIC per node, on a star. Linear: one ring hop per node leaves the
  // node, over its NIC alone. Round-robin (rank r on node r mod 4): every hop leaves its node,
  // so each NIC carries 4 flows at once: 4 x slower, as the bandwidth bound predicts.
  const std::string yaml =
      "name: t\nlink_classes:\n  nv: {bandwidth_Bps: 100.0e+9}\n  pcie: {bandwidth_Bps: 20.0e+9}\n"
      "  net: {bandwidth_Bps: 10.0e+9}\nnodes: {count: 4, gpus_per_node: 4, switch: nvswitch, gpu_link: nv, "
      "nics_per_node: 1, nic_link: pcie}\ntopology: {kind: star, link: net}\ngamma_s_per_byte: 0\n";
  ClusterConfig linear = parse_cluster_config(yaml, "t.yaml");
  ClusterConfig spread = parse_cluster_config(yaml + "placement: round-robin\n", "t.yaml");
  const std::uint64_t bytes = 16 << 20;
  const double t_linear = ring_time(linear, 16, bytes), t_spread = ring_time(spread, 16, bytes);
  REQUIRE(t_linear == Approx(2.0 * 15 * (bytes / 16) / 10e9).epsilon(1e-9));
  REQUIRE(t_spread / t_linear == Approx(4.0).epsilon(1e-9));
}

TEST_CASE("a schedule whose dependencies never complete is an error, not a hang") {
  const ClusterConfig c = zero_latency_cluster("{kind: star, endpoints: 3, link: l}", 3);
  const Schedule s = test::cyclic_schedule();
  REQUIRE_THROWS_WITH(run_flow(s, *c.topology, 0), Catch::Contains("2 of 3 transfers never completed"));
}

TEST_CASE("flow results add up: link bytes, utilization bounds, a critical path that spans the run") {
  const ClusterConfig c = cluster("{kind: fat-tree, k: 4, n: 2, link: l, taper: [1, 0.5]}", 16);
  for (const char* algorithm : {"ring", "two-tree", "recursive-doubling", "rabenseifner", "tree"}) {
    INFO(algorithm);
    ScheduleRequest r;
    r.ranks = 16;
    r.bytes = 3 << 20;
    const Schedule s = generate_schedule(algorithm, r);
    const FlowResult f = run_flow(s, *c.topology, 1e-10);
    // Every byte crosses every link of its route once.
    double routed = 0, carried = 0;
    std::vector<LinkId> route;
    for (TransferId id = 0; id < s.size(); ++id) {
      const Transfer x = s.transfer(id);
      route.clear();
      c.topology->route(x.src, x.dst, id, route);
      routed += double(s.transfer_bytes(id)) * double(route.size());
    }
    for (const LinkUsage& u : f.links) {
      carried += u.bytes;
      REQUIRE(u.peak_utilization <= 1 + 1e-9);
      REQUIRE(u.busy_s <= f.time_s * (1 + 1e-12));
    }
    REQUIRE(carried == Approx(routed).epsilon(1e-12));
    // The path starts at time 0, ends at the run's time, and each entry hands over exactly.
    const auto& path = f.critical_path;
    REQUIRE(!path.empty());
    REQUIRE(path.front().waited == Waited::nothing);
    REQUIRE(path.front().times.ready_s == 0);
    REQUIRE(path.back().times.done_s == f.time_s);
    for (std::size_t i = 1; i < path.size(); ++i) {
      const TransferTimes &t = path[i].times, &before = path[i - 1].times;
      switch (path[i].waited) {
        case Waited::dependency: REQUIRE(t.ready_s == before.done_s); break;
        case Waited::channel: REQUIRE(t.start_s == Approx(before.arrival_s)); break;
        case Waited::reducer:
          REQUIRE(t.done_s - double(s.transfer_bytes(path[i].id)) * 1e-10 == Approx(before.done_s));
          break;
        case Waited::nothing: FAIL("only the first entry starts the path");
      }
      REQUIRE(t.ready_s <= t.start_s);
      REQUIRE(t.start_s <= t.arrival_s);
      REQUIRE(t.arrival_s <= t.done_s);
    }
    const CriticalBreakdown b = critical_breakdown(f);
    REQUIRE(b.latency_s + b.drain_s + b.reduction_s == Approx(f.time_s).epsilon(1e-12));
    REQUIRE(b.drain_s >= b.ideal_drain_s * (1 - 1e-12));
  }
}

TEST_CASE("the shortcut gives the event simulation's results where no link is shared by two pairs") {
  // Ring-like schedules on fabrics where neighbours' routes are disjoint take the shortcut;
  // everything must match the event simulation: times, per-rank finish, links.
  const std::vector<std::pair<std::string, Rank>> fabrics = {
      {"{kind: ring, endpoints: 6, link: l}", 6},
      {"{kind: torus, dims: [3, 4], link: l}", 12},
      {"{kind: xgft, m: [4, 4], w: [1, 4], link: l}", 16},
      {"{kind: fat-tree, k: 4, n: 3, link: l, taper: [1, 0.5, 0.5]}", 64},
      {"{kind: dragonfly, p: 2, a: 4, h: 2, g: 9, arrangement: absolute, terminal_link: l, local_link: l, "
       "global_link: l}",
       72},
  };
  std::size_t taken = 0;
  for (const auto& [fabric, ranks] : fabrics) {
    const ClusterConfig c = cluster(fabric, ranks);
    for (Collective collective : {Collective::allreduce, Collective::reduce_scatter, Collective::allgather}) {
      for (std::uint64_t bytes : {std::uint64_t(1000), std::uint64_t(3) << 20}) {
        INFO(fabric << " " << to_string(collective) << " " << bytes);
        ScheduleRequest r;
        r.collective = collective;
        r.ranks = ranks;
        r.bytes = bytes;
        const Schedule s = generate_schedule("ring", r);
        FlowOptions events;
        events.shortcut = false;
        const FlowResult full = run_flow(s, *c.topology, 1e-10, events);
        const std::optional<FlowResult> fast = run_flow_without_sharing(s, *c.topology, 1e-10, {});
        if (!fast) continue;
        ++taken;
        REQUIRE(fast->time_s == Approx(full.time_s).epsilon(1e-9));
        for (Rank k = 0; k < ranks; ++k) REQUIRE(fast->rank_finish_s[k] == Approx(full.rank_finish_s[k]).epsilon(1e-9));
        for (LinkId l = 0; l < full.links.size(); ++l) {
          REQUIRE(fast->links[l].bytes == full.links[l].bytes);
          REQUIRE(fast->links[l].busy_s == Approx(full.links[l].busy_s).epsilon(1e-9).margin(1e-15));
          REQUIRE(fast->links[l].peak_utilization == Approx(full.links[l].peak_utilization));
        }
        // Ties (symmetric rings) leave several critical paths; each must span the run.
        REQUIRE(fast->critical_path.front().times.ready_s == 0);
        REQUIRE(fast->critical_path.back().times.done_s == Approx(full.time_s).epsilon(1e-9));
      }
    }
  }
  REQUIRE(taken >= 20);  // the shortcut must actually apply to these ring schedules
}

TEST_CASE("the shortcut declines where two pairs' routes share a link") {
  const ClusterConfig c = cluster("{kind: star, endpoints: 8, link: l}", 8);
  ScheduleRequest r;
  r.ranks = 8;
  r.bytes = 1 << 20;
  // Recursive doubling: each rank talks to 3 partners through its one uplink.
  REQUIRE(!run_flow_without_sharing(generate_schedule("recursive-doubling", r), *c.topology, 0, {}));
  REQUIRE(run_flow_without_sharing(generate_schedule("ring", r), *c.topology, 0, {}));
}

TEST_CASE("a streamed ring gives the held ring's results without holding it") {
  for (const auto& [fabric, ranks] : std::vector<std::pair<std::string, Rank>>{
           {"{kind: xgft, m: [4, 4, 2], w: [1, 4, 4], link: l}", 32},
           {"{kind: torus, dims: [4, 4], link: l}", 16},
           {"{kind: dragonfly, p: 2, a: 4, h: 2, g: 3, arrangement: absolute, terminal_link: l, local_link: l, "
            "global_link: l}",
            24}}) {
    const ClusterConfig c = cluster(fabric, ranks);
    for (Collective collective : {Collective::allreduce, Collective::allgather}) {
      INFO(fabric << " " << to_string(collective));
      ScheduleRequest r;
      r.collective = collective;
      r.ranks = ranks;
      r.bytes = (5 << 20) + 3;
      const FlowResult held = run_flow(generate_schedule("ring", r), *c.topology, 1e-10);
      const FlowResult streamed = *run_stream_without_sharing(*stream_ring(r), *c.topology, 1e-10, {});
      REQUIRE(streamed.time_s == Approx(held.time_s).epsilon(1e-12));
      for (Rank k = 0; k < ranks; ++k) REQUIRE(streamed.rank_finish_s[k] == Approx(held.rank_finish_s[k]).epsilon(1e-12));
      for (LinkId l = 0; l < held.links.size(); ++l) REQUIRE(streamed.links[l].bytes == held.links[l].bytes);
    }
  }
  const ClusterConfig star = cluster("{kind: star, endpoints: 4, link: l}", 4);
  ScheduleRequest r;
  r.ranks = 4;
  r.bytes = 1 << 20;
  REQUIRE(run_stream_without_sharing(*stream_ring(r), *star.topology, 0, {}));
  const ClusterConfig shared = cluster("{kind: star, endpoints: 4, link: l, backplane_Bps: 1.0e+9}", 4);
  std::string why;
  REQUIRE(!run_stream_without_sharing(*stream_ring(r), *shared.topology, 0, {}, &why));
  REQUIRE(why == "two rank pairs' routes share a link");
  // No link shared, a pipelined step's slices (or C channels' steps) ready together on one
  // pair: the events take them in order of id, as the list does, so the shortcut times them,
  // as the events without it do.
  for (const auto& [segments, channels] : {std::pair{3u, 1u}, {1u, 3u}, {2u, 4u}}) {
    INFO(segments << " segments, " << channels << " channels");
    r.segments = segments;
    r.channels = channels;
    const std::optional<FlowResult> shortcut = run_stream_without_sharing(*stream_ring(r), *star.topology, 1e-10, {});
    REQUIRE(shortcut);
    FlowOptions events;
    events.shortcut = false;
    const FlowResult held = run_flow(generate_schedule("ring", r), *star.topology, 1e-10, events);
    REQUIRE(shortcut->time_s == Approx(held.time_s).epsilon(1e-12));
    for (Rank k = 0; k < r.ranks; ++k) REQUIRE(shortcut->rank_finish_s[k] == Approx(held.rank_finish_s[k]).epsilon(1e-12));
  }
}

// Where pairs share links, a streamed ring runs the event simulation over a window of live
// transfers. Dragonfly groups of 4 routers: the ring's wrap-around pair crosses a local link
// that another pair's route crosses too; on a star with a backplane every flow shares it; on
// a fat-tree with ranks placed at random, several pairs cross one leaf's uplink.
TEST_CASE("a streamed ring whose flows share links equals the held event simulation") {
  for (const auto& [fabric, ranks] : std::vector<std::pair<std::string, Rank>>{
           {"{kind: star, endpoints: 12, link: l, backplane_Bps: 3.0e+9}", 12},
           {"{kind: dragonfly, p: 2, a: 4, h: 1, g: 5, arrangement: absolute, terminal_link: l, local_link: l, "
            "global_link: l}",
            40},
           {"{kind: xgft, m: [4, 4], w: [1, 1], link: l}\nplacement: {kind: random, seed: 3}", 16}}) {
    const ClusterConfig c = cluster(fabric, ranks);
    for (Collective collective : {Collective::allreduce, Collective::reduce_scatter}) {
      INFO(fabric << " " << to_string(collective));
      ScheduleRequest r;
      r.collective = collective;
      r.ranks = ranks;
      r.bytes = (3 << 20) + 5;
      const auto stream = stream_ring(r);
      REQUIRE(!run_stream_without_sharing(*stream, *c.topology, 1e-10, {}));  // the events are needed
      FlowOptions events_only;
      events_only.shortcut = false;
      const FlowResult held = run_flow(generate_schedule("ring", r), *c.topology, 1e-10, events_only);
      std::vector<std::string> said;
      FlowOptions hear;
      hear.on_fallback = [&](const std::string& why) { said.push_back(why); };
      const FlowResult streamed = run_flow(*stream, *c.topology, 1e-10, hear);
      REQUIRE(streamed.time_s == Approx(held.time_s).epsilon(1e-12));
      for (Rank k = 0; k < ranks; ++k) REQUIRE(streamed.rank_finish_s[k] == Approx(held.rank_finish_s[k]).epsilon(1e-12));
      for (LinkId l = 0; l < held.links.size(); ++l) {
        REQUIRE(streamed.links[l].bytes == Approx(held.links[l].bytes).epsilon(1e-12));
        REQUIRE(streamed.links[l].peak_utilization == Approx(held.links[l].peak_utilization).epsilon(1e-9));
      }
      // The same simulation as the held schedule's with its partial shortcut: event for event.
      REQUIRE(streamed.events == run_flow(generate_schedule("ring", r), *c.topology, 1e-10).events);
      REQUIRE(streamed.events <= held.events);  // exclusive channels skip their flows' events
      REQUIRE(!said.empty());
      REQUIRE(said.back().find("simulating events") != std::string::npos);
    }
  }
}
