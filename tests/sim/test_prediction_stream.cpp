// tests/sim/test_prediction_stream.cpp — predict runs a ring or a hierarchical ring as a stream
// (holding_for): where the held schedule would be large or not fit, or when asked, with the
// held run's times; never when asked to hold; and the size guard still refuses what neither
// holds nor streams, saying what would run.
#include <catch2/catch.hpp>

#include <algorithm>

#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/partition.hpp"
#include "collectives/transfer_stream.hpp"
#include "sim/flow_engine.hpp"
#include "sim/flow_shortcut.hpp"
#include "sim/prediction.hpp"
#include "tests/support/test_cluster.hpp"
#include "topologies/cluster_config.hpp"

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
  r.engine = EngineKind::flow;
  return r;
}

// 3 nodes of 4 GPUs on NVSwitch, each node's NICs on a fabric: one NIC per GPU on its own
// rail (no link shared by two rank pairs of a hierarchical ring), or one NIC per node on a
// star (every rail crosses it).
ClusterConfig gpu_nodes(bool rails) {
  return parse_cluster_config(
      fmt::format("name: t\nlink_classes:\n  l: {{bandwidth_Bps: 1.0e+10, latency_s: 1.0e-7, alpha_s: 1.0e-6}}\n"
                  "  nv: {{bandwidth_Bps: 4.0e+10, latency_s: 1.0e-7, alpha_s: 1.0e-6}}\n"
                  "nodes: {{count: 3, gpus_per_node: 4, switch: nvswitch, gpu_link: nv, nics_per_node: {}, nic_link: l{}}}\n"
                  "topology: {}\ngamma_s_per_byte: 1.0e-10\n",
                  rails ? 4 : 1, rails ? ", rail_optimized: true" : "",
                  rails ? "{kind: xgft, m: [3, 4], w: [1, 3], link: l}" : "{kind: star, link: l}"),
      "t.yaml");
}

// The decision alone needs no topology: 16,384 ranks, as in `predict --preset dgx-h100-2048`.
// Predicts `held` (two sizes, the first 1 MiB + 7) held and streamed (Streaming::always, its
// progress into `progress`): the same times, transfers and segments, the analytic column only
// where held. Returns the held records, then the streamed ones.
std::pair<std::vector<PredictionRecord>, std::vector<PredictionRecord>> require_stream_equals_held(
    const PredictionRequest& held, const std::string& algorithm, std::vector<std::string>& progress) {
  PredictionRequest streamed = held;
  streamed.streaming = Streaming::always;
  streamed.run.stream_progress = [&](const std::string& line) { progress.push_back(line); };
  REQUIRE(holding_for(held, algorithm, 1 << 20) == Holding::held);
  REQUIRE(holding_for(streamed, algorithm, 1 << 20) == Holding::streamed);
  std::vector<PredictionRecord> h = predict(held), s = predict(streamed);
  REQUIRE(h.size() == 2);
  REQUIRE(s.size() == 2);
  for (std::size_t i = 0; i < h.size(); ++i) {
    REQUIRE(!h[i].streamed);
    REQUIRE(s[i].streamed);
    REQUIRE(s[i].time_s == Approx(h[i].time_s).epsilon(1e-12));
    REQUIRE(s[i].transfers == h[i].transfers);
    REQUIRE(s[i].segments == h[i].segments);
    REQUIRE(h[i].analytic_s);
    REQUIRE(!s[i].analytic_s);  // the analytic engine needs the schedule held
  }
  return {std::move(h), std::move(s)};
}

PredictionRequest big(const std::string& algorithm, const std::string& engine) {
  PredictionRequest r;
  r.algorithms = {algorithm};
  r.ranks = 16384;
  r.cost = CostModel::uniform(1e-6, 1e-9, 0);
  r.cost.ranks_per_node = 8;
  r.topology = flat_cluster("flat", r.cost, r.ranks).topology;  // holding_for reads no more of it
  r.engine = find_engine(engine).kind;
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
      std::vector<std::string> progress;
      const auto [h, s] = require_stream_equals_held(held, "ring", progress);
      for (std::size_t i = 0; i < h.size(); ++i) {
        REQUIRE(s[i].busbw_GBps == Approx(h[i].busbw_GBps).epsilon(1e-12));
        REQUIRE(to_json(s[i])["streamed"] == true);
        REQUIRE(to_json(h[i])["streamed"] == false);
      }
      REQUIRE(!progress.empty());  // the stream's run was heard
    }
  }
}

