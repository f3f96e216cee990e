// tests/sim/test_trace.cpp — the Chrome trace of a flow run: valid JSON in the Trace Event
// format, a slice per network transfer on its sender's track, no overlapping slices on one
// track, a counter per busy link; where the cluster has a runtime, its launch and pipeline
// flag waits as slices of every rank before the transfers, the last slice ending at the
// predicted time.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "sim/prediction.hpp"
#include "sim/trace.hpp"
#include "topologies/cluster_config.hpp"

using namespace collsim;

namespace {

// A file of this test process's own: ctest runs the cases side by side, as other checkouts'
// suites on the same machine may be.
std::string temp_trace_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / fmt::format("collsim_test_trace_{}_{}.json", name, ::getpid()))
      .string();
}

}  // namespace

TEST_CASE("a flow run's Chrome trace has a track per rank and per busy link") {
  const ClusterConfig c = parse_cluster_config(
      "name: t\nlink_classes:\n  l: {bandwidth_Bps: 2.0e+9, latency_s: 3.0e-7, alpha_s: 1.0e-6}\n"
      "topology: {kind: fat-tree, k: 4, n: 2, link: l, taper: [1, 0.5]}\nranks: 16\ngamma_s_per_byte: 1.0e-10\n",
      "t.yaml");
  ScheduleRequest r;
  r.ranks = 16;
  r.bytes = 1 << 20;
  const Schedule s = generate_schedule("two-tree", r);
  FlowOptions options;
  options.timeline = true;
  const FlowResult f = run_flow(s, *c.topology, 1e-10, options);
  const std::string path = temp_trace_path("two-tree");
  std::size_t written = 0;
  {
    ChromeTrace trace(path);
    trace.add_run("two-tree 1M", s, *c.topology, f, 1e-10);
    trace.close();
    written = trace.events();
  }
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in);  // throws if the JSON is broken
  std::remove(path.c_str());
  const auto& events = doc.at("traceEvents");
  REQUIRE(events.size() == written);

  std::size_t sends = 0, network_transfers = 0;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> tracks;
  std::set<std::string> counters, thread_names;
  std::map<std::size_t, std::vector<nlohmann::json>> flows;  // id -> its start and finish
  double last_end_us = 0;
  for (const auto& e : events) {
    const std::string ph = e.at("ph");
    REQUIRE(e.at("pid") == 1);
    if (ph == "X") {
      const double ts = e.at("ts"), dur = e.at("dur");
      REQUIRE(dur >= 0);
      tracks[{e.at("pid"), e.at("tid")}].emplace_back(ts, ts + dur);
      last_end_us = std::max(last_end_us, ts + dur);
      if (e.at("cat") == "transfer") ++sends;
    } else if (ph == "C") {
      counters.insert(e.at("name").get<std::string>());
      const double u = e.at("args").at("utilization %");
      REQUIRE(u >= 0);
      REQUIRE(u <= 100 + 1e-6);
    } else if (ph == "M" && e.at("name") == "thread_name") {
      thread_names.insert(e.at("args").at("name").get<std::string>());
    } else if (ph == "s" || ph == "f") {
      flows[e.at("id").get<std::size_t>()].push_back(e);
    } else {
      REQUIRE(ph == "M");
    }
  }
  for (TransferId id = 0; id < s.size(); ++id) network_transfers += !s.transfer(id).is_local();
  REQUIRE(sends == network_transfers);
  // An arrow per network transfer: "s" on a lane of its sender, "f" (bound to its enclosing
  // slice) on a lane of its receiver, each inside a slice of that lane, the finish not before the start.
  REQUIRE(flows.size() == network_transfers);
  auto inside_a_slice = [&](const nlohmann::json& e) {
    const double ts = e.at("ts");
    for (const auto& [begin, end] : tracks.at({e.at("pid"), e.at("tid")}))
      if (begin - 1e-6 <= ts && ts <= end + 1e-6) return true;
    return false;
  };
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer x = s.transfer(id);
    if (x.is_local()) continue;
    const auto& pair = flows.at(id);  // the first run's flow ids are its transfer ids
    REQUIRE(pair.size() == 2);
    const nlohmann::json& start = pair[0].at("ph") == "s" ? pair[0] : pair[1];
    const nlohmann::json& finish = pair[0].at("ph") == "s" ? pair[1] : pair[0];
    REQUIRE(finish.at("ph") == "f");
    REQUIRE(finish.at("bp") == "e");
    REQUIRE(start.at("tid").get<std::size_t>() % 16 == x.src);
    REQUIRE(finish.at("tid").get<std::size_t>() % 16 == x.dst);
    REQUIRE(finish.at("ts").get<double>() >= start.at("ts").get<double>());
    REQUIRE(inside_a_slice(start));
    REQUIRE(inside_a_slice(finish));
  }
  for (Rank rank = 0; rank < 16; ++rank) REQUIRE(thread_names.count(fmt::format("rank {}", rank)) == 1);
  for (auto& [track, slices] : tracks) {
    std::sort(slices.begin(), slices.end());
    for (std::size_t i = 1; i < slices.size(); ++i) REQUIRE(slices[i].first >= slices[i - 1].second - 1e-6);
  }
  std::size_t busy_links = 0;
  for (const LinkUsage& u : f.links) busy_links += u.bytes > 0;
  REQUIRE(counters.size() == busy_links);
  REQUIRE(last_end_us == Approx(f.time_s * 1e6).epsilon(1e-9));
}

