// bench/bench_topology.cpp — building and routing a 16,384-endpoint fabric: time and memory.
// `bench_topology fat-tree|dragonfly [minimal|ecmp|valiant]`, one fabric per process (peak
// RSS is per process):
//   fat-tree:  XGFT(3; 32,32,16; 1,32,32), 16,384 hosts, 1,536 switches of 64 ports;
//   dragonfly: p=8 a=16 h=8 g=128 (balanced a = 2p = 2h), 16,384 terminals, 2,048 routers.
// "Needed" routes are the distinct (src, dst) pairs of ring, recursive-doubling (the same
// partners as Rabenseifner's halving and doubling on 2^k ranks) and two-tree allreduce on
// all endpoints; they are routed and stored (links in one array, CSR). Then every destination from 64 sources is routed to measure the cost per
// route and extrapolate to all P^2 pairs. Prints figures, asserts nothing: targets live in
// the README.
#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/progress_line.hpp"
#include "bench/bench_util.hpp"
#include "collectives/algorithm.hpp"
#include "topologies/builders/builders.hpp"

namespace {

using namespace collsim;

using bench::peak_rss_mib;
using bench::seconds;

Fabric build(Network& net, const std::string& kind, RoutingMode mode) {
  if (kind == "fat-tree") {
    const LinkClassId ndr = net.add_link_class({"ib-ndr", 50e9, 100e-9, 0});
    return build_xgft(net, {{32, 32, 16}, {1, 32, 32}, {ndr, ndr, ndr}, {}}, mode, 1);
  }
  if (kind == "dragonfly") {
    const LinkClassId electrical = net.add_link_class({"electrical", 25e9, 100e-9, 0});
    const LinkClassId optical = net.add_link_class({"optical", 25e9, 300e-9, 0});
    DragonflyParams p{8, 16, 8, 128, GlobalArrangement::absolute, electrical, electrical, optical};
    return build_dragonfly(net, p, mode, 1);
  }
  throw Error("usage: bench_topology fat-tree|dragonfly [minimal|ecmp|valiant]");
}

// Distinct (src, dst) rank pairs of the allreduce algorithms on P ranks.
std::vector<std::pair<Rank, Rank>> needed_pairs(Rank ranks) {
  std::unordered_set<std::uint64_t> seen;
  for (Rank r = 0; r < ranks; ++r) seen.insert((std::uint64_t(r) << 32) | ((r + 1) % ranks));  // ring
  for (const char* algo : {"recursive-doubling", "two-tree"}) {
    ScheduleRequest req;
    req.ranks = ranks;
    req.bytes = 1 << 20;
    const Schedule s = generate_schedule(algo, req);
    for (TransferId t = 0; t < s.size(); ++t) {
      const Transfer x = s.transfer(t);
      if (!x.is_local()) seen.insert((std::uint64_t(x.src) << 32) | x.dst);
    }
  }
  std::vector<std::pair<Rank, Rank>> pairs;
  for (std::uint64_t key : seen) pairs.emplace_back(Rank(key >> 32), Rank(key & 0xffffffffu));
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string kind = argc > 1 ? argv[1] : "";
    const RoutingMode mode = argc > 2 ? parse_routing_mode(argv[2]) : RoutingMode::minimal;
    Network net;
    Fabric fabric;
    // Three items on stderr after the first second: build, route the needed pairs, sweep.
    ProgressLine line("bench_topology");
    line.update("building " + kind, 0, 3);
    const double build_s = seconds([&] {
      fabric = build(net, kind, mode);
      net.finalize();
    });
    line.clear();
    fmt::print("{}\n  {} vertices, {} directed links; build + finalize {:.3f} s, peak RSS {:.0f} MiB\n",
               fabric.summary, net.vertex_count(), net.link_count(), build_s, peak_rss_mib());

    const Rank ranks = Rank(fabric.endpoints.size());
    std::vector<std::pair<Rank, Rank>> pairs;
    line.update("routing the needed pairs", 1, 3);
    const double pairs_s = seconds([&] { pairs = needed_pairs(ranks); });
    std::vector<std::uint32_t> offsets{0};
    std::vector<LinkId> links;
    const double route_s = seconds([&] {
      for (const auto& [src, dst] : pairs) {
        fabric.router->route(fabric.endpoints[src], fabric.endpoints[dst], 0, links);
        offsets.push_back(std::uint32_t(links.size()));
      }
    });
    line.clear();
    fmt::print("  needed routes ({} routing): {} pairs (ring, recursive doubling/Rabenseifner, two-tree; "
               "found in {:.2f} s), routed in {:.3f} s, {} links stored ({:.1f} MiB), peak RSS {:.0f} MiB\n",
               to_string(mode), pairs.size(), pairs_s, route_s, links.size(),
               double(links.size() * sizeof(LinkId) + offsets.size() * 4) / (1 << 20), peak_rss_mib());

    constexpr Rank kSources = 64;
    std::vector<LinkId> scratch;
    std::size_t hops = 0;
    const double sweep_s = seconds([&] {
      for (Rank s = 0; s < kSources; ++s) {
        line.update(fmt::format("routing to all destinations from source {} of {}", s, kSources), 2 + double(s) / kSources, 3);
        for (Rank d = 0; d < ranks; ++d) {
          scratch.clear();
          fabric.router->route(fabric.endpoints[s * (ranks / kSources)], fabric.endpoints[d], d, scratch);
          hops += scratch.size();
        }
      }
    });
    line.clear();
    const double per_route_ns = sweep_s / (double(kSources) * ranks) * 1e9;
    fmt::print("  all destinations from {} sources: {:.0f} ns per route, {:.2f} links per route; all {:.3g} pairs "
               "would take {:.1f} s (not stored)\n",
               kSources, per_route_ns, double(hops) / (double(kSources) * ranks), double(ranks) * ranks,
               per_route_ns * 1e-9 * double(ranks) * ranks);
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_topology: {}\n", e.what());
    return 2;
  }
}
