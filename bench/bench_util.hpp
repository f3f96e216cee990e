// bench/bench_util.hpp — what every benchmark measures: wall time of a step and the
// process's peak resident memory (VmHWM, so run one case per process); and the fabrics the
// engine benchmarks run on (bench_flow, bench_simgrid).
#pragma once

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/schedule.hpp"

namespace collsim::bench {

inline double peak_rss_mib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB -> MiB
  return -1;
}

template <class F>
double seconds(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One benchmark case from `BENCH FABRIC ALGO P [BYTES]`: allreduce of BYTES (default
// `default_bytes`) per rank on P ranks of FABRIC.
struct Case {
  std::string fabric, algorithm;
  ScheduleRequest request;
};

inline Case parse_case(int argc, char** argv, std::uint64_t default_bytes, const std::string& usage) {
  if (argc < 4) throw Error(usage);
  Case c{argv[1], argv[2], {}};
  c.request.ranks = Rank(std::stoul(argv[3]));
  c.request.bytes = argc > 4 ? parse_size(argv[4]) : default_bytes;
  return c;
}

// A dragonfly of p terminals per router, a routers per group, h global links per router and
// g groups; 25 GB/s links, 100 ns local / 300 ns global, alpha 2 us.
inline std::string dragonfly_yaml(Rank p, Rank a, Rank h, Rank g) {
  return fmt::format("link_classes:\n  e: {{bandwidth_Bps: 25.0e+9, latency_s: 1.0e-7, alpha_s: 2.0e-6}}\n"
                     "  o: {{bandwidth_Bps: 25.0e+9, latency_s: 3.0e-7, alpha_s: 2.0e-6}}\n"
                     "topology: {{kind: dragonfly, p: {}, a: {}, h: {}, g: {}, arrangement: absolute, "
                     "terminal_link: e, local_link: e, global_link: o}}\n",
                     p, a, h, g);
}

// The benchmark fabrics as a cluster YAML, linear placement, minimal routing, gamma 1e-11:
//   fat-tree:  3-level XGFT(3; m, m, P/m^2; 1, m, m), m = 8 (P < 1024), 16 (P < 16384), 32;
//              links 50 GB/s, 100 ns, alpha 2 us;
//   dragonfly: p=8 a=16 h=8, g = max(2, P/128) groups (absolute arrangement; P = 64 fills
//              half of the first group); 25 GB/s, 100 ns local / 300 ns global, alpha 2 us;
//   dragonfly-shared / dragonfly-private (P = 4096 or 16384): the same links, with g = a*h
//              (p=8 a=8 h=8 g=64; p=8 a=16 h=8 g=128) or fewer groups (p=8 a=16 h=8 g=32;
//              p=16 a=16 h=8 g=64).
inline std::string fabric_yaml(const std::string& kind, Rank p, const std::string& usage) {
  const std::string head = fmt::format("name: bench\nranks: {}\ngamma_s_per_byte: 1.0e-11\n", p);
  if (kind == "fat-tree") {
    const Rank m = p >= 16384 ? 32 : p >= 1024 ? 16 : 8;
    if (p % (m * m) != 0) throw Error(fmt::format("fat-tree: P must be a multiple of {}", m * m));
    return head + fmt::format("link_classes:\n  ndr: {{bandwidth_Bps: 50.0e+9, latency_s: 1.0e-7, alpha_s: 2.0e-6}}\n"
                              "topology: {{kind: xgft, m: [{}, {}, {}], w: [1, {}, {}], link: ndr}}\n",
                              m, m, p / (m * m), m, m);
  }
  if (kind == "dragonfly") {
    if (p % 64 != 0) throw Error("dragonfly: P must be a multiple of 64");
    return head + dragonfly_yaml(8, 16, 8, std::max<Rank>(2, p / 128));
  }
  // The ring's sharing pair (bench/flow_report.sh): where g = a*h, the wrap-around pair's
  // route takes a local link that another ring pair takes too; "private" has as many
  // ranks with fewer groups than a*h, and no link two ring pairs share.
  if (kind == "dragonfly-shared" && (p == 4096 || p == 16384))
    return head + (p == 4096 ? dragonfly_yaml(8, 8, 8, 64) : dragonfly_yaml(8, 16, 8, 128));
  if (kind == "dragonfly-private" && (p == 4096 || p == 16384))
    return head + (p == 4096 ? dragonfly_yaml(8, 16, 8, 32) : dragonfly_yaml(16, 16, 8, 64));
  if (kind == "dragonfly-shared" || kind == "dragonfly-private") throw Error(kind + ": P must be 4096 or 16384");
  throw Error(usage);
}

}  // namespace collsim::bench