TEST_CASE("a trace needs a file it can write") {
  REQUIRE_THROWS_AS(ChromeTrace("/nonexistent-dir/t.json"), Error);
}

namespace {

// One prediction's runs written as a trace (as `predict --trace` writes them) and read back.
struct TracedRun {
  PredictionRecord record;
  nlohmann::json events;
};

TracedRun traced(const ClusterConfig& c, const std::string& algorithm, std::uint64_t bytes) {
  PredictionRequest r = cluster_request(c);
  r.algorithms = {algorithm};
  r.sizes = {bytes};
  r.engine = EngineKind::flow;
  r.run.flow.timeline = true;
  const std::string path = temp_trace_path(fmt::format("{}_{}", algorithm, bytes));
  ChromeTrace trace(path);
  r.on_flow_run = [&](const PredictionRecord& rec, const Schedule& s, const FlowResult& result) {
    trace.add_run(rec.algorithm, s, *c.topology, result, c.cost.gamma_s_per_byte, trace_runtime(rec, c.runtime));
  };
  TracedRun out{predict(r).at(0), {}};
  trace.close();
  std::ifstream in(path);
  out.events = nlohmann::json::parse(in).at("traceEvents");
  std::remove(path.c_str());
  return out;
}

// The runtime slices of each rank's track (thread tid % ranks), in time order.
std::map<std::size_t, std::vector<nlohmann::json>> runtime_slices(const nlohmann::json& events, Rank ranks) {
  std::map<std::size_t, std::vector<nlohmann::json>> by_rank;
  for (const auto& e : events)
    if (e.at("ph") == "X" && e.at("cat") == "runtime") by_rank[e.at("tid").get<std::size_t>() % ranks].push_back(e);
  for (auto& [rank, slices] : by_rank)
    std::sort(slices.begin(), slices.end(),
              [](const nlohmann::json& a, const nlohmann::json& b) { return a.at("ts") < b.at("ts"); });
  return by_rank;
}

// A time as the file gives it, microseconds with six decimals: equal to `seconds` to 1e-9
// relative, or within the file's resolution (1 ps each for ts and dur), which is coarser
// than 1e-9 of a run under a millisecond.
Approx written_us(double seconds) { return Approx(seconds * 1e6).epsilon(1e-9).margin(2e-6); }

double last_end_us(const nlohmann::json& events) {
  double end = 0;
  for (const auto& e : events)
    if (e.at("ph") == "X") end = std::max(end, e.at("ts").get<double>() + e.at("dur").get<double>());
  return end;
}

// Slices of one lane never overlap; the schedule's transfers start after the runtime's fixed cost.
void require_lanes_apart(const nlohmann::json& events, double fixed_us) {
  std::map<std::size_t, std::vector<std::pair<double, double>>> lanes;
  for (const auto& e : events) {
    if (e.at("ph") != "X") continue;
    const double ts = e.at("ts"), dur = e.at("dur");
    lanes[e.at("tid")].emplace_back(ts, ts + dur);
    if (e.at("cat") != "runtime") REQUIRE(ts >= fixed_us - 1e-6);
  }
  for (auto& [lane, slices] : lanes) {
    std::sort(slices.begin(), slices.end());
    for (std::size_t i = 1; i < slices.size(); ++i) REQUIRE(slices[i].first >= slices[i - 1].second - 1e-6);
  }
}

}  // namespace

