// tests/sim/test_simgrid_engine.cpp — the SimGrid engine cross-checks the flow engine: the
// same schedule on the same topology finishes at the same time, and every rank at the same
// time, to 1e-6 relative, for every allreduce algorithm on rings, stars with a capped
// backplane, 2:1 tapered fat-trees, dragonflies with several routers per group, tori and
// multi-GPU nodes (with and without GPU-GPU peer links, and channels over rail-optimized NICs), at 1 byte, a size P does not divide, 1 MiB and 48 MiB, from 2 to 128 ranks;
// and for the other collectives. The one difference by design: two reductions that become due
// on one rank at the same instant only up to rounding may run in either order. Plus the
// errors: routing with more than one route per pair, schedules that cannot finish.
// (Built only with SimGrid: tests/CMakeLists.txt.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "sim/flow_engine.hpp"
#include "sim/prediction.hpp"
#include "sim/simgrid_engine.hpp"
#include "tests/sim/cyclic_schedule.hpp"
#include "tests/support/one_message.hpp"
#include "topologies/cluster_config.hpp"

using namespace collsim;

namespace {

// Not commensurate with the link rates: no reduction ends exactly when a later message arrives
// on its rank, a tie the two engines may break differently (see the last test case).
constexpr double kGamma = 1.234567e-10;

// Two link classes with different alpha, latency and bandwidth, so routes differ in delay and
// bottleneck: a route's delay is the actor's wait in SimGrid, the flow's latency phase here.
ClusterConfig cluster(const std::string& body, Rank ranks) {
  return parse_cluster_config(
      fmt::format("name: t\nlink_classes:\n"
                  "  a: {{bandwidth_Bps: 2.0e+9, latency_s: 3.0e-7, alpha_s: 1.0e-6}}\n"
                  "  b: {{bandwidth_Bps: 5.0e+9, latency_s: 1.0e-7, alpha_s: 2.0e-6}}\n"
                  "  nv: {{bandwidth_Bps: 100.0e+9, latency_s: 0.0, alpha_s: 5.0e-7}}\n"
                  "  pcie: {{bandwidth_Bps: 20.0e+9, latency_s: 2.0e-7, alpha_s: 0.0}}\n"
                  "{}ranks: {}\ngamma_s_per_byte: {}\n",
                  body, ranks, kGamma),
      "t.yaml");
}

struct Fabric {
  std::string name;
  std::string yaml;  // the topology (and nodes) part of a cluster config
  Rank endpoints;
};

const std::vector<Fabric>& small_fabrics() {
  static const std::vector<Fabric> fabrics = {
      {"ring", "topology: {kind: ring, endpoints: 16, link: a}\n", 16},
      {"star, backplane 3 GB/s", "topology: {kind: star, endpoints: 16, link: a, backplane_Bps: 3.0e+9}\n", 16},
      {"2:1 fat-tree", "topology: {kind: xgft, m: [4, 4], w: [1, 2], link: a}\n", 16},
      {"dragonfly, 4 routers per group",
       "topology: {kind: dragonfly, p: 2, a: 4, h: 1, g: 3, arrangement: absolute, terminal_link: a, local_link: a, "
       "global_link: b}\n",
       24},
      {"torus 4x4", "topology: {kind: torus, dims: [4, 4], link: b}\n", 16},
      {"4 nodes of 4 GPUs",
       "nodes: {count: 4, gpus_per_node: 4, switch: nvswitch, gpu_link: nv, nics_per_node: 1, nic_link: pcie}\n"
       "topology: {kind: star, link: a}\n",
       16},
      {"2 nodes of 8 GPUs in DGX-1's NVLink cube-mesh",
       "nodes: {count: 2, gpus_per_node: 8, switch: pcie, gpu_link: pcie, nics_per_node: 4, nic_link: pcie, "
       "peer_link: b, peer_links: [[0, 1, 1], [0, 2, 1], [0, 3, 2], [0, 4, 2], [1, 2, 2], [1, 3, 1], [1, 5, 2], "
       "[2, 3, 2], [2, 6, 1], [3, 7, 1], [4, 5, 1], [4, 6, 1], [4, 7, 2], [5, 6, 2], [5, 7, 1], [6, 7, 2]]}\n"
       "topology: {kind: star, link: a}\n",
       16},
  };
  return fabrics;
}

const std::vector<std::uint64_t> kSizes = {1, 1000003, 1 << 20, 48 << 20};

Schedule schedule_for(const std::string& algorithm, Collective collective, Rank ranks, std::uint64_t bytes,
                      const ClusterConfig& c) {
  ScheduleRequest r;
  r.collective = collective;
  r.ranks = ranks;
  r.bytes = bytes;
  r.ranks_per_node = c.cost.ranks_per_node;
  return generate_schedule(algorithm, r);
}

bool runs_on(const AlgorithmEntry& algorithm, Rank ranks, const ClusterConfig& c) {
  if (algorithm.in_network != InNetwork::none) return false;  // no switch reduces here: test_in_network_cost.cpp
  if (!algorithm.needs_ranks_per_node) return true;  // hierarchical-ring, rail-alltoall
  const Rank g = c.cost.ranks_per_node;
  return g > 0 && ranks % g == 0 && ranks > g;
}

// The SimGrid run against the flow engine's, with and without its no-sharing shortcut;
// `issue_s`: the host's time to issue each transfer (sim/host_issue.hpp).
void require_engines_agree(const Schedule& s, const ClusterConfig& c, double gamma = kGamma, double issue_s = 0) {
  const SimgridResult sg = run_simgrid(s, *c.topology, gamma, {.issue_s = issue_s});
  FlowOptions events_only;
  events_only.issue_s = issue_s;
  events_only.shortcut = false;
  for (const FlowOptions& options : {FlowOptions{.issue_s = issue_s}, events_only}) {
    const FlowResult flow = run_flow(s, *c.topology, gamma, options);
    INFO("shortcut " << options.shortcut << ", " << s.size() << " transfers");
    REQUIRE(sg.time_s == Approx(flow.time_s).epsilon(1e-6));
    REQUIRE(sg.rank_finish_s.size() == flow.rank_finish_s.size());
    for (Rank r = 0; r < flow.rank_finish_s.size(); ++r) {
      INFO("rank " << r);
      REQUIRE(sg.rank_finish_s[r] == Approx(flow.rank_finish_s[r]).epsilon(1e-6));
    }
  }
  REQUIRE(sg.transfers == s.size());
}

void cross_check(const Fabric& fabric, Collective collective, const std::vector<Rank>& rank_counts,
                 const std::vector<std::uint64_t>& sizes, const std::vector<std::string_view>& only = {}) {
  for (Rank p : rank_counts) {
    if (p > fabric.endpoints) continue;
    const ClusterConfig c = cluster(fabric.yaml, p);
    for (const AlgorithmEntry& algorithm : algorithm_table()) {
      if (!algorithm.supports(collective) || !runs_on(algorithm, p, c)) continue;
      if (!only.empty() && std::find(only.begin(), only.end(), algorithm.name) == only.end()) continue;
      for (std::uint64_t bytes : sizes) {
        INFO(fabric.name << ": " << algorithm.name << " " << to_string(collective) << ", P=" << p << ", " << bytes
                         << " bytes");
        require_engines_agree(schedule_for(std::string(algorithm.name), collective, p, bytes, c), c);
      }
    }
  }
}

const Fabric& fabric(const std::string& name) {
  for (const Fabric& f : small_fabrics())
    if (f.name == name) return f;
  throw Error("no fabric " + name);
}

}  // namespace