TEST_CASE("a streamed ring in C channels predicts the held ring's time: NICs of multi-GPU nodes, a mesh's rings") {
  for (const bool rails : {true, false}) {
    const ClusterConfig c = gpu_nodes(rails);
    PredictionRequest held = request(c, "ring", {(1 << 20) + 7, std::uint64_t(64) << 20});
    held.channels = 3;
    INFO((rails ? "rails" : "one NIC per node") << ", 3 channels");
    std::vector<std::string> progress;
    const auto [h, s] = require_stream_equals_held(held, "ring", progress);
    for (const PredictionRecord& rec : s) REQUIRE(rec.channels == 3);
  }
  const ClusterConfig mesh = load_preset("hgx-a100-4gpu");  // 12 channels over the mesh's rings
  PredictionRequest held = request(mesh, "ring", {(1 << 20) + 7, std::uint64_t(64) << 20});
  held.channels = 12;  // asked: the suggestion alone streams in one channel
  std::vector<std::string> progress;
  const auto [h, s] = require_stream_equals_held(held, "ring", progress);
  for (const PredictionRecord& rec : s) REQUIRE(rec.channels == 12);
}

TEST_CASE("a streamed hierarchical ring predicts the held one's time, with and without shared links") {
  for (bool rails : {true, false}) {
    INFO((rails ? "a NIC per GPU, on rails" : "one NIC per node, on a star"));
    const ClusterConfig c = gpu_nodes(rails);
    REQUIRE(c.cost.ranks_per_node == 4);
    const PredictionRequest held = request(c, "hierarchical-ring", {(1 << 20) + 7, std::uint64_t(64) << 20});
    std::vector<std::string> progress;
    const auto [h, s] = require_stream_equals_held(held, "hierarchical-ring", progress);
    REQUIRE(h[1].segments > 1);  // 64 MiB: pipelined
    // In one segment, without a shared link, the one-pass shortcut; with one, the event
    // simulation, which says so. (Slices of one step are ready together on one pair: the
    // shortcut leaves those to the events too.)
    progress.clear();
    PredictionRequest streamed = held;
    streamed.streaming = Streaming::always;
    streamed.run.stream_progress = [&](const std::string& line) { progress.push_back(line); };
    streamed.sizes = {(1 << 20) + 7};
    REQUIRE(predict(streamed)[0].time_s == Approx(h[0].time_s).epsilon(1e-12));
    REQUIRE(!progress.empty());
    const bool events = std::any_of(progress.begin(), progress.end(),
                                    [](const std::string& line) { return line.find("share a link") != std::string::npos; });
    REQUIRE(events == !rails);
    // Rails do not compete, so the flow engine's time is the analytic one; one NIC per node is slower.
    if (rails) REQUIRE(h[0].time_s == Approx(*h[0].analytic_s).epsilon(1e-9));
    else REQUIRE(h[0].time_s > 1.2 * *h[0].analytic_s);
  }
}

TEST_CASE("the flow engine gives a streamed hierarchical ring the held one's rank finishes and link bytes") {
  for (bool rails : {true, false})
    for (std::uint32_t segments : {1u, 3u}) {
      INFO((rails ? "rails" : "one NIC per node") << ", " << segments << " segments");
      const ClusterConfig c = gpu_nodes(rails);
      ScheduleRequest r;
      r.ranks = c.ranks;
      r.ranks_per_node = c.cost.ranks_per_node;
      r.bytes = (4 << 20) + 11;
      r.segments = segments;
      // The reference simulates every flow as events: with rails no link is shared, so the
      // stream takes the one-pass shortcut, its slices in list order where they tie on a pair.
      FlowOptions events;
      events.shortcut = false;
      const FlowResult held =
          run_flow(generate_schedule("hierarchical-ring", r), *c.topology, c.cost.gamma_s_per_byte, events);
      const FlowResult streamed = run_flow(*stream_hierarchical_ring(r), *c.topology, c.cost.gamma_s_per_byte);
      REQUIRE(streamed.time_s == Approx(held.time_s).epsilon(1e-12));
      REQUIRE(streamed.rank_finish_s.size() == held.rank_finish_s.size());
      for (std::size_t k = 0; k < held.rank_finish_s.size(); ++k)
        REQUIRE(streamed.rank_finish_s[k] == Approx(held.rank_finish_s[k]).epsilon(1e-12));
      REQUIRE(streamed.links.size() == held.links.size());
      for (std::size_t l = 0; l < held.links.size(); ++l) REQUIRE(streamed.links[l].bytes == held.links[l].bytes);
    }
}

