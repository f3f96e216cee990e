// bench/bench_simgrid.cpp — the flow engine and SimGrid side by side, one case per process:
// `bench_simgrid fat-tree|dragonfly ALGO P [BYTES]` (allreduce, default 64 MiB), on
// bench_flow's fabrics (bench::fabric_yaml, bench/bench_util.hpp).
// The schedule is generated once; each engine then runs in a forked child of its own
// (base/child_process.hpp), so wall time (fork to exit) and peak RSS are per engine (both
// children inherit the schedule). Prints one markdown table row (bench/simgrid_report.sh
// prints the header): scenario, P, transfers, flow wall s, flow peak RSS MB, simgrid wall s,
// simgrid peak RSS MB, simgrid / flow wall, both predicted times and their relative
// difference. Progress goes to stderr. Asserts nothing: docs/performance.md holds the figures.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "base/child_process.hpp"
#include "base/error.hpp"
#include "base/units.hpp"
#include "bench/bench_util.hpp"
#include "collectives/algorithm.hpp"
#include "sim/flow_engine.hpp"
#include "sim/simgrid_engine.hpp"
#include "topologies/cluster_config.hpp"

namespace {

using namespace collsim;

constexpr const char* kUsage = "usage: bench_simgrid fat-tree|dragonfly ALGO P [BYTES]";

struct EngineRun {
  double time_s = 0, wall_s = 0, peak_rss_mib = 0;
};

// The flow engine in a child of its own, measured as the SimGrid engine measures its child.
EngineRun run_flow_in_child(const Schedule& s, const ClusterConfig& c) {
  const ChildOutcome child = run_in_child(
      [&](int fd) {
        const double time_s = run_flow(s, *c.topology, c.cost.gamma_s_per_byte).time_s;
        write_all(fd, &time_s, sizeof time_s);
      },
      true);
  if (!child.succeeded() || child.output.size() != sizeof(double))
    throw Error("flow engine run failed: " + child.failure());
  EngineRun run;
  std::memcpy(&run.time_s, child.output.data(), sizeof(double));
  run.wall_s = child.wall_s;
  run.peak_rss_mib = child.peak_rss_mib;
  return run;
}

EngineRun run_simgrid_engine(const Schedule& s, const ClusterConfig& c) {
  const SimgridResult r = run_simgrid(s, *c.topology, c.cost.gamma_s_per_byte);
  return {r.time_s, r.wall_s, r.peak_rss_mib};
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const bench::Case bench_case = bench::parse_case(argc, argv, 64ull << 20, kUsage);
    const std::string& kind = bench_case.fabric;
    const std::string& algo = bench_case.algorithm;
    const ScheduleRequest& r = bench_case.request;
    const ClusterConfig c = parse_cluster_config(bench::fabric_yaml(kind, r.ranks, kUsage), "bench.yaml");
    const Schedule s = generate_schedule(algo, r);
    const std::string scenario = fmt::format("{} {} {}", kind, algo, format_size(r.bytes));
    fmt::print(stderr, "bench_simgrid: {} P={}: {} transfers; flow engine...\n", scenario, r.ranks, s.size());
    const EngineRun flow = run_flow_in_child(s, c);
    fmt::print(stderr, "bench_simgrid: {} P={}: flow {:.3f} s; SimGrid...\n", scenario, r.ranks, flow.wall_s);
    const EngineRun sg = run_simgrid_engine(s, c);
    fmt::print(stderr, "bench_simgrid: {} P={}: SimGrid {:.3f} s\n", scenario, r.ranks, sg.wall_s);
    fmt::print("| {} | {} | {} | {:.3f} | {:.0f} | {:.3f} | {:.0f} | {:.0f}x | {:.9g} | {:.9g} | {:.1e} |\n", scenario,
               r.ranks, s.size(), flow.wall_s, flow.peak_rss_mib, sg.wall_s, sg.peak_rss_mib, sg.wall_s / flow.wall_s,
               flow.time_s, sg.time_s, std::abs(sg.time_s - flow.time_s) / flow.time_s);
    std::fflush(stdout);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_simgrid: %s\n", e.what());
    return 2;
  }
}
