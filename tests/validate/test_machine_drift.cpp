// tests/validate/test_machine_drift.cpp — probes against the calibration: how far a case's
// ping-pong probes moved, which cases run again (and which measurement each keeps), and how
// the report shows it.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "base/error.hpp"
#include "validate/execution_runs.hpp"
#include "validate/machine_drift.hpp"
#include "validate/report.hpp"

using namespace collsim;

namespace {

// A ping-pong sweep 1 B .. 64 MiB, one-way time 1 us + bytes / 10 GB/s.
std::vector<SizeTime> sweep() {
  std::vector<SizeTime> points;
  for (std::uint64_t b = 1; b <= (64u << 20); b *= 2) points.push_back({b, 1e-6 + double(b) / 1e10, {}});
  return points;
}

double calibrated(std::uint64_t bytes) { return 1e-6 + double(bytes) / 1e10; }

const std::vector<std::uint64_t> kProbeSizes{2048, 1 << 20, 16 << 20};

// A case whose probes (2 KiB, 1 MiB, 16 MiB) ran `before` and `after` times slower than
// calibrated; `out_of_cache` more at 16 MiB.
Measurement probed_case(const std::string& algorithm, std::uint64_t bytes, double before, double after,
                        double out_of_cache = 1) {
  Measurement m;
  m.algorithm = algorithm;
  m.bytes = bytes;
  m.ranks = 2;
  m.times_s = {1e-3};
  for (std::uint64_t probe : kProbeSizes) {
    const double extra = probe == kProbeSizes.back() ? out_of_cache : 1;
    m.probe_before_s.push_back(before * extra * calibrated(probe));
    m.probe_after_s.push_back(after * extra * calibrated(probe));
  }
  return m;
}

}  // namespace

TEST_CASE("probes are the calibration's points nearest 2 KiB, 1 MiB and 16 MiB") {
  CHECK(probe_sizes(sweep()) == kProbeSizes);
  std::vector<SizeTime> small = sweep();
  small.resize(13);  // 1 B .. 4 KiB
  CHECK(probe_sizes(small) == std::vector<std::uint64_t>{2048, 4096});
  CHECK(probe_sizes({}).empty());
}

TEST_CASE("a case's drift is its probes' largest relative move from the calibration, before or after") {
  const std::vector<std::uint64_t>& sizes = kProbeSizes;
  CHECK(machine_drift(probed_case("ring", 4096, 1.0, 1.0), sizes, sweep()) == Approx(0).margin(1e-12));
  CHECK(machine_drift(probed_case("ring", 4096, 1.0, 1.0, 1.4), sizes, sweep()) == Approx(0.4));  // memory alone
  CHECK(machine_drift(probed_case("ring", 4096, 1.1, 0.95), sizes, sweep()) == Approx(0.1));
  CHECK(machine_drift(probed_case("ring", 4096, 1.0, 3.0), sizes, sweep()) == Approx(2.0));
  CHECK(machine_drift(probed_case("ring", 4096, 0.4, 1.0), sizes, sweep()) == Approx(0.6));
  CHECK(machine_steady(0.2));
  CHECK_FALSE(machine_steady(0.3));

  Measurement unprobed;
  CHECK(std::isnan(machine_drift(unprobed, sizes, sweep())));
  CHECK(machine_steady(machine_drift(unprobed, sizes, sweep())));  // not known to have drifted
  CHECK_THROWS_AS(machine_drift(probed_case("ring", 4096, 1, 1), std::vector<std::uint64_t>{3000, 1 << 20, 16 << 20}, sweep()), Error);
  CHECK_THROWS_AS(machine_drift(probed_case("ring", 4096, 1, 1), std::vector<std::uint64_t>{2048}, sweep()), Error);
}

TEST_CASE("the cuda backend's probe is the host's issue: one point, one probe, its drift against the calibration's") {
  // calibrate --backend cuda's host_issue: 5 us a transfer, measured with 4 KiB reductions
  const std::vector<SizeTime> host_issue{{4096, 5e-6, {}}};
  const std::vector<std::uint64_t> probes = probe_sizes(host_issue);
  REQUIRE(probes == std::vector<std::uint64_t>{4096});
  Measurement m;
  m.algorithm = "ring";
  m.bytes = 4096;
  m.times_s = {5e-4};
  m.probe_before_s = {6.5e-6};  // the host 30% slower before the case
  m.probe_after_s = {5.2e-6};
  CHECK(machine_drift(m, probes, host_issue) == Approx(0.3));
  CHECK_FALSE(machine_steady(machine_drift(m, probes, host_issue)));
}