TEST_CASE("a trace shows NCCL's launch and pipeline flag waits on every rank before the ring's transfers") {
  const ClusterConfig c = load_preset("dgx-h100");
  const std::uint64_t bytes = 64 << 10;
  const TracedRun run = traced(c, "ring", bytes);
  const RunCosts costs = run_costs(cluster_request(c), "ring", simple_protocol(), bytes);
  const RuntimePipeline& pipeline = costs.protocol.pipeline;
  REQUIRE(pipeline.extra_sync_s > 0);  // 2 slices per chunk step: one more wait per step
  const std::uint64_t waits = (pipeline.loops * pipeline.slices - 1) * pipeline.steps;
  const auto by_rank = runtime_slices(run.events, c.ranks);
  REQUIRE(by_rank.size() == std::size_t(c.ranks));
  for (const auto& [rank, slices] : by_rank) {
    INFO("rank " << rank);
    REQUIRE(slices.size() == 2);
    REQUIRE(slices[0].at("name") == "launch + base latency (NCCL ring, simple)");
    REQUIRE(slices[0].at("ts").get<double>() == 0);
    REQUIRE(slices[0].at("dur").get<double>() == written_us(costs.fixed_s - pipeline.extra_sync_s));
    REQUIRE(slices[1].at("name") == fmt::format("pipeline flag waits ({} waits)", waits));
    REQUIRE(slices[1].at("ts").get<double>() == written_us(costs.fixed_s - pipeline.extra_sync_s));
    REQUIRE(slices[1].at("dur").get<double>() == written_us(pipeline.extra_sync_s));
  }
  require_lanes_apart(run.events, costs.fixed_s * 1e6);
  REQUIRE(last_end_us(run.events) == written_us(run.record.time_s));
  // Each send names the flag wait that took its route's alpha: one node, every step on NVLink.
  std::size_t sends = 0;
  for (const auto& e : run.events) {
    if (e.at("ph") != "X" || e.at("cat") != "transfer") continue;
    ++sends;
    const auto& args = e.at("args");
    REQUIRE(args.at("transport") == "nvlink");
    REQUIRE(args.at("sync_us").get<double>() == written_us(costs.protocol.step.at(Transport::nvlink)));
    REQUIRE(args.at("sync_us").get<double>() > 0);
    REQUIRE(args.at("drain_start_us").get<double>() - args.at("ready_us").get<double>() >=
            args.at("sync_us").get<double>() - 1e-6);
    REQUIRE(args.at("drain_us").get<double>() ==
            Approx(args.at("arrival_us").get<double>() - args.at("drain_start_us").get<double>()).margin(2e-6));
  }
  REQUIRE(sends == run.record.transfers);
}

TEST_CASE("a trace shows NVLS's whole latency as one launch slice per rank and no flag waits") {
  const ClusterConfig c = load_preset("dgx-h100");
  const std::uint64_t bytes = 1 << 20;
  const TracedRun run = traced(c, "nvls", bytes);
  const RunCosts costs = run_costs(cluster_request(c), "nvls", simple_protocol(), bytes);
  REQUIRE(costs.fixed_s > 0);
  REQUIRE(costs.protocol.pipeline.extra_sync_s == 0);
  const auto by_rank = runtime_slices(run.events, c.ranks);
  REQUIRE(by_rank.size() == std::size_t(c.ranks));  // the ranks, not the switch's reducer
  for (const auto& [rank, slices] : by_rank) {
    INFO("rank " << rank);
    REQUIRE(slices.size() == 1);
    REQUIRE(slices[0].at("name") == "launch + base latency (NCCL nvls, simple)");
    REQUIRE(slices[0].at("ts").get<double>() == 0);
    REQUIRE(slices[0].at("dur").get<double>() == written_us(costs.fixed_s));
  }
  for (const auto& e : run.events)
    if (e.at("ph") == "X" && e.at("cat") == "transfer") REQUIRE(e.at("args").at("sync_us").get<double>() == 0);
  require_lanes_apart(run.events, costs.fixed_s * 1e6);
  REQUIRE(last_end_us(run.events) == written_us(run.record.time_s));
}