TEST_CASE("SimGrid equals the flow engine for every allreduce algorithm on a ring") {
  cross_check(fabric("ring"), Collective::allreduce, {2, 5, 16}, kSizes);
}

TEST_CASE("SimGrid equals the flow engine for every allreduce algorithm on a star with a capped backplane") {
  cross_check(fabric("star, backplane 3 GB/s"), Collective::allreduce, {2, 5, 16}, kSizes);
}

TEST_CASE("SimGrid equals the flow engine for every allreduce algorithm on a 2:1 tapered fat-tree") {
  cross_check(fabric("2:1 fat-tree"), Collective::allreduce, {2, 5, 16}, kSizes);
}

TEST_CASE("SimGrid equals the flow engine for every allreduce algorithm on a dragonfly") {
  cross_check(fabric("dragonfly, 4 routers per group"), Collective::allreduce, {2, 5, 24}, kSizes);
}

TEST_CASE("SimGrid equals the flow engine for every allreduce algorithm on a torus") {
  cross_check(fabric("torus 4x4"), Collective::allreduce, {2, 5, 16}, kSizes);
}

TEST_CASE("SimGrid equals the flow engine for every allreduce algorithm on multi-GPU nodes") {
  REQUIRE(cluster(fabric("4 nodes of 4 GPUs").yaml, 16).cost.ranks_per_node == 4);  // hierarchical-ring runs at P=16
  cross_check(fabric("4 nodes of 4 GPUs"), Collective::allreduce, {2, 5, 16}, kSizes);
}

