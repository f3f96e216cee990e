// tests/sim/test_reduction_factors.cpp — a cluster's reduction factors (Topology::
// reduction_factors): a reduction of b bytes takes gamma x the factor of its size's row per
// byte, in every engine; with the ranks' memory modelled, no faster than 3 / memory bandwidth.
// Held to: the reader checks the table; a naive allreduce on two ranks (one message, one
// reduction, one message) equals its sum by hand with the factor, in the analytic, flow and
// SimGrid engines, with and without memory; a table of ones changes nothing; a streamed ring
// equals the held one with factors.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "collectives/algorithm.hpp"
#include "collectives/transfer_stream.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/cost_rule.hpp"
#include "sim/flow_engine.hpp"
#include "topologies/cluster_config.hpp"
#include "tests/support/engine_times.hpp"
#include "tests/support/one_message.hpp"
#ifdef COLLSIM_HAVE_SIMGRID
#include "sim/simgrid_engine.hpp"
#endif

using namespace collsim;
using collsim::test::route_between;
constexpr auto allreduce = collsim::test::allreduce_schedule;


namespace {

constexpr double kGamma = 1e-10;
// In cache (below 1 MiB) a reduction takes 0.4 gamma per byte, from 1 MiB on 5 gamma (slower
// than the links, so that a pipelined ring's reductions show).
constexpr const char* kFactors = "reduction_factors: [{from_bytes: 0, gamma: 0.4}, {from_bytes: 1M, gamma: 5}]\n";

ClusterConfig mesh(Rank ranks, const std::string& extra) {
  return parse_cluster_config(fmt::format("name: t\nlink_classes:\n  x: {{bandwidth_Bps: 5.0e+9, latency_s: 1.0e-7, "
                                          "alpha_s: 1.0e-6}}\ntopology: {{kind: full, endpoints: {}, link: x}}\n"
                                          "gamma_s_per_byte: {}\n{}",
                                          ranks, kGamma, extra),
                              "t.yaml");
}

// Every engine's time at this file's gamma.
std::vector<std::pair<std::string, double>> engine_times(const Schedule& s, const Topology& t) {
  return collsim::test::engine_times(s, t, kGamma);
}

}  // namespace

TEST_CASE("reduction factors are read by size and checked") {
  const ClusterConfig config = mesh(2, kFactors);
  const Topology& t = *config.topology;
  CHECK(t.reduction_factor_at(0) == 0.4);
  CHECK(t.reduction_factor_at((1 << 20) - 1) == 0.4);
  CHECK(t.reduction_factor_at(1 << 20) == 5);
  CHECK(mesh(2, "").topology->reduction_factor_at(4096) == 1);
  CHECK(reduction_s_per_byte(t, 0, kGamma, 4096) == Approx(0.4 * kGamma));
  CHECK(reduction_s_per_byte(t, 0, kGamma, 4 << 20) == Approx(5 * kGamma));
  CHECK_THROWS_WITH(mesh(2, "reduction_factors: [{from_bytes: 4K, gamma: 1}]\n"), Catch::Contains("start at from_bytes 0"));
  CHECK_THROWS_WITH(mesh(2, "reduction_factors: [{from_bytes: 0, gamma: 1}, {from_bytes: 0, gamma: 2}]\n"),
                    Catch::Contains("sorted"));
  CHECK_THROWS_WITH(mesh(2, "reduction_factors: [{from_bytes: 0, gamma: 0}]\n"), Catch::Contains("reduction_factors.gamma"));
  CHECK_THROWS_WITH(mesh(2, "reduction_factors: [{from_bytes: 0, gamma: 2.0e+4}]\n"), Catch::Contains("(0, 10000]"));
  CHECK_THROWS_WITH(mesh(2, "reduction_factors: [{from_bytes: 0}]\n"), Catch::Contains("gamma"));
  CHECK_THROWS_WITH(mesh(2, "reduction_factors: [{from_bytes: 0, gamma: 1, bandwidth: 2}]\n"), Catch::Contains("bandwidth"));
}

