// bench/bench_flow.cpp — the flow engine's speed and memory on one case per process:
// `bench_flow fat-tree|dragonfly ALGO P [BYTES]` (allreduce, default 1 GiB).
//   fat-tree:  3-level XGFT(3; m, m, P/m^2; 1, m, m), m = 8 (P=256), 16 (P=1024, 4096), 32 (P=16384);
//   dragonfly: p=8 a=16 h=8, g = P/128 groups (balanced, minimal routing).
// Links 50 GB/s (fat-tree) or 25 GB/s (dragonfly), 100-300 ns per hop, 2 us alpha; gamma 1e-11.
// Prints one line: transfers, generation and simulation seconds, simulated transfers per
// second, events, max-min solves, peak RSS and the predicted time. Rings from 8,192 ranks are
// streamed (collectives/transfer_stream.hpp), not held. Asserts nothing: the
// targets and figures live in docs/performance.md (bench/flow_report.sh runs the matrix).
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "bench/bench_util.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/error.hpp"
#include "collectives/units.hpp"
#include "sim/flow_engine.hpp"
#include "topologies/cluster_config.hpp"

namespace {

using namespace collsim;

std::string fabric_yaml(const std::string& kind, Rank p) {
  const std::string head = fmt::format("name: bench\nranks: {}\ngamma_s_per_byte: 1.0e-11\n", p);
  if (kind == "fat-tree") {
    const Rank m = p >= 16384 ? 32 : p >= 1024 ? 16 : 8;
    if (p % (m * m) != 0) throw Error(fmt::format("fat-tree: P must be a multiple of {}", m * m));
    return head + fmt::format("link_classes:\n  ndr: {{bandwidth_Bps: 50.0e+9, latency_s: 1.0e-7, alpha_s: 2.0e-6}}\n"
                              "topology: {{kind: xgft, m: [{}, {}, {}], w: [1, {}, {}], link: ndr}}\n",
                              m, m, p / (m * m), m, m);
  }
  if (kind == "dragonfly") {
    if (p % 128 != 0) throw Error("dragonfly: P must be a multiple of 128 (p=8 x a=16 per group)");
    return head + fmt::format("link_classes:\n  e: {{bandwidth_Bps: 25.0e+9, latency_s: 1.0e-7, alpha_s: 2.0e-6}}\n"
                              "  o: {{bandwidth_Bps: 25.0e+9, latency_s: 3.0e-7, alpha_s: 2.0e-6}}\n"
                              "topology: {{kind: dragonfly, p: 8, a: 16, h: 8, g: {}, arrangement: absolute, "
                              "terminal_link: e, local_link: e, global_link: o}}\n",
                              p / 128);
  }
  throw Error("usage: bench_flow fat-tree|dragonfly ALGO P [BYTES]");
}

// From 8,192 ranks a ring is too large to hold (537 M transfers at 16,384): stream it.
int streamed_ring(const std::string& kind, const ScheduleRequest& r, const ClusterConfig& c) {
  const auto stream = stream_ring(r);
  const auto progress = [](const std::string& line) { fmt::print(stderr, "  {}\n", line); };
  FlowResult f;
  const double simulate_s =
      bench::seconds([&] { f = run_flow(*stream, *c.topology, c.cost.gamma_s_per_byte, progress); });
  fmt::print("{:<9} {:<18} P={:<6} {:>11} transfers  streamed, not held  simulate {:7.3f} s  {:6.2f} M transfers/s  "
             "{:>11} events  {:>10} solves  peak RSS {:6.0f} MiB  predicted {}\n",
             kind, "ring", r.ranks, stream->size(), simulate_s, double(stream->size()) / simulate_s / 1e6,
             f.events == 0 ? std::string("0 (shortcut)") : std::to_string(f.events), f.rate_solves,
             bench::peak_rss_mib(), format_seconds(f.time_s));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 4) throw Error("usage: bench_flow fat-tree|dragonfly ALGO P [BYTES]");
    const std::string kind = argv[1], algo = argv[2];
    ScheduleRequest r;
    r.ranks = Rank(std::stoul(argv[3]));
    r.bytes = argc > 4 ? parse_size(argv[4]) : (1ull << 30);
    const ClusterConfig c = parse_cluster_config(fabric_yaml(kind, r.ranks), "bench.yaml");
    if (algo == "ring" && r.ranks >= 8192) return streamed_ring(kind, r, c);
    Schedule s;
    const double generate_s = bench::seconds([&] { s = generate_schedule(algo, r); });
    FlowResult f;
    const double simulate_s = bench::seconds([&] { f = run_flow(s, *c.topology, c.cost.gamma_s_per_byte); });
    fmt::print("{:<9} {:<18} P={:<6} {:>11} transfers  generate {:7.3f} s  simulate {:7.3f} s  {:6.2f} M transfers/s  "
               "{:>11} events  {:>10} solves  peak RSS {:6.0f} MiB  predicted {}\n",
               kind, algo, r.ranks, s.size(), generate_s, simulate_s, double(s.size()) / simulate_s / 1e6, f.events,
               f.rate_solves, bench::peak_rss_mib(), format_seconds(f.time_s));
    std::fflush(stdout);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_flow: %s\n", e.what());
    return 2;
  }
}