TEST_CASE("SimGrid equals the flow engine for every allreduce algorithm on nodes with GPU-GPU peer links") {
  cross_check(fabric("2 nodes of 8 GPUs in DGX-1's NVLink cube-mesh"), Collective::allreduce, {2, 5, 8, 16}, kSizes);
}

TEST_CASE("SimGrid equals the flow engine for ring, tree and two-tree in channels on rail-optimized nodes of 4 NICs") {
  // NIC j of every node on leaf j; 4 spines: cross-rail routes go up and down the fat-tree.
  const std::string yaml =
      "nodes: {count: 4, gpus_per_node: 4, switch: nvswitch, gpu_link: nv, nics_per_node: 4, nic_link: pcie, "
      "rail_optimized: true}\ntopology: {kind: xgft, m: [4, 4], w: [1, 4], link: a}\n";
  for (Rank p : {8u, 16u}) {
    const ClusterConfig c = cluster(yaml, p);
    for (const char* algorithm : {"ring", "tree", "two-tree", "nccl-tree"})
      for (std::uint32_t channels : {2u, 4u})
        for (std::uint64_t bytes : {1000003ull, 48ull << 20}) {
          INFO(algorithm << " P=" << p << " C=" << channels << ", " << bytes << " bytes");
          ScheduleRequest r;
          r.ranks = p;
          r.bytes = bytes;
          r.channels = channels;
          r.ranks_per_node = c.cost.ranks_per_node;
          require_engines_agree(generate_schedule(algorithm, r), c);
        }
  }
}

TEST_CASE("SimGrid equals the flow engine at 128 ranks on a tapered fat-tree and a dragonfly") {
  const std::vector<Fabric> large = {
      {"2:1 fat-tree, 128 hosts", "topology: {kind: xgft, m: [8, 16], w: [1, 4], link: a}\n", 128},
      {"dragonfly, 128 endpoints",
       "topology: {kind: dragonfly, p: 4, a: 4, h: 2, g: 8, arrangement: absolute, terminal_link: a, local_link: a, "
       "global_link: b}\n",
       128},
  };
  for (const Fabric& f : large)
    cross_check(f, Collective::allreduce, {128}, {1000003, 48 << 20}, {"ring", "two-tree", "rabenseifner", "naive"});
}

TEST_CASE("SimGrid equals the flow engine for reduce-scatter, allgather, broadcast, reduce and alltoall") {
  for (Collective collective : {Collective::reduce_scatter, Collective::allgather, Collective::broadcast,
                                Collective::reduce, Collective::alltoall})
    for (const char* name : {"2:1 fat-tree", "dragonfly, 4 routers per group"})
      cross_check(fabric(name), collective, {5, 16}, {1000003, 1 << 20});
}

