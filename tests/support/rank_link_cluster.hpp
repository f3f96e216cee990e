// tests/support/rank_link_cluster.hpp — what the tests of a rank's own link (its memory,
// tests/sim/test_rank_memory.cpp, or its core, test_rank_core.cpp) build on: a cluster of four
// link classes with a topology and one extra YAML line (the memory or the core), the 16-GPU
// nodes they share, a ring's predictions held and streamed, and two messages into one rank,
// the first reduced.
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

#include "collectives/schedule.hpp"
#include "sim/prediction.hpp"
#include "topologies/cluster_config.hpp"

namespace collsim::test {

// `extra`: YAML lines after gamma (the ranks' memory or core), or "" for none.
inline ClusterConfig rank_link_cluster(const std::string& topology, Rank ranks, const std::string& extra, double gamma) {
  return parse_cluster_config(fmt::format("name: t\nlink_classes:\n"
                                          "  a: {{bandwidth_Bps: 2.0e+9, latency_s: 3.0e-7, alpha_s: 1.0e-6}}\n"
                                          "  nv: {{bandwidth_Bps: 100.0e+9, latency_s: 0.0, alpha_s: 5.0e-7}}\n"
                                          "  pcie: {{bandwidth_Bps: 20.0e+9, latency_s: 2.0e-7, alpha_s: 0.0}}\n"
                                          "  ten: {{bandwidth_Bps: 10.0e+9, latency_s: 0.0, alpha_s: 0.0}}\n"
                                          "{}ranks: {}\ngamma_s_per_byte: {}\n{}",
                                          topology, ranks, gamma, extra),
                              "t.yaml");
}

inline const std::string kRankLinkNodes =
    "nodes: {count: 4, gpus_per_node: 4, switch: nvswitch, gpu_link: nv, nics_per_node: 1, nic_link: pcie}\n"
    "topology: {kind: star, link: a}\n";

// The flow engine's ring of `collective` on `c` at 1 MiB + 7 B and 16 MiB, held or streamed
// (a stream must give the held times, with the ranks' own links too).
inline std::vector<PredictionRecord> ring_predictions(const ClusterConfig& c, Collective collective,
                                                      Streaming streaming) {
  PredictionRequest r;
  r.algorithms = {"ring"};
  r.sizes = {(1 << 20) + 7, std::uint64_t(16) << 20};
  r.ranks = c.ranks;
  r.cost = c.cost;
  r.topology = c.topology;
  r.engine = EngineKind::flow;
  r.collective = collective;
  r.streaming = streaming;
  return predict(r);
}

// Rank 1 sends rank 0 two messages of `bytes` on their one channel: a reduction, then a copy
// into another chunk, which drains while rank 0 reduces the first.
inline Schedule reduction_beside_a_transfer(std::uint64_t bytes) {
  ScheduleInfo info;
  info.ranks = 2;
  info.bytes = 2 * bytes;
  Schedule s(info);
  const ChunkId first = s.add_chunk({0, bytes});
  const ChunkId second = s.add_chunk({bytes, bytes});
  s.append(1, first, 0, first, Op::reduce, 0, {});
  s.append(1, second, 0, second, Op::copy, 0, {});
  return s;
}

}  // namespace collsim::test