// The held ring's C channels merged slot by slot are the stream's ids (collectives/algorithms/ring.cpp):
// the flow engine times both alike, on one rank pair's channels, ports and reducers that the
// channels share. Nodes of 4 GPUs with a NIC each on rails (PXN hands channels over NVLink to
// their rail: shared NVLinks), the same without PXN (each channel changes rail: shared spines),
// one NIC per node (every channel through it); a flat star and fat-trees (all channels on the
// same rank pairs). The held reference simulates every flow as events (no shortcut).
TEST_CASE("a streamed ring in C channels equals the held ring in C channels on every fabric (1e-12)") {
  const auto nodes = [](int count, int nics, bool pxn) {
    return parse_cluster_config(
        fmt::format("name: t\nlink_classes:\n  l: {{bandwidth_Bps: 1.0e+10, latency_s: 1.0e-7, alpha_s: 1.0e-6}}\n"
                    "  nv: {{bandwidth_Bps: 4.0e+10, latency_s: 1.0e-7, alpha_s: 1.0e-6}}\n"
                    "nodes: {{count: {0}, gpus_per_node: 4, switch: nvswitch, gpu_link: nv, nics_per_node: {1}, "
                    "nic_link: l{2}}}\ntopology: {3}\ngamma_s_per_byte: 1.0e-10\n",
                    count, nics, nics > 1 ? fmt::format(", rail_optimized: true, pxn: {}", pxn) : "",
                    nics > 1 ? fmt::format("{{kind: xgft, m: [{}, 4], w: [1, 2], link: l}}", count)
                             : "{kind: star, link: l}"),
        "t.yaml");
  };
  std::vector<std::pair<std::string, ClusterConfig>> fabrics{
      {"star of 5", cluster("{kind: star, endpoints: 5, link: l}", 5)},
      {"star of 12 with a backplane", cluster("{kind: star, endpoints: 12, link: l, backplane_Bps: 3.0e+10}", 12)},
      {"fat-tree of 16", cluster("{kind: xgft, m: [4, 4], w: [1, 4], link: l}", 16)},
      {"fat-tree of 16, random placement", cluster("{kind: xgft, m: [4, 4], w: [1, 1], link: l}\nplacement: {kind: random, seed: 3}", 16)},
      {"3 x 4 GPUs, rails, PXN", nodes(3, 4, true)},
      {"4 x 4 GPUs, rails, no PXN", nodes(4, 4, false)},
      {"3 x 4 GPUs, one NIC each", nodes(3, 1, false)}};
  for (const auto& [name, c] : fabrics)
    for (std::uint32_t channels : {2u, 3u, 8u})
      for (std::uint32_t segments : {1u, 2u}) {
        INFO(name << ", " << channels << " channels, " << segments << " segments");
        ScheduleRequest r;
        r.ranks = c.ranks;
        r.ranks_per_node = c.cost.ranks_per_node;
        r.bytes = (3 << 20) + 13;
        r.channels = channels;
        r.segments = segments;
        FlowOptions events;
        events.shortcut = false;
        const FlowResult held = run_flow(generate_schedule("ring", r), *c.topology, 1e-10, events);
        const FlowResult streamed = run_flow(*stream_ring(r), *c.topology, 1e-10);
        REQUIRE(streamed.time_s == Approx(held.time_s).epsilon(1e-12));
        REQUIRE(streamed.rank_finish_s.size() == held.rank_finish_s.size());
        for (std::size_t k = 0; k < held.rank_finish_s.size(); ++k)
          REQUIRE(streamed.rank_finish_s[k] == Approx(held.rank_finish_s[k]).epsilon(1e-12));
        for (std::size_t l = 0; l < held.links.size(); ++l)
          REQUIRE(streamed.links[l].bytes == Approx(held.links[l].bytes).epsilon(1e-12));
      }
}

TEST_CASE("a 16,384-rank ring on the flow engine is streamed, not refused, held rings and other algorithms are not") {
  const std::uint64_t gib = std::uint64_t(1) << 30;
  REQUIRE(holding_for(big("ring", "flow"), "ring", gib) == Holding::streamed);
  REQUIRE(holding_for(big("ring", "flow"), "ring", 1 << 20) == Holding::streamed);
  REQUIRE(holding_for(big("two-tree", "flow"), "two-tree", gib) == Holding::held);
  PredictionRequest small = big("ring", "flow");
  small.ranks = 1024;  // 2.1 M transfers: held, as before
  REQUIRE(holding_for(small, "ring", gib) == Holding::held);
}