TEST_CASE("SimGrid equals the flow engine for rail-alltoall on nodes, rail-optimized or not, with or without PXN") {
  cross_check(fabric("4 nodes of 4 GPUs"), Collective::alltoall, {8, 16}, {1000003, 1 << 20}, {"rail-alltoall"});
  for (const char* pxn : {"true", "false"}) {
    const Fabric rails{fmt::format("rail-optimized, pxn {}", pxn),
                       fmt::format("nodes: {{count: 4, gpus_per_node: 4, switch: nvswitch, gpu_link: nv, nics_per_node: 4, "
                                   "nic_link: pcie, rail_optimized: true, pxn: {}}}\n"
                                   "topology: {{kind: xgft, m: [4, 4], w: [1, 2], link: a}}\n",
                                   pxn),
                       16};
    cross_check(rails, Collective::alltoall, {16}, {1000003, 1 << 20}, {"rail-alltoall", "pairwise"});
  }
}

TEST_CASE("SimGrid equals the flow engine when reductions cost nothing") {
  // gamma 0: no Exec at all, a reduction is done when it arrives.
  const ClusterConfig c = cluster(fabric("2:1 fat-tree").yaml, 16);
  for (const AlgorithmEntry& algorithm : algorithm_table()) {
    if (!algorithm.supports(Collective::allreduce) || !runs_on(algorithm, 16, c)) continue;
    INFO(algorithm.name);
    require_engines_agree(schedule_for(std::string(algorithm.name), Collective::allreduce, 16, 1000003, c), c, 0.0);
  }
}

// Issue costs around a transfer's own (at 1000003 bytes on 16 ranks: chunks of 62.5 KB, about
// 30 us at 2 GB/s; a tree's whole buffer, 500 us), so transfers wait for the host, for their
// dependencies, or for the one ahead on their pair.
TEST_CASE("SimGrid equals the flow engine with the host's issue of every transfer") {
  for (const char* name : {"2:1 fat-tree", "4 nodes of 4 GPUs"}) {
    const ClusterConfig c = cluster(fabric(name).yaml, 16);
    for (const AlgorithmEntry& algorithm : algorithm_table()) {
      if (!algorithm.supports(Collective::allreduce) || !runs_on(algorithm, 16, c)) continue;
      for (double issue_s : {3e-6, 3e-5}) {
        INFO(name << ": " << algorithm.name << ", issue " << issue_s << " s");
        require_engines_agree(schedule_for(std::string(algorithm.name), Collective::allreduce, 16, 1000003, c), c,
                              kGamma, issue_s);
      }
    }
  }
}

// By hand (tests/sim/test_host_issue.cpp, for analytic and flow): on 2 ranks 0 -> 1 and 1 -> 0,
// then 0 -> 1 again after the first; 5 us a transfer: the last one is issued at 15 us, after its
// dependency is done, and ends a message later. A local reduction waits for its issue too.
TEST_CASE("SimGrid starts a transfer no earlier than the host has issued it") {
  const ClusterConfig c = cluster("topology: {kind: star, endpoints: 2, link: a}\n", 2);
  const std::uint64_t bytes = 10000;
  Schedule s = test::two_opposite_transfers_and_a_follower(bytes);
  const double message_s = 1e-6 + 2 * 3e-7 + double(bytes) / 2e9;  // class a: alpha, two hops, 2 GB/s
  CHECK(run_simgrid(s, *c.topology, kGamma, {.issue_s = 5e-6}).time_s == Approx(3 * 5e-6 + message_s).epsilon(1e-9));
  CHECK(run_simgrid(s, *c.topology, kGamma, {.issue_s = 1e-7}).time_s == Approx(1e-7 + 2 * message_s).epsilon(1e-9));
  // 8 us a transfer: 1 -> 0 arrives at 16 us + a message; rank 0 reduces it at 32 us, last.
  const TransferId after_second[] = {1};
  s.append(0, ChunkId(0), 0, ChunkId(0), Op::reduce, 1, after_second);  // the one chunk: the whole buffer
  CHECK(run_simgrid(s, *c.topology, kGamma, {.issue_s = 8e-6}).time_s ==
        Approx(4 * 8e-6 + double(bytes) * kGamma).epsilon(1e-9));
  require_engines_agree(s, c, kGamma, 8e-6);
}