TEST_CASE("cases measured while the machine drifted run again, each keeping its closest measurement") {
  ExecutionJob job;
  job.request.algorithms = {"ring", "tree"};
  job.request.sizes = {4096, 1 << 20};
  job.request.ranks = 2;
  // The machine's speed, launch after launch: ring at 1 MiB drifts twice then settles; tree
  // at 4 KiB drifts every time, by less on its second launch.
  std::map<std::pair<std::string, std::uint64_t>, std::vector<double>> slowdowns{
      {{"ring", 4096}, {1.0}}, {{"ring", 1 << 20}, {2.5, 1.6, 1.05}},
      {{"tree", 4096}, {3.0, 1.5, 2.0}}, {{"tree", 1 << 20}, {1.1}}};
  std::map<std::pair<std::string, std::uint64_t>, std::size_t> launches;
  std::vector<ExecutionJob> jobs;
  const JobRunner run = [&](const ExecutionJob& j) {
    jobs.push_back(j);
    std::vector<Measurement> out;
    for (std::uint64_t bytes : j.request.sizes)
      for (const std::string& a : j.request.algorithms) {
        const double slow = slowdowns.at({a, bytes}).at(launches[{a, bytes}]++);
        Measurement m = probed_case(a, bytes, slow, slow);
        m.times_s = {slow};  // which launch this measurement came from
        out.push_back(m);
      }
    return out;
  };
  std::vector<std::pair<std::uint64_t, std::size_t>> retried;
  const std::vector<ProbedMeasurement> measured = measure_until_steady(
      job, sweep(), /*retry=*/true, run, [&](std::uint64_t b, std::size_t n) { retried.push_back({b, n}); });

  REQUIRE(measured.size() == 4);
  CHECK(jobs.front().probe_bytes == kProbeSizes);
  CHECK(jobs.size() == 5);  // everything, then twice 4 KiB (tree) and 1 MiB (ring)
  CHECK(jobs[1].request.sizes == std::vector<std::uint64_t>{4096});
  CHECK(jobs[1].request.algorithms == std::vector<std::string>{"tree"});
  CHECK(retried == std::vector<std::pair<std::uint64_t, std::size_t>>{{4096, 1}, {1 << 20, 1}, {4096, 1}, {1 << 20, 1}});
  for (const ProbedMeasurement& p : measured) {
    if (p.measurement.algorithm == "ring" && p.measurement.bytes == (1u << 20)) {
      CHECK(p.measurement.times_s[0] == 1.05);
      CHECK(p.drift == Approx(0.05));
    }
    if (p.measurement.algorithm == "tree" && p.measurement.bytes == 4096) {
      CHECK(p.measurement.times_s[0] == 1.5);  // the closest of three, still drifted
      CHECK_FALSE(machine_steady(p.drift));
    }
  }

  jobs.clear();
  launches.clear();
  const std::vector<ProbedMeasurement> once = measure_until_steady(job, sweep(), /*retry=*/false, run, nullptr);
  CHECK(jobs.size() == 1);
  CHECK(once.size() == 4);
}

TEST_CASE("the report shows each case's drift and sums up the steady cases apart") {
  std::vector<ValidationRow> rows{{"ring", 2, 4096, 1.1e-6, 1e-6, 0.05}, {"tree", 2, 4096, 2e-6, 1e-6, 0.9}};
  CHECK(any_probed(rows));
  CHECK(steady_rows(rows).size() == 1);
  CHECK_THAT(results_csv(rows), Catch::StartsWith("algorithm,ranks,bytes,predicted_s,measured_median_s,error_pct,machine_drift_pct\n"));
  CHECK_THAT(results_csv(rows), Catch::Contains(",90.0\n"));
  const std::string md = results_markdown(rows, "", 2);
  CHECK_THAT(md, Catch::Contains("1 of 2 cases were measured within 25%"));
  CHECK_THAT(md, Catch::Contains("**90%** (drifted)"));
  CHECK_THAT(md, Catch::Contains("| 2 | 1 | 10.0% | 10.0% |"));

  const std::vector<ValidationRow> unprobed{{"ring", 2, 4096, 1.1e-6, 1e-6}};
  CHECK_FALSE(any_probed(unprobed));
  CHECK_THAT(results_csv(unprobed), Catch::StartsWith("algorithm,ranks,bytes,predicted_s,measured_median_s,error_pct\n"));
  CHECK_THAT(results_markdown(unprobed, "", 2), !Catch::Contains("machine drift"));

  // none steady: said in words, with no empty table of steady cases
  const std::vector<ValidationRow> drifted{{"ring", 2, 4096, 1.1e-6, 1e-6, 0.5}, {"tree", 4, 4096, 2e-6, 1e-6, 0.9}};
  const std::string none = results_markdown(drifted, "", 2);
  CHECK_THAT(none, Catch::Contains("0 of 2 cases were measured within 25%: none, so no error is given"));
  CHECK_THAT(none, !Catch::Contains("| ranks | steady cases"));
}