TEST_CASE("a naive allreduce on two ranks pays its reduction at its size's factor, in every engine") {
  // Rank 1 sends N to rank 0, which reduces N and sends N back: 2 messages and one reduction.
  // With memory, the reduction takes max(factor x gamma, 3 / memory) per byte alone.
  for (const std::string memory : {"", "memory_bandwidth_Bps: 2.0e+10\n"})
    for (std::uint64_t bytes : {std::uint64_t(64) << 10, std::uint64_t(4) << 20}) {
      const ClusterConfig config = mesh(2, kFactors + memory);
      const Topology& t = *config.topology;
      const LinkCost message = pair_cost(t, 1, 0, bytes);
      const double factor = bytes < (1 << 20) ? 0.4 : 5;
      const double per_byte = memory.empty() ? factor * kGamma : std::max(factor * kGamma, 3 / 2e10);
      const double by_hand = 2 * message.message_s(bytes) + double(bytes) * per_byte;
      for (const auto& [engine, time_s] : engine_times(allreduce("naive", 2, bytes), t)) {
        INFO(bytes << " bytes, " << (memory.empty() ? "no memory" : "memory") << ", engine " << engine);
        CHECK(time_s == Approx(by_hand).epsilon(engine == "simgrid" ? 1e-6 : 1e-9));
      }
    }
}

TEST_CASE("a table of reduction factors of one changes no engine's time") {
  const ClusterConfig plain = mesh(4, ""), ones = mesh(4, "reduction_factors: [{from_bytes: 0, gamma: 1}]\n");
  for (const char* algorithm : {"ring", "tree", "recursive-doubling"}) {
    const Schedule s = allreduce(algorithm, 4, 3 << 20);
    const auto a = engine_times(s, *plain.topology), b = engine_times(s, *ones.topology);
    for (std::size_t i = 0; i < a.size(); ++i) {
      INFO(algorithm << ", engine " << a[i].first);
      CHECK(a[i].second == b[i].second);
    }
  }
}

TEST_CASE("a reduction into data its rank has just sent takes the into-sent rows, in every engine") {
  // Recursive doubling on two ranks: an exchange of N, then each rank reduces what it received
  // into the buffer its partner has just read: 8 gamma per byte by the into-sent rows below
  // 1 MiB, where a reduction elsewhere would take 0.4 gamma.
  const std::string into_sent = "reduction_into_sent_factors: [{from_bytes: 0, gamma: 8}, {from_bytes: 1M, gamma: 6}]\n";
  for (std::uint64_t bytes : {std::uint64_t(64) << 10, std::uint64_t(4) << 20}) {
    const ClusterConfig config = mesh(2, kFactors + into_sent);
    const Topology& t = *config.topology;
    const double by_hand = pair_cost(t, 0, 1, bytes).message_s(bytes) + double(bytes) * kGamma * (bytes < (1 << 20) ? 8 : 6);
    for (const auto& [engine, time_s] : engine_times(allreduce("recursive-doubling", 2, bytes), t)) {
      INFO(bytes << " bytes, engine " << engine);
      CHECK(time_s == Approx(by_hand).epsilon(engine == "simgrid" ? 1e-6 : 1e-9));
    }
    // The ring on two ranks reduces into the chunk it did not send: the plain rows.
    const auto ring_with = engine_times(allreduce("ring", 2, bytes), t);
    const auto ring_without = engine_times(allreduce("ring", 2, bytes), *mesh(2, kFactors).topology);
    for (std::size_t i = 0; i < ring_with.size(); ++i) CHECK(ring_with[i].second == ring_without[i].second);
  }
  CHECK_THROWS_WITH(mesh(2, "reduction_into_sent_factors: [{from_bytes: 1K, gamma: 2}]\n"),
                    Catch::Contains("'reduction_into_sent_factors' must start at from_bytes 0"));
}

TEST_CASE("with reduction factors a streamed ring equals the held ring") {
  const ClusterConfig config = mesh(8, kFactors);
  for (std::uint64_t bytes : {std::uint64_t(64) << 10, std::uint64_t(64) << 20}) {
    ScheduleRequest r;
    r.ranks = 8;
    r.bytes = bytes;
    const double held = run_flow(generate_schedule("ring", r), *config.topology, kGamma).time_s;
    const double streamed = run_flow(*stream_ring(r), *config.topology, kGamma).time_s;
    INFO(bytes << " bytes");
    CHECK(streamed == Approx(held).epsilon(1e-12));
    CHECK(held != run_flow(generate_schedule("ring", r), *mesh(8, "").topology, kGamma).time_s);
  }
}