TEST_CASE("a schedule that would be large held streams where it can, and --stream never holds it") {
  const std::uint64_t gib = std::uint64_t(1) << 30;
  // The hierarchical ring on 16,384 ranks: 67 M transfers, under the size guard, over the threshold.
  PredictionRequest hierarchical = big("hierarchical-ring", "flow");
  REQUIRE(holding_for(hierarchical, "hierarchical-ring", gib) == Holding::streamed);
  hierarchical.streaming = Streaming::never;
  REQUIRE(holding_for(hierarchical, "hierarchical-ring", gib) == Holding::held);
  hierarchical.streaming = Streaming::when_large;
  hierarchical.ranks = 2048;  // 256 nodes: 2 x 2,048 x (7 + 255) = 1.1 M transfers, held as before
  REQUIRE(holding_for(hierarchical, "hierarchical-ring", gib) == Holding::held);
  // Where a stream cannot run, a large schedule is held, as before: another engine, --detail.
  REQUIRE(holding_for(big("hierarchical-ring", "analytic"), "hierarchical-ring", gib) == Holding::held);
  PredictionRequest detail = big("hierarchical-ring", "flow");
  detail.on_flow_run = [](const PredictionRecord&, const Schedule&, const FlowResult&) {};
  REQUIRE(holding_for(detail, "hierarchical-ring", gib) == Holding::held);
  // A ring of 4,096 ranks (33.5 M transfers) streams, on one channel or the several asked for.
  PredictionRequest ring = big("ring", "flow");
  ring.ranks = 4096;
  REQUIRE(holding_for(ring, "ring", gib) == Holding::streamed);
  ring.channels = 2;
  REQUIRE(holding_for(ring, "ring", gib) == Holding::streamed);
  ring.channels = 1;
  ring.ranks = 2048;  // 8.4 M transfers: under the threshold
  REQUIRE(holding_for(ring, "ring", gib) == Holding::held);
  // Too large to hold, --stream never refuses, and says what would run.
  PredictionRequest never = big("ring", "flow");
  never.streaming = Streaming::never;
  REQUIRE_THROWS_WITH(holding_for(never, "ring", gib),
                      Catch::Contains("too large to build") && Catch::Contains("--stream auto runs it as a stream"));
}

TEST_CASE("a streamed run's note says why it was streamed and what holds it") {
  const ClusterConfig c = gpu_nodes(true);
  std::vector<std::string> notes;
  PredictionRequest r = request(c, "hierarchical-ring", {1 << 20});
  r.on_note = [&](const std::string& note) { notes.push_back(note); };
  r.streaming = Streaming::always;
  predict(r);
  REQUIRE(notes.size() == 1);
  REQUIRE_THAT(notes[0], Catch::StartsWith("hierarchical-ring 1M: 0.00012 M transfers run as a stream, not held, as asked"));
  notes.clear();
  r.streaming = Streaming::when_large;
  predict(r);  // 120 transfers: held, without a note
  REQUIRE(notes.empty());
}

TEST_CASE("the size guard refuses what neither holds nor streams, and says what would run") {
  const std::uint64_t gib = std::uint64_t(1) << 30;
  // The analytic engine walks a held schedule; the flow engine streams it, a flat network's too.
  REQUIRE_THROWS_WITH(holding_for(big("ring", "analytic"), "ring", gib),
                      Catch::Contains("too large to build") && Catch::Contains("the flow engine (--engine flow) streams it"));
  // --detail and --trace (on_flow_run) need the schedule held.
  PredictionRequest detail = big("ring", "flow");
  detail.on_flow_run = [](const PredictionRecord&, const Schedule&, const FlowResult&) {};
  REQUIRE_THROWS_WITH(holding_for(detail, "ring", gib),
                      Catch::Contains("too large to build") && Catch::Contains("--detail and --trace need the schedule held"));
  // An algorithm with no stream, too large even on each rank's pieces (Rabenseifner on
  // 1,048,576 ranks: about 1e9 element visits): refused, naming what fits. (On 16,384 ranks it
  // now fits: collectives/elements.hpp.)
  PredictionRequest halving = big("rabenseifner", "flow");
  REQUIRE(holding_for(halving, "rabenseifner", gib) == Holding::held);
  halving.ranks = 1u << 20;
  REQUIRE_THROWS_WITH(holding_for(halving, "rabenseifner", gib),
                      Catch::Contains("too large to build") && Catch::Contains("element visits") &&
                          Catch::Contains("an algorithm that fits"));
  // Too small to stream (less than a byte per slice): the stream says so.
  REQUIRE_THROWS_WITH(holding_for(big("ring", "flow"), "ring", 1000),
                      Catch::Contains("too large to build") && Catch::Contains("nor can it be streamed"));
  // Streaming::always never streams what has no stream, and leaves a refusal to the guard.
  PredictionRequest always = big("two-tree", "flow");
  always.streaming = Streaming::always;
  REQUIRE(holding_for(always, "two-tree", gib) == Holding::held);
}