TEST_CASE("the plot crosses the cases measured while the machine drifted, and its legend draws the shapes it uses") {
  const std::vector<ValidationRow> rows{{"ring", 2, 4096, 1.1e-6, 1e-6, 0.05}, {"tree", 2, 65536, 2e-6, 1e-6, 0.9},
                                        {"ring", 2, 65536, 3e-6, 2e-6, 0.4}};
  const std::string svg = plot_svg(rows, "t");
  std::size_t crosses = 0;
  for (auto at = svg.find("class=\"drifted\""); at != std::string::npos; at = svg.find("class=\"drifted\"", at + 1)) ++crosses;
  CHECK(crosses == 2);
  CHECK_THAT(svg, Catch::Contains("machine drifted &gt; 25%"));
  CHECK_THAT(svg, Catch::Contains("fill-opacity=\"0.6\""));  // P = 2's points show through each other
  // only circles (P = 2): no square in the legend, no line naming one
  CHECK_THAT(svg, !Catch::Contains("even P &gt; 2"));
  CHECK_THAT(svg, !Catch::Contains("<rect x=\"541"));
  const std::string steady = plot_svg({{"ring", 8, 4096, 1.1e-6, 1e-6, 0.05}}, "t");
  CHECK_THAT(steady, !Catch::Contains("drifted"));
  CHECK_THAT(steady, Catch::Contains("<rect x=\"541"));  // P = 8: open squares, in the legend too
}

TEST_CASE("the plot draws each executed case's fastest .. slowest iteration as a bar, where it has them") {
  const std::vector<ValidationRow> rows{{"ring", 2, 4096, 1.1e-6, 1e-6, 0.05}, {"tree", 2, 65536, 2e-5, 1e-5, 0.1}};
  const std::string svg = plot_svg(rows, "t", "x", "y", {{0.9e-6, 3e-6}, {0.8e-5, 1.2e-5}});
  std::size_t bars = 0;
  for (auto at = svg.find("class=\"spread\""); at != std::string::npos; at = svg.find("class=\"spread\"", at + 1)) ++bars;
  CHECK(bars == 2);
  CHECK_THAT(svg, Catch::Contains("ring P=2 4K: 900 ns .. 3 us"));
  CHECK_THAT(svg, Catch::Contains("bar: fastest .. slowest iteration"));
  CHECK_THAT(plot_svg(rows, "t"), !Catch::Contains("class=\"spread\""));  // a log's medians: no bars
  CHECK_THROWS_AS(plot_svg(rows, "t", "x", "y", {{1e-6, 2e-6}}), Error);
}

TEST_CASE("busbw against size: a measured and a predicted line per algorithm, a point per size") {
  const std::vector<ValidationRow> rows{{"ring", 8, 65536, 2e-5, 2.5e-5}, {"ring", 8, 1 << 20, 5e-5, 6e-5},
                                        {"ring", 8, 1 << 30, 5e-3, 5.5e-3}};
  const std::string svg = busbw_plot_svg(rows, Collective::allreduce, "t", "predicted", "measured");
  CHECK_THAT(svg, Catch::Contains("<polyline class=\"measured\""));
  CHECK_THAT(svg, Catch::Contains("<polyline class=\"predicted\""));
  std::size_t points = 0;
  for (auto at = svg.find("<circle class=\"measured\""); at != std::string::npos; at = svg.find("<circle class=\"measured\"", at + 1))
    ++points;
  CHECK(points == 3);
  // 1 GiB in 5.5 ms on 8 ranks: algbw 195.2 GB/s, busbw x 2(P-1)/P = 341.6 GB/s
  CHECK_THAT(svg, Catch::Contains("ring 1G: measured 342 GB/s, predicted 376 GB/s"));
}

TEST_CASE("the report shows the host's issue of the cuda backend size by size, against the time and the model") {
  // Two cases at 4 KiB: 112 transfers issued in 560 us of 600 (host-bound), model 5 us a
  // transfer; one at 1 MiB: 112 transfers in 560 us of 2 ms (the GPU's work).
  std::vector<ValidationRow> rows{{"ring", 8, 4096, 500e-6, 600e-6}, {"ring", 8, 4096, 500e-6, 600e-6},
                                  {"ring", 8, 1 << 20, 1.5e-3, 2e-3}};
  for (ValidationRow& r : rows) {
    r.transfers = 112;
    r.measured_issue_s = 560e-6;
    r.model_issue_s = 112 * 5e-6;
  }
  const std::string csv = results_csv(rows);
  CHECK_THAT(csv, Catch::StartsWith("algorithm,ranks,bytes,predicted_s,measured_median_s,error_pct,transfers,"
                                    "measured_issue_s,model_issue_s\n"));
  CHECK_THAT(csv, Catch::Contains(",112,5.600000e-04,5.600000e-04\n"));
  const std::string md = results_markdown(rows, "", 2);
  CHECK_THAT(md, Catch::Contains("## The host's issue"));
  CHECK_THAT(md, Catch::Contains("| 4K | 2 | 600 us | 560 us | 93% | 5 us | 5 us |"));
  CHECK_THAT(md, Catch::Contains("| 1M | 1 | 2 ms | 560 us | 28% | 5 us | 5 us |"));
  // Rows without the issue timed (the CPU backends): no columns, no section.
  std::vector<ValidationRow> cpu{{"ring", 2, 4096, 1e-5, 1e-5}};
  CHECK_THAT(results_csv(cpu), Catch::StartsWith("algorithm,ranks,bytes,predicted_s,measured_median_s,error_pct\n"));
  CHECK_THAT(results_markdown(cpu, "", 2), !Catch::Contains("host's issue"));
}
