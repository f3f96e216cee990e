// tests/sim/test_mesh_rings.cpp — the ring on a switchless NVLink mesh rides the rings a search
// over its links found (topologies/ring_search.hpp), one per channel, as NCCL's rings do:
//  * on the 4-GPU A100 board a ring allreduce can go no faster than a GPU sends: each rank
//    sends 2(P-1)/P N bytes over its 12 NVLinks at most, so busbw <= 12 x 25 GB/s x efficiency,
//    the bound the links give; without start-ups, latencies and reductions the rings reach it;
//  * with NCCL's runtime, --algo nccl at 1 GiB reaches >= 200 GB/s busbw (a ring in rank order
//    crosses one pair's 4 links per hop: at most 4 x 25 x efficiency = 86.5 GB/s);
//  * the schedules the prediction runs are proved by the checker, and equal the held ring of
//    every channel's order.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "collectives/algorithm.hpp"
#include "collectives/checker.hpp"
#include "sim/prediction.hpp"
#include "topologies/cluster_config.hpp"
#include "topologies/ring_search.hpp"

using namespace collsim;

namespace {

constexpr std::uint64_t kBytes = std::uint64_t(1) << 30;

// The 4-GPU board with its links alone: no alpha, latency, runtime or reduction cost.
ClusterConfig links_only_board() {
  return parse_cluster_config(
      "name: a100-4gpu-links\n"
      "link_classes:\n"
      "  nvlink3: {technology: nvlink3, links: 1, alpha_s: 0.0, latency_s: 0.0}\n"
      "  pcie4: {technology: pcie4, alpha_s: 0.0, latency_s: 0.0}\n"
      "nodes: {count: 1, gpus_per_node: 4, switch: pcie, gpu_link: pcie4, peer_link: nvlink3,\n"
      "        peer_links: [[0, 1, 4], [0, 2, 4], [0, 3, 4], [1, 2, 4], [1, 3, 4], [2, 3, 4]]}\n"
      "gamma_s_per_byte: 0.0\n",
      "a100-4gpu-links.yaml");
}

// What a rank can send at most: the sum of its direct links' large-message rates.
double send_bound_Bps(const ClusterConfig& c, Rank rank) {
  const Topology& t = *c.topology;
  double sum = 0;
  std::vector<LinkId> route;
  for (Rank peer = 0; peer < t.ranks(); ++peer) {
    if (peer == rank || direct_links(t).at(rank, peer) == 0) continue;
    route.clear();
    t.route(rank, peer, 0, route);
    const Link& link = t.network.link(route.at(0));
    sum += link.bandwidth_Bps * t.network.link_class(link.link_class).efficiency;
  }
  return sum;
}

PredictionRecord predict_one(const ClusterConfig& c, const std::string& algorithm, std::uint32_t channels = 0) {
  PredictionRequest r = cluster_request(c);
  r.algorithms = {algorithm};
  r.sizes = {kBytes};
  r.channels = channels;
  const std::vector<PredictionRecord> records = predict(r);
  REQUIRE(records.size() == 1);
  return records[0];
}

}  // namespace

TEST_CASE("Without start-ups, a mesh's rings reach the bound its links give: busbw = a GPU's 12 NVLinks") {
  const ClusterConfig c = links_only_board();
  const double bound_GBps = send_bound_Bps(c, 0) / 1e9;
  CHECK(bound_GBps == Approx(12 * 25 * 0.865));
  const PredictionRecord ring = predict_one(c, "ring");
  CHECK(ring.channels == 12);
  INFO("ring busbw " << ring.busbw_GBps << " GB/s, bound " << bound_GBps);
  CHECK(ring.busbw_GBps <= bound_GBps * (1 + 1e-9));
  CHECK(ring.busbw_GBps >= 0.98 * bound_GBps);
  // Rank order alone: each hop crosses one pair's 4 links, a third of the GPU's.
  const PredictionRecord one = predict_one(c, "ring", 1);
  CHECK(one.busbw_GBps <= bound_GBps / 3 * (1 + 1e-9));
}

TEST_CASE("On the 4-GPU A100 board, --algo nccl at 1 GiB reaches 200 GB/s busbw over every NVLink") {
  const ClusterConfig c = load_preset("hgx-a100-4gpu");
  const PredictionRecord nccl = predict_one(c, "nccl");
  INFO("nccl chose " << nccl.runs << " in " << nccl.channels << " channels: " << nccl.busbw_GBps << " GB/s");
  CHECK(nccl.runs == "ring");
  CHECK(nccl.channels == 12);
  CHECK(nccl.busbw_GBps >= 200);
  CHECK(nccl.busbw_GBps <= send_bound_Bps(c, 0) / 1e9);
}

TEST_CASE("The mesh's ring schedules are proved by the checker and carry each channel's ring") {
  for (const char* preset : {"hgx-a100-4gpu", "dgx1-v100", "dgx1-v100-16"}) {  // the last on 16 nodes
    const ClusterConfig c = load_preset(preset);
    const std::vector<std::vector<Rank>>& rings = c.topology->mesh_rings;
    ScheduleRequest request;
    request.ranks = c.ranks;
    request.bytes = 4096 * 3 + 20;  // not a multiple of the channels or ranks
    request.ranks_per_node = c.cost.ranks_per_node;
    request.channels = std::uint32_t(rings.size());
    request.channel_orders = rings;
    const Schedule s = generate_schedule("ring", request);
    INFO(preset);
    CHECK(s.info().channel_orders == rings);
    CHECK_NOTHROW(check_schedule(s));
    // Channel c's transfers go round ring c: every transfer's pair is a hop of some ring.
    std::vector<std::vector<bool>> hop(c.ranks, std::vector<bool>(c.ranks, false));
    for (const std::vector<Rank>& ring : rings)
      for (std::size_t i = 0; i < ring.size(); ++i) hop[ring[i]][ring[(i + 1) % ring.size()]] = true;
    for (TransferId id = 0; id < s.size(); ++id) {
      const Transfer t = s.transfer(id);
      if (!t.is_local()) CHECK(hop[t.src][t.dst]);
    }
  }
}

TEST_CASE("Channel orders that are not permutations of the ranks are refused") {
  ScheduleRequest request;
  request.ranks = 4;
  request.bytes = 64;
  request.channels = 2;
  request.channel_orders = {{0, 1, 2, 3}, {0, 1, 1, 3}};
  CHECK_THROWS_WITH(generate_schedule("ring", request), Catch::Contains("rank 1 appears twice"));
  request.channel_orders = {{0, 1, 2, 3}};
  CHECK_THROWS_WITH(generate_schedule("ring", request), Catch::Contains("1 channel orders for 2 channels"));
  request.channel_orders = {{0, 1, 2, 3}, {0, 1, 2, 3}};
  CHECK_THROWS_WITH(generate_schedule("rabenseifner", request), Catch::Contains("does not run in channels"));
}