// Bruck's stream tells its messages alone (its local copies are free): fewer transfers than the
// held schedule, the same time, rank finishes and link bytes, on 2..33 ranks (powers of two and
// not, one byte per block and several), with and without shared links.
TEST_CASE("a streamed bruck all-to-all predicts the held one's time, rank finishes and link bytes") {
  for (const auto& [fabric, endpoints] : std::vector<std::pair<std::string, Rank>>{
           {"{kind: xgft, m: [4, 4], w: [1, 4], link: l}", 16},                       // full bisection
           {"{kind: star, endpoints: 40, link: l, backplane_Bps: 3.0e+9}", 40},       // every flow shares the backplane
           {"{kind: xgft, m: [6, 6], w: [1, 2], link: l}\nplacement: {kind: random, seed: 3}", 36}})  // some share
    for (Rank p : {2u, 3u, 5u, 8u, 9u, 12u, 16u, 17u, 33u}) {
      if (p > endpoints) continue;
      const ClusterConfig c = cluster(fabric, endpoints);
      for (std::uint64_t bytes : {std::uint64_t(p), std::uint64_t(1 << 20) + 7}) {
        INFO(fabric << ", " << p << " ranks, " << bytes << " bytes");
        ScheduleRequest r;
        r.collective = Collective::alltoall;
        r.ranks = p;
        r.bytes = bytes;
        const auto stream = stream_bruck(r);
        REQUIRE(stream->size() == std::uint64_t(p) * ceil_log2(p));
        const FlowResult held = run_flow(generate_schedule("bruck", r), *c.topology, c.cost.gamma_s_per_byte);
        const FlowResult streamed = run_flow(*stream, *c.topology, c.cost.gamma_s_per_byte);
        REQUIRE(streamed.time_s == Approx(held.time_s).epsilon(1e-12));
        REQUIRE(streamed.rank_finish_s.size() == held.rank_finish_s.size());
        for (std::size_t k = 0; k < held.rank_finish_s.size(); ++k)
          REQUIRE(streamed.rank_finish_s[k] == Approx(held.rank_finish_s[k]).epsilon(1e-12));
        for (std::size_t l = 0; l < held.links.size(); ++l) REQUIRE(streamed.links[l].bytes == held.links[l].bytes);
      }
    }
}

TEST_CASE("predict streams bruck where it is large or asked, at the held time, and empty blocks send nothing") {
  const ClusterConfig c = cluster("{kind: star, endpoints: 12, link: l, backplane_Bps: 3.0e+9}", 12);
  PredictionRequest held = request(c, "bruck", {(1 << 20) + 7});
  held.collective = Collective::alltoall;
  PredictionRequest streamed = held;
  streamed.streaming = Streaming::always;
  REQUIRE(holding_for(held, "bruck", 1 << 20) == Holding::held);
  REQUIRE(holding_for(streamed, "bruck", 1 << 20) == Holding::streamed);
  const PredictionRecord h = predict(held)[0], s = predict(streamed)[0];
  REQUIRE(s.streamed);
  REQUIRE(s.time_s == Approx(h.time_s).epsilon(1e-12));
  REQUIRE(s.transfers == 12 * 4);  // the messages alone
  PredictionRequest large = big("bruck", "flow");
  large.collective = Collective::alltoall;
  REQUIRE(holding_for(large, "bruck", 1 << 20) == Holding::streamed);  // 2.1 G transfers held
  ScheduleRequest empty;
  empty.collective = Collective::alltoall;
  empty.ranks = 12;
  empty.bytes = 11;
  REQUIRE(stream_bruck(empty)->size() == 0);
  REQUIRE(stream_bruck(empty)->roots().empty());
  REQUIRE(generate_schedule("bruck", empty).size() == 0);
}