TEST_CASE("a trace of a run without a runtime has no runtime slices and starts at 0") {
  const ClusterConfig fat_tree = parse_cluster_config(  // no `runtime:`
      "name: t\nlink_classes:\n  l: {bandwidth_Bps: 2.0e+9, latency_s: 3.0e-7, alpha_s: 1.0e-6}\n"
      "topology: {kind: fat-tree, k: 4, n: 2, link: l, taper: [1, 0.5]}\nranks: 16\ngamma_s_per_byte: 1.0e-10\n",
      "t.yaml");
  const ClusterConfig what_if = flat_cluster("what-if", CostModel::uniform(2e-6, 1 / 1e10, 1e-10), 8);  // --alpha/--bandwidth
  for (const ClusterConfig* c : {&fat_tree, &what_if}) {
    INFO(c->name);
    REQUIRE(c->runtime == CollectiveRuntime::none);
    const TracedRun run = traced(*c, "ring", 64 << 10);
    REQUIRE(run_costs(cluster_request(*c), "ring", simple_protocol(), 64 << 10).fixed_s == 0);
    REQUIRE(runtime_slices(run.events, c->ranks).empty());
    double first_us = 1e300;
    for (const auto& e : run.events) {
      if (e.at("ph") != "X") continue;
      first_us = std::min(first_us, e.at("ts").get<double>());
      if (e.at("cat") == "transfer") REQUIRE_FALSE(e.at("args").contains("sync_us"));
    }
    REQUIRE(first_us == 0);
    REQUIRE(last_end_us(run.events) == written_us(run.record.time_s));
  }
}

TEST_CASE("with the host's issue a send's slice begins when the host issued it, which its args say") {
  const ClusterConfig c = parse_cluster_config(
      "name: t\nlink_classes:\n  l: {bandwidth_Bps: 2.0e+9, latency_s: 3.0e-7, alpha_s: 1.0e-6}\n"
      "topology: {kind: ring, endpoints: 4, link: l}\nranks: 4\ngamma_s_per_byte: 1.0e-10\n",
      "t.yaml");
  ScheduleRequest r;
  r.ranks = 4;
  r.bytes = 4096;
  const Schedule s = generate_schedule("ring", r);
  const double issue_s = 5e-6;  // far above a 1 KiB transfer's 1.8 us: every send waits for the host
  FlowOptions options;
  options.timeline = true;
  options.issue_s = issue_s;
  const FlowResult f = run_flow(s, *c.topology, 1e-10, options);
  const std::string path = temp_trace_path("issue");
  {
    ChromeTrace trace(path);
    trace.add_run("ring 4K", s, *c.topology, f, 1e-10);
    trace.close();
  }
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::remove(path.c_str());
  std::size_t sends = 0;
  for (const auto& e : doc.at("traceEvents")) {
    if (e.at("ph") != "X" || e.at("cat") != "transfer") continue;
    const auto& args = e.at("args");
    const TransferId id = args.at("transfer");
    INFO("transfer " << id);
    REQUIRE(args.at("issued_us").get<double>() == Approx(1e6 * issue_s * (id + 1)).epsilon(1e-9));
    REQUIRE(e.at("ts").get<double>() == Approx(args.at("issued_us").get<double>()).epsilon(1e-9));
    REQUIRE(args.at("ready_us").get<double>() <= e.at("ts").get<double>());
    ++sends;
  }
  REQUIRE(sends == s.size());
}
