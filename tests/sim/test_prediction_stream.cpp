// tests/sim/test_prediction_stream.cpp — predict runs a ring as a stream (holding_for): only
// where the held schedule would not fit, or when asked, with the held run's times; and the
// size guard still refuses what neither holds nor streams, saying what would run.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "collectives/error.hpp"
#include "sim/prediction.hpp"
#include "topologies/cluster_config.hpp"
#include "tests/support/test_cluster.hpp"

using namespace collsim;

namespace {

ClusterConfig cluster(const std::string& fabric, Rank ranks) {
  return test::test_cluster("  l: {bandwidth_Bps: 1.0e+10, latency_s: 1.0e-7, alpha_s: 1.0e-6}\n", fabric, ranks);
}

PredictionRequest request(const ClusterConfig& c, const std::string& algorithm, std::vector<std::uint64_t> sizes) {
  PredictionRequest r;
  r.algorithms = {algorithm};
  r.sizes = std::move(sizes);
  r.ranks = c.ranks;
  r.cost = c.cost;
  r.topology = c.topology;
  r.engine = "flow";
  return r;
}

// The decision alone needs no topology: 16,384 ranks, as in `predict --preset dgx-h100-2048`.
PredictionRequest big(const std::string& algorithm, const std::string& engine) {
  PredictionRequest r;
  r.algorithms = {algorithm};
  r.ranks = 16384;
  r.cost.ranks_per_node = 8;
  r.engine = engine;
  return r;
}

}  // namespace

TEST_CASE("a streamed ring predicts the held ring's time, with and without shared links") {
  for (const auto& [fabric, ranks] : std::vector<std::pair<std::string, Rank>>{
           {"{kind: xgft, m: [4, 4], w: [1, 4], link: l}", 16},                          // no link shared: the shortcut
           {"{kind: star, endpoints: 12, link: l, backplane_Bps: 3.0e+9}", 12},             // every flow shares the backplane
           {"{kind: xgft, m: [4, 4], w: [1, 1], link: l}\nplacement: {kind: random, seed: 3}", 16}}) {  // some share
    const ClusterConfig c = cluster(fabric, ranks);
    for (Collective collective : {Collective::allreduce, Collective::reduce_scatter, Collective::allgather}) {
      INFO(fabric << " " << to_string(collective));
      PredictionRequest held = request(c, "ring", {(1 << 20) + 7, std::uint64_t(64) << 20});
      held.collective = collective;
      PredictionRequest streamed = held;
      streamed.streaming = Streaming::always;
      std::vector<std::string> progress;
      streamed.on_stream_progress = [&](const std::string& line) { progress.push_back(line); };
      REQUIRE(holding_for(held, "ring", 1 << 20) == Holding::held);
      REQUIRE(holding_for(streamed, "ring", 1 << 20) == Holding::streamed);
      const std::vector<PredictionRecord> h = predict(held), s = predict(streamed);
      REQUIRE(h.size() == 2);
      REQUIRE(s.size() == 2);
      for (std::size_t i = 0; i < h.size(); ++i) {
        REQUIRE(!h[i].streamed);
        REQUIRE(s[i].streamed);
        REQUIRE(s[i].time_s == Approx(h[i].time_s).epsilon(1e-12));
        REQUIRE(s[i].transfers == h[i].transfers);
        REQUIRE(s[i].segments == h[i].segments);
        REQUIRE(s[i].busbw_GBps == Approx(h[i].busbw_GBps).epsilon(1e-12));
        REQUIRE(h[i].analytic_s);
        REQUIRE(!s[i].analytic_s);  // the analytic engine needs the schedule held
        REQUIRE(to_json(s[i])["streamed"] == true);
        REQUIRE(to_json(h[i])["streamed"] == false);
      }
      REQUIRE(!progress.empty());  // the stream's run was heard
    }
  }
}

TEST_CASE("a 16,384-rank ring on the flow engine is streamed, not refused; held rings and other algorithms are not") {
  const std::uint64_t gib = std::uint64_t(1) << 30;
  REQUIRE(holding_for(big("ring", "flow"), "ring", gib) == Holding::streamed);
  REQUIRE(holding_for(big("ring", "flow"), "ring", 1 << 20) == Holding::streamed);
  REQUIRE(holding_for(big("two-tree", "flow"), "two-tree", gib) == Holding::held);
  PredictionRequest small = big("ring", "flow");
  small.ranks = 1024;  // 2.1 M transfers: held, as before
  REQUIRE(holding_for(small, "ring", gib) == Holding::held);
}

TEST_CASE("the size guard refuses what neither holds nor streams, and says what would run") {
  const std::uint64_t gib = std::uint64_t(1) << 30;
  // The analytic engine walks a held schedule; the flow engine needs a topology.
  REQUIRE_THROWS_WITH(holding_for(big("ring", "analytic"), "ring", gib),
                      Catch::Contains("too large to build") &&
                          Catch::Contains("the flow engine streams it, on a cluster with a topology"));
  PredictionRequest on_topology = big("ring", "analytic");
  on_topology.topology = cluster("{kind: star, endpoints: 4, link: l}", 4).topology;  // only its presence is read
  REQUIRE_THROWS_WITH(holding_for(on_topology, "ring", gib), Catch::Contains("the flow engine (--engine flow) streams it"));
  // --detail and --trace (on_flow_run) need the schedule held.
  PredictionRequest detail = big("ring", "flow");
  detail.on_flow_run = [](const PredictionRecord&, const Schedule&, const FlowResult&) {};
  REQUIRE_THROWS_WITH(holding_for(detail, "ring", gib),
                      Catch::Contains("too large to build") && Catch::Contains("--detail and --trace need the schedule held"));
  // An algorithm with no stream (Rabenseifner: 5.4e8 element visits at 16,384 ranks): the
  // ring would run, as a stream.
  PredictionRequest halving = big("rabenseifner", "flow");
  REQUIRE_THROWS_WITH(holding_for(halving, "rabenseifner", gib),
                      Catch::Contains("too large to build") && Catch::Contains("ring runs as a stream on the flow engine") &&
                          !Catch::Contains("--engine flow"));
  halving.engine = "analytic";
  REQUIRE_THROWS_WITH(holding_for(halving, "rabenseifner", gib),
                      Catch::Contains("ring runs as a stream on the flow engine, on a cluster with a topology"));
  halving.topology = on_topology.topology;
  REQUIRE_THROWS_WITH(holding_for(halving, "rabenseifner", gib),
                      Catch::Contains("ring runs as a stream on the flow engine (--engine flow)"));
  // Too small to stream (less than a byte per slice): the stream says so.
  REQUIRE_THROWS_WITH(holding_for(big("ring", "flow"), "ring", 1000),
                      Catch::Contains("too large to build") && Catch::Contains("nor can it be streamed"));
  // Streaming::always never streams what has no stream, and leaves a refusal to the guard.
  PredictionRequest always = big("two-tree", "flow");
  always.streaming = Streaming::always;
  REQUIRE(holding_for(always, "two-tree", gib) == Holding::held);
}