TEST_CASE("predict with engine simgrid gives the flow engine's times and the analytic comparison") {
  const ClusterConfig c = cluster(fabric("2:1 fat-tree").yaml, 16);
  PredictionRequest r;
  r.algorithms = {"ring", "two-tree"};
  r.sizes = {1 << 20};
  r.ranks = c.ranks;
  r.cost = c.cost;
  r.topology = c.topology;
  r.engine = EngineKind::flow;
  const std::vector<PredictionRecord> flow = predict(r);
  r.engine = EngineKind::simgrid;
  const std::vector<PredictionRecord> sg = predict(r);
  REQUIRE(sg.size() == flow.size());
  for (std::size_t i = 0; i < sg.size(); ++i) {
    REQUIRE(sg[i].engine == EngineKind::simgrid);
    REQUIRE(sg[i].time_s == Approx(flow[i].time_s).epsilon(1e-6));
    REQUIRE(sg[i].analytic_s.has_value());
    REQUIRE(*sg[i].analytic_s == Approx(*flow[i].analytic_s).epsilon(1e-12));
  }
  const auto engines = available_engines();
  REQUIRE(std::find(engines.begin(), engines.end(), "simgrid") != engines.end());
}

TEST_CASE("a SimGrid run reports its transfers, wall time and the memory of its process") {
  const ClusterConfig c = cluster(fabric("ring").yaml, 16);
  const Schedule s = schedule_for("ring", Collective::allreduce, 16, 1 << 20, c);
  const SimgridResult sg = run_simgrid(s, *c.topology, kGamma);
  REQUIRE(sg.transfers == s.size());
  REQUIRE(sg.wall_s > 0);
  REQUIRE(sg.peak_rss_mib > 1);  // a whole process: libraries, the inherited schedule, SimGrid's state
  REQUIRE(sg.rank_finish_s.size() == 16);
}

TEST_CASE("SimGrid cannot run routing that gives a transfer its own route") {
  for (const char* routing : {"ecmp", "valiant"}) {
    const ClusterConfig c = cluster(
        fmt::format("topology: {{kind: dragonfly, p: 2, a: 4, h: 1, g: 3, arrangement: absolute, terminal_link: a, "
                    "local_link: a, global_link: b}}\nrouting: {}\n",
                    routing),
        8);
    const Schedule s = schedule_for("ring", Collective::allreduce, 8, 1 << 20, c);
    REQUIRE_THROWS_WITH(run_simgrid(s, *c.topology, kGamma),
                        fmt::format("engine 'simgrid' needs one route per rank pair (routing minimal or "
                                    "shortest-path), not {}",
                                    routing));
  }
}

TEST_CASE("a schedule whose dependencies never complete is a SimGrid error, not a hang") {
  const ClusterConfig c = cluster("topology: {kind: star, endpoints: 3, link: a}\n", 3);
  const Schedule s = test::cyclic_schedule();
  REQUIRE_THROWS_WITH(run_simgrid(s, *c.topology, kGamma),
                      "simgrid: schedule cannot finish: 2 of 3 transfers never completed");
}

