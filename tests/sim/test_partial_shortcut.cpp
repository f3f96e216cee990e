// tests/sim/test_partial_shortcut.cpp — the flow engine's partial shortcut (exclusive
// channels timed without max-min, sim/flow_channels.hpp) against the event simulation of
// every flow: random schedules on fabrics where some pairs share links and some do not, with
// reductions, local transfers, equal and unequal sizes, and size factors. Every transfer's
// times, the run's time, each rank's finish and each link's usage must agree to 1e-12.
#include <random>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "collectives/algorithm.hpp"
#include "sim/flow_engine.hpp"
#include "topologies/cluster_config.hpp"
#include "tests/support/test_cluster.hpp"

using namespace collsim;

namespace {

ClusterConfig cluster(const std::string& topology, Rank ranks) {
  return test::test_cluster("  l: {bandwidth_Bps: 2.0e+9, latency_s: 3.0e-7, alpha_s: 1.0e-6}\n"
                            "  f: {bandwidth_Bps: 4.0e+9, latency_s: 2.0e-7, alpha_s: 5.0e-7, efficiency: 0.9, size_factors: "
                            "[{from_bytes: 0, bandwidth: 0.5, latency: 2.0}, {from_bytes: 64K, bandwidth: 1.0}]}\n",
                            topology, ranks);
}

// `n` transfers among `ranks`: mostly to the next rank (pairs that keep to themselves on
// most fabrics), some to any rank, a few local; each waits on up to three earlier ones.
Schedule random_schedule(Rank ranks, std::size_t n, std::mt19937& rng, bool lock_step) {
  ScheduleInfo info;
  info.ranks = ranks;
  info.bytes = 1;
  Schedule s(info);
  std::uniform_real_distribution<double> u(0, 1);
  const std::uint64_t sizes[] = {1000, 65536, 1 << 20};
  std::vector<TransferId> deps;
  for (std::size_t id = 0; id < n; ++id) {
    const Rank src = Rank(rng() % ranks);
    const double kind = u(rng);
    const Rank dst = kind < 0.7 ? (src + 1) % ranks : kind < 0.93 ? Rank(rng() % ranks) : src;
    const std::uint64_t bytes = lock_step ? sizes[rng() % 3] : 1 + rng() % (2 << 20);
    const ChunkId chunk = s.add_chunk({0, bytes});
    deps.clear();
    for (std::uint32_t d = rng() % 4; d > 0 && id > 0; --d) {
      const TransferId dep = TransferId(rng() % id);
      if (std::find(deps.begin(), deps.end(), dep) == deps.end()) deps.push_back(dep);
    }
    std::sort(deps.begin(), deps.end());
    s.append(src, chunk, dst, chunk, u(rng) < 0.5 ? Op::reduce : Op::copy, 0, deps);
  }
  return s;
}

void require_equal(const FlowResult& a, const FlowResult& b) {
  REQUIRE(a.time_s == Approx(b.time_s).epsilon(1e-12));
  REQUIRE(a.timeline.size() == b.timeline.size());
  for (std::size_t i = 0; i < a.timeline.size(); ++i) {
    INFO("transfer " << i);
    REQUIRE(a.timeline[i].ready_s == Approx(b.timeline[i].ready_s).epsilon(1e-12).margin(1e-18));
    REQUIRE(a.timeline[i].start_s == Approx(b.timeline[i].start_s).epsilon(1e-12).margin(1e-18));
    REQUIRE(a.timeline[i].arrival_s == Approx(b.timeline[i].arrival_s).epsilon(1e-12).margin(1e-18));
    REQUIRE(a.timeline[i].done_s == Approx(b.timeline[i].done_s).epsilon(1e-12).margin(1e-18));
  }
  for (std::size_t k = 0; k < a.rank_finish_s.size(); ++k)
    REQUIRE(a.rank_finish_s[k] == Approx(b.rank_finish_s[k]).epsilon(1e-12).margin(1e-18));
  for (LinkId l = 0; l < a.links.size(); ++l) {
    INFO("link " << l);
    REQUIRE(a.links[l].bytes == Approx(b.links[l].bytes).epsilon(1e-12));
    REQUIRE(a.links[l].busy_s == Approx(b.links[l].busy_s).epsilon(1e-9).margin(1e-15));
    REQUIRE(a.links[l].peak_utilization == Approx(b.links[l].peak_utilization).epsilon(1e-12));
  }
}

}  // namespace

