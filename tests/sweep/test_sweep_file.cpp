// tests/sweep/test_sweep_file.cpp — a sweep file expands to the points it names, refuses what
// it cannot mean, and its results table reads back only the rows that still hold.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "sweep/sweep_file.hpp"
#include "sweep/sweep_results.hpp"
#include "sweep/sweep_worker.hpp"

using namespace collsim;

namespace {

const std::string kSweep = R"(name: t
base: {preset: dgx-h100-superpod-su}
axes:
  - {path: nodes.count, name: nodes, values: [2, 4]}
  - {path: topology.taper, name: taper, values: [[1, 1], [1, 0.5]], labels: ["1:1", "2:1"]}
request:
  algorithms: [ring, two-tree]
  sizes: 64K,1M,16M
)";

std::string with(std::string text, const std::string& old, const std::string& now) {
  text.replace(text.find(old), old.size(), now);
  return text;
}

}  // namespace

TEST_CASE("a sweep has one point per axis value, collective, engine, size and algorithm, the first axis slowest") {
  const Sweep s = parse_sweep(kSweep, "t.yaml");
  REQUIRE(s.points.size() == 2 * 2 * 3 * 2);
  CHECK(s.points[0].value == std::vector<std::size_t>{0, 0});
  CHECK(s.points[0].algorithm == "ring");
  CHECK(s.points[1].algorithm == "two-tree");
  CHECK(s.points[2].bytes == 1u << 20);
  CHECK(s.points.back().value == std::vector<std::size_t>{1, 1});
  CHECK(s.points[0].engine == "analytic");
  CHECK(s.axes[1].labels == std::vector<std::string>{"1:1", "2:1"});
  std::set<std::uint64_t> hashes;
  for (const SweepPoint& p : s.points) hashes.insert(p.hash);
  CHECK(hashes.size() == s.points.size());
}

TEST_CASE("an axis writes its value into the point's cluster, and only there") {
  const Sweep s = parse_sweep(kSweep, "t.yaml");
  CHECK_THAT(s.points[0].cluster_yaml, Catch::Contains("count: 2"));
  CHECK_THAT(s.points.back().cluster_yaml, Catch::Contains("count: 4"));
  CHECK_THAT(s.points.back().cluster_yaml, Catch::Contains("0.5"));
}

TEST_CASE("a point's hash changes with the base config and the request, not with the other points") {
  const Sweep a = parse_sweep(kSweep, "t.yaml");
  const Sweep b = parse_sweep(with(kSweep, "values: [2, 4]", "values: [2, 8]"), "t.yaml");
  CHECK(a.points[0].hash == b.points[0].hash);  // nodes=2: the same point
  CHECK(a.points.back().hash != b.points.back().hash);
  const Sweep c = parse_sweep(with(kSweep, "request:", "request:\n  engine: flow"), "t.yaml");
  CHECK(a.points[0].hash != c.points[0].hash);
}

TEST_CASE("a sweep file names the field it cannot mean") {
  CHECK_THROWS_WITH(parse_sweep(with(kSweep, "nodes.count", "nodes.cout"), "t.yaml"),
                    Catch::Contains("axis path 'nodes.cout': no field 'cout'"));
  CHECK_THROWS_WITH(parse_sweep(with(kSweep, "nodes.count", "nodez.count"), "t.yaml"),
                    Catch::Contains("has no section 'nodez'"));
  CHECK_THROWS_WITH(parse_sweep(with(kSweep, "topology.taper", "topology.tapper"), "t.yaml"),
                    Catch::Contains("no field 'tapper'"));
  CHECK_THROWS_WITH(parse_sweep(with(kSweep, "sizes: 64K,1M,16M", "sizes: 64Q"), "t.yaml"), Catch::Contains("sizes:"));
  CHECK_THROWS_WITH(parse_sweep(with(kSweep, "[ring, two-tree]", "[ring, ring]"), "t.yaml"),
                    Catch::Contains("'ring' is named twice"));
  CHECK_THROWS_WITH(parse_sweep(with(kSweep, "request:", "requests:"), "t.yaml"), Catch::Contains("unknown field 'requests'"));
  CHECK_THROWS_WITH(parse_sweep(with(kSweep, "[\"1:1\", \"2:1\"]", "[\"a,b\", \"c\"]"), "t.yaml"),
                    Catch::Contains("axis label 'a,b'"));
}

TEST_CASE("a sweep over its budget is refused before it starts, with the way out") {
  CHECK_THROWS_WITH(parse_sweep(kSweep + "budget: {points: 10}\n", "t.yaml"),
                    Catch::Contains("24 points, over its budget of 10"));
  CHECK(parse_sweep(kSweep + "budget: {points: 24}\n", "t.yaml").points.size() == 24);
}

TEST_CASE("the results table reads back the rows whose point and hash still hold") {
  const Sweep s = parse_sweep(kSweep, "t.yaml");
  std::map<std::size_t, SweepRow> rows;
  for (std::size_t i : {0, 5, 7}) {
    SweepRow r;
    r.index = i, r.hash = s.points[i].hash, r.ranks = 16, r.runs = "ring", r.protocol = "simple", r.channels = 8;
    r.time_s = 1.25e-3 * double(i + 1), r.algbw_GBps = 3, r.busbw_GBps = 6;
    rows[i] = r;
  }
  rows[5].status = RowStatus::refused, rows[5].error = "nodes: count must be \"whole\", 0 given";
  rows[7].status = RowStatus::failed, rows[7].error = "its worker died twice";
  const std::filesystem::path csv = std::filesystem::temp_directory_path() / "collsim_test_sweep_results.csv";
  write_text_file(csv, results_csv(s, rows), "test");
  const std::map<std::size_t, SweepRow> back = read_results(s, csv);
  REQUIRE(back.size() == 2);  // a failed point is priced again
  CHECK(back.at(0).time_s == rows[0].time_s);
  CHECK(back.at(0).runs == "ring");
  CHECK(back.at(5).error == rows[5].error);
  CHECK(results_csv(s, back) == results_csv(s, {{0, rows[0]}, {5, rows[5]}}));
  // the same table, read by a sweep whose nodes=4 points changed: those rows are dropped
  const Sweep changed = parse_sweep(with(kSweep, "sizes: 64K,1M,16M", "sizes: 64K,1M,16M\n  engine: flow"), "t.yaml");
  CHECK_THROWS_WITH(read_results(parse_sweep(with(kSweep, "name: nodes", "name: n"), "t.yaml"), csv),
                    Catch::Contains("not the results of this sweep"));
  CHECK(read_results(changed, csv).empty());
  std::filesystem::remove(csv);
}

TEST_CASE("a worker prices a point line into a row line, and a refused value into the row's error") {
  const Sweep s = parse_sweep(kSweep, "t.yaml");
  const SweepRow row = row_from_line(price_point_line(point_line(s.points[0])));
  CHECK(row.status == RowStatus::ok);
  CHECK(row.index == 0);
  CHECK(row.ranks == 16);
  CHECK(row.time_s > 0);
  const Sweep bad = parse_sweep(with(kSweep, "values: [2, 4]", "values: [0, 4]"), "t.yaml");
  const SweepRow refused = row_from_line(price_point_line(point_line(bad.points[0])));
  CHECK(refused.status == RowStatus::refused);
  CHECK_THAT(refused.error, Catch::Contains("count"));
}