TEST_CASE("two reductions due on one rank at exactly the same instant may run in either order") {
  // Tree allreduce on 4 GPUs per node, P = 5, 48 MiB in 1 MiB segments, gamma 1e-10: two
  // segments share a 100 GB/s NVLink, so one arrives every 1 MiB / 50 GB/s = 21 us, and a
  // reduction takes 1 MiB x 1e-10 = 105 us, exactly 5 arrivals. On rank 2 the reduction of
  // one segment's staged data becomes due when the previous reduction ends, at the very
  // instant a later segment arrives and makes its own reduction due. Both engines take the
  // two in some order, but the instant is the same only up to rounding: the flow engine
  // orders its events by their exact floating-point times, and SimGrid merges events closer
  // than its timing precision and then orders them by id. Neither order is wrong; each is
  // the limit of the run with gamma a hair below or above the tie. So at the tie each
  // engine's time is one of those two limits, and away from it the engines agree.
  const ClusterConfig c = cluster(fabric("4 nodes of 4 GPUs").yaml, 5);
  const Schedule s = schedule_for("tree", Collective::allreduce, 5, 48 << 20, c);
  const double tie = 1e-10, below = tie * (1 - 1e-6), above = tie * (1 + 1e-6);
  const double flow_below = run_flow(s, *c.topology, below).time_s, flow_above = run_flow(s, *c.topology, above).time_s;
  // The order matters: one whole reduction (1 MiB x gamma) more on the critical path.
  REQUIRE(flow_above - flow_below == Approx((1 << 20) * tie).epsilon(1e-3));
  auto is_a_limit = [&](double t) {
    return t == Approx(flow_below).epsilon(1e-6) || t == Approx(flow_above).epsilon(1e-6);
  };
  REQUIRE(is_a_limit(run_flow(s, *c.topology, tie).time_s));
  REQUIRE(is_a_limit(run_simgrid(s, *c.topology, tie).time_s));
  // Away from the tie the engines agree, as everywhere else.
  REQUIRE(run_simgrid(s, *c.topology, below).time_s == Approx(flow_below).epsilon(1e-6));
  REQUIRE(run_simgrid(s, *c.topology, above).time_s == Approx(flow_above).epsilon(1e-6));
}

TEST_CASE("SimGrid equals the flow engine with the ranks' memory modelled, where it binds") {
  // 6 GB/s of memory: below a rank's transfers and reductions together on every fabric here
  // (a ring step reads, writes and reduces 5 bytes per byte sent), and below the reduction
  // unit's 3/gamma = 24 GB/s, so reductions share it with transfers max-min. The reduction is
  // a SimGrid message from the rank to itself across its memory link, capped at 3/gamma.
  const std::string memory = "memory_bandwidth_Bps: 6.0e+9\n";
  for (const char* name : {"ring", "2:1 fat-tree", "4 nodes of 4 GPUs"}) {
    const Fabric& f = fabric(name);
    cross_check({f.name + ", memory 6 GB/s", f.yaml + memory, f.endpoints}, Collective::allreduce, {2, 5, 16},
                {1000003, 1 << 20});
  }
  const Fabric& nodes = fabric("4 nodes of 4 GPUs");
  for (Collective c : {Collective::reduce_scatter, Collective::reduce, Collective::allgather})
    cross_check({nodes.name + ", memory 6 GB/s", nodes.yaml + memory, nodes.endpoints}, c, {5, 16}, {1000003});
}

TEST_CASE("SimGrid equals the flow engine with the ranks' cores modelled, where they bind") {
  // Cores of 6 GB/s: below what a rank receives and reduces together on every fabric here. A
  // reduction is a SimGrid message from the rank to itself across its core of b x gamma x
  // 6 GB/s bytes; reductions in cache (below 1 MiB) at half gamma, so that the segments of a
  // pipelined transfer (which reduce at their whole transfer's factor) are told apart.
  const std::string core =
      "core_copy_Bps: 6.0e+9\nreduction_factors:\n  - {from_bytes: 0, gamma: 0.5}\n  - {from_bytes: 1M, gamma: 1}\n";
  for (const char* name : {"ring", "2:1 fat-tree", "4 nodes of 4 GPUs"}) {
    const Fabric& f = fabric(name);
    cross_check({f.name + ", cores 6 GB/s", f.yaml + core, f.endpoints}, Collective::allreduce, {2, 5, 16},
                {1000003, 4 << 20});
  }
}

TEST_CASE("SimGrid equals the flow engine with memory and gamma 0: reductions still move their bytes") {
  const Fabric& f = fabric("4 nodes of 4 GPUs");
  const ClusterConfig c = cluster(f.yaml + "memory_bandwidth_Bps: 6.0e+9\n", 16);
  for (const char* algorithm : {"ring", "two-tree", "rabenseifner", "naive"}) {
    INFO(algorithm);
    const Schedule s = schedule_for(algorithm, Collective::allreduce, 16, 1 << 20, c);
    require_engines_agree(s, c, 0.0);
    CHECK(run_flow(s, *c.topology, 0.0).time_s > run_flow(s, *cluster(f.yaml, 16).topology, 0.0).time_s);
  }
}