TEST_CASE("the partial shortcut equals the event simulation of every flow on random schedules") {
  const std::vector<std::pair<std::string, Rank>> fabrics = {
      {"{kind: ring, endpoints: 8, link: l}", 8},
      {"{kind: torus, dims: [3, 4], link: f}", 12},
      {"{kind: xgft, m: [4, 4], w: [1, 2], link: l}\nplacement: {kind: random, seed: 5}", 16},
      {"{kind: fat-tree, k: 4, n: 2, link: f, taper: [1, 0.5]}", 8},
      {"{kind: dragonfly, p: 2, a: 4, h: 1, g: 5, arrangement: absolute, terminal_link: l, local_link: f, "
       "global_link: l}",
       40},
      {"{kind: star, endpoints: 6, link: l, backplane_Bps: 3.0e+9}", 6},
  };
  std::mt19937 rng(20261124);
  FlowOptions partial, events_only;
  partial.timeline = events_only.timeline = true;
  events_only.shortcut = false;
  std::size_t exclusive_runs = 0, runs = 0;
  for (const auto& [fabric, ranks] : fabrics) {
    const ClusterConfig c = cluster(fabric, ranks);
    for (int trial = 0; trial < 12; ++trial) {
      const bool lock_step = trial % 2 == 0;
      const Schedule s = random_schedule(ranks, 60 + 20 * std::size_t(trial), rng, lock_step);
      INFO(fabric << " trial " << trial << (lock_step ? " (three sizes)" : ""));
      const FlowResult full = run_flow(s, *c.topology, 1e-10, events_only);
      const FlowResult fast = run_flow(s, *c.topology, 1e-10, partial);
      require_equal(fast, full);
      // Without the critical path the log keeps ready times only: the same run, no path.
      FlowOptions lean;
      lean.critical_path = false;
      const FlowResult without_path = run_flow(s, *c.topology, 1e-10, lean);
      REQUIRE(without_path.critical_path.empty());
      REQUIRE(!fast.critical_path.empty());
      REQUIRE(without_path.time_s == fast.time_s);
      for (std::size_t k = 0; k < fast.rank_finish_s.size(); ++k) REQUIRE(without_path.rank_finish_s[k] == fast.rank_finish_s[k]);
      ++runs;
      exclusive_runs += fast.exclusive_transfers > 0;  // some flows were timed without max-min
    }
  }
  // The shortcut must really be taken in a good share of the runs (every fabric but the star
  // has exclusive pairs; a run where a reduction would overtake one timed ahead falls back).
  REQUIRE(exclusive_runs * 4 >= runs);
}

TEST_CASE("the partial shortcut equals the event simulation on the algorithms' own schedules") {
  // Ring, pipelined ring, two-tree and recursive doubling on a dragonfly whose ring shares a
  // link, and on a fat-tree with ranks at random.
  for (const auto& [fabric, ranks] : std::vector<std::pair<std::string, Rank>>{
           {"{kind: dragonfly, p: 2, a: 4, h: 1, g: 5, arrangement: absolute, terminal_link: l, local_link: l, "
            "global_link: l}",
            40},
           {"{kind: xgft, m: [4, 4], w: [1, 2], link: f}\nplacement: {kind: random, seed: 3}", 16}}) {
    const ClusterConfig c = cluster(fabric, ranks);
    for (const std::string& algo : {"ring", "two-tree", "recursive-doubling", "hierarchical-ring"}) {
      for (std::uint32_t segments : {1u, 4u}) {
        INFO(fabric << " " << algo << " segments " << segments);
        ScheduleRequest r;
        r.ranks = ranks;
        r.bytes = (3 << 20) + 5;
        r.segments = algo == "recursive-doubling" ? 0 : segments;
        r.ranks_per_node = 4;
        const Schedule s = generate_schedule(algo, r);
        FlowOptions partial, events_only;
        partial.timeline = events_only.timeline = true;
        events_only.shortcut = false;
        require_equal(run_flow(s, *c.topology, 1e-10, partial), run_flow(s, *c.topology, 1e-10, events_only));
      }
    }
  }
}
