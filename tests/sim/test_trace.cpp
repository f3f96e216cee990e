// tests/sim/test_trace.cpp — the Chrome trace of a flow run: valid JSON in the Trace Event
// format, a slice per network transfer on its sender's track, no overlapping slices on one
// track, a counter per busy link.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "sim/trace.hpp"
#include "topologies/cluster_config.hpp"

using namespace collsim;

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
  const std::string path = (std::filesystem::temp_directory_path() / "collsim_test_trace.json").string();
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
