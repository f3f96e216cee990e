// bench/bench_flow.cpp — the flow engine's speed and memory on one case per process:
// `bench_flow fat-tree|dragonfly|dragonfly-shared|dragonfly-private ALGO P [BYTES]` (allreduce, default 1 GiB), on the fabrics
// of bench::fabric_yaml (bench/bench_util.hpp).
// Prints one line: transfers, generation and simulation seconds, simulated transfers per
// second, events, transfers on exclusive channels (the partial shortcut), max-min solves, peak
// RSS and the predicted time. Rings from 8,192 ranks, or any ring with BENCH_STREAM=1, are
// streamed (collectives/transfer_stream.hpp), not held. A run past a second shows a progress
// line on stderr (base/progress_line.hpp; COLLSIM_PROGRESS=0 silences it). Asserts nothing: the
// targets and figures live in docs/performance.md (bench/flow_report.sh runs the matrix).
#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/progress_line.hpp"
#include "base/units.hpp"
#include "bench/bench_util.hpp"
#include "collectives/algorithm.hpp"
#include "sim/flow_engine.hpp"
#include "topologies/cluster_config.hpp"

namespace {

using namespace collsim;

constexpr const char* kUsage = "usage: bench_flow fat-tree|dragonfly|dragonfly-shared|dragonfly-private ALGO P [BYTES]";

// From 8,192 ranks a ring is too large to hold (537 M transfers at 16,384): stream it.
int streamed_ring(const std::string& kind, const ScheduleRequest& r, const ClusterConfig& c) {
  const auto stream = stream_ring(r);
  FlowResult f;
  double simulate_s = 0;
  {
    ProgressLine line("bench_flow");
    FlowOptions options;
    options.progress = [&](std::uint64_t done, std::uint64_t total) {
      const double percent = 100.0 * double(done) / double(total);
      line.update(fmt::format("ring streamed: {:.0f}% of {} transfers", percent, total), 0, 1);
    };
    options.on_fallback = [&](const std::string& why) { line.update("ring streamed: " + why, 0, 1); };
    simulate_s = bench::seconds([&] { f = run_flow(*stream, *c.topology, c.cost.gamma_s_per_byte, options); });
  }
  fmt::print("{:<9} {:<18} P={:<6} {:>11} transfers  streamed, not held  simulate {:7.3f} s  {:6.2f} M transfers/s  "
             "{:>11} events  {:>11} exclusive  {:>10} solves  peak RSS {:6.0f} MiB  predicted {}\n",
             kind, "ring", r.ranks, stream->size(), simulate_s, double(stream->size()) / simulate_s / 1e6,
             f.events == 0 ? std::string("0 (shortcut)") : std::to_string(f.events), f.exclusive_transfers, f.rate_solves,
             bench::peak_rss_mib(), format_seconds(f.time_s));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const bench::Case bench_case = bench::parse_case(argc, argv, 1ull << 30, kUsage);
    const std::string& kind = bench_case.fabric;
    const std::string& algo = bench_case.algorithm;
    const ScheduleRequest& r = bench_case.request;
    const ClusterConfig c = parse_cluster_config(bench::fabric_yaml(kind, r.ranks, kUsage), "bench.yaml");
    if (algo == "ring" && (r.ranks >= 8192 || std::getenv("BENCH_STREAM"))) return streamed_ring(kind, r, c);
    Schedule s;
    FlowResult f;
    double generate_s = 0, simulate_s = 0;
    {
      // Two items on stderr after the first second: generating, then simulating (by transfers).
      ProgressLine line("bench_flow");
      line.update("generating " + algo, 0, 2);
      generate_s = bench::seconds([&] { s = generate_schedule(algo, r); });
      FlowOptions options;
      options.progress = [&](std::uint64_t done, std::uint64_t total) {
        const double share = double(done) / double(total);
        line.update(fmt::format("simulating {} ({:.0f}% of {} transfers)", algo, 100 * share, total), 1 + share, 2);
      };
      line.update("simulating " + algo, 1, 2);
      simulate_s = bench::seconds([&] { f = run_flow(s, *c.topology, c.cost.gamma_s_per_byte, options); });
    }
    fmt::print("{:<9} {:<18} P={:<6} {:>11} transfers  generate {:7.3f} s  simulate {:7.3f} s  {:6.2f} M transfers/s  "
               "{:>11} events  {:>11} exclusive  {:>10} solves  peak RSS {:6.0f} MiB  predicted {}\n",
               kind, algo, r.ranks, s.size(), generate_s, simulate_s, double(s.size()) / simulate_s / 1e6, f.events,
               f.exclusive_transfers, f.rate_solves, bench::peak_rss_mib(), format_seconds(f.time_s));
    std::fflush(stdout);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_flow: %s\n", e.what());
    return 2;
  }
}
