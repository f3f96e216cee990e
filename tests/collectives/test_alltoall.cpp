// tests/collectives/test_alltoall.cpp — the all-to-all algorithms (linear, pairwise, bruck):
// what each rank sends and receives, in how many steps, and that the checker proves where
// every block lands (the P = 1..64 sweep of test_algorithms.cpp proves them all).
#include <catch2/catch.hpp>

#include <bit>
#include <map>
#include <string>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/checker.hpp"
#include "collectives/collective_spec.hpp"
#include "tests/support/editable_schedule.hpp"

using namespace collsim;

namespace {

Schedule alltoall(std::string_view algorithm, Rank p, std::uint64_t bytes) {
  ScheduleRequest r;
  r.collective = Collective::alltoall;
  r.ranks = p;
  r.bytes = bytes;
  return generate_schedule(algorithm, r);
}

struct Traffic {
  std::uint64_t sent = 0, received = 0, messages = 0;
};

std::map<Rank, Traffic> traffic_of(const Schedule& s) {
  std::map<Rank, Traffic> out;
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer t = s.transfer(id);
    if (t.is_local()) continue;
    out[t.src].sent += s.transfer_bytes(id);
    out[t.src].messages += 1;
    out[t.dst].received += s.transfer_bytes(id);
  }
  return out;
}

}  // namespace

TEST_CASE("alltoall's blocks: floor(N / P) bytes, the receive buffer after the data", "[alltoall]") {
  ScheduleInfo info;
  info.collective = Collective::alltoall;
  info.ranks = 4;
  info.bytes = 1003;
  CHECK(alltoall_block_bytes(info) == 250);
  CHECK(alltoall_send_block(info, 0, 3) == ByteRange{750, 250});
  CHECK(alltoall_receive_block(info, 2, 1) == ByteRange{1003 + 250, 250});
  const std::vector<ExpectedOutput> out = expected_output(info, 2);
  REQUIRE(out.size() == 4);
  CHECK(out[1].range == alltoall_receive_block(info, 2, 1));
  CHECK(out[1].source == 1);
  CHECK(out[1].source_offset == 500);  // rank 1's block for rank 2
}

TEST_CASE("linear and pairwise send P-1 blocks from every rank, pairwise one step at a time", "[alltoall]") {
  for (const char* algo : {"linear", "pairwise"})
    for (Rank p : {2u, 5u, 8u}) {
      const Schedule s = alltoall(algo, p, 64 * p);
      INFO(algo << " P=" << p);
      CHECK(s.size() == std::size_t(p) * p);  // P - 1 messages and one local copy per rank
      for (const auto& [rank, t] : traffic_of(s)) {
        CHECK(t.messages == p - 1);
        CHECK(t.sent == 64u * (p - 1));
        CHECK(t.received == 64u * (p - 1));
      }
      CHECK(s.step_count() == (std::string(algo) == "pairwise" ? p : 2u));
      CHECK_NOTHROW(check_schedule(s));
    }
}

TEST_CASE("bruck sends ceil(lg P) messages per rank, of the blocks whose index has bit k set", "[alltoall]") {
  for (Rank p : {2u, 3u, 4u, 7u, 8u, 16u, 33u}) {
    const Schedule s = alltoall("bruck", p, 16 * p);
    INFO("P=" << p);
    std::uint64_t blocks_per_rank = 0;
    for (Rank i = 1; i < p; ++i) blocks_per_rank += std::popcount(i);
    for (const auto& [rank, t] : traffic_of(s)) {
      CHECK(t.messages == ceil_log2(p));
      CHECK(t.sent == 16 * blocks_per_rank);
    }
    CHECK(s.step_count() == ceil_log2(p));
    CHECK_NOTHROW(check_schedule(s));
  }
}

TEST_CASE("an alltoall block delivered to the wrong rank's slot is refused by position", "[alltoall][positions]") {
  testing::Editable e = testing::take_apart(alltoall("pairwise", 4, 64));
  // Transfer P + 1 is rank 1's block for rank 2; send it rank 1's block for rank 3 instead.
  testing::Row& row = e.rows[5];
  REQUIRE(row.src == 1);
  REQUIRE(row.dst == 2);
  row.src_chunk = 0 + 2 * 3;  // send blocks and receive blocks alternate in the chunk table
  std::string message;
  try {
    (void)check_schedule(testing::put_together(e));
  } catch (const Error& error) {
    message = error.what();
  }
  INFO(message);
  CHECK(message.find("misplaced") != std::string::npos);
  CHECK(message.find("last written by transfer 5") != std::string::npos);
}

TEST_CASE("an alltoall schedule without room for its receive buffer is refused", "[alltoall]") {
  testing::Editable e = testing::take_apart(alltoall("linear", 4, 64));
  e.info.scratch_bytes = 32;
  CHECK_THROWS_WITH(check_schedule(testing::put_together(e)), Catch::Contains("receive buffer"));
}

TEST_CASE("rail-alltoall keeps every inter-node byte on one rail, in M-1 messages of G blocks per rank",
          "[alltoall][rail-alltoall]") {
  for (Rank g : {1u, 2u, 3u, 4u, 8u})
    for (Rank m : {1u, 2u, 3u, 5u}) {
      const Rank p = g * m;
      constexpr std::uint64_t kBlock = 64;
      ScheduleRequest r;
      r.collective = Collective::alltoall;
      r.ranks = p;
      r.bytes = kBlock * p + p - 1;  // blocks of floor(N / P) = kBlock, P - 1 bytes left over
      r.ranks_per_node = g;
      const Schedule s = generate_schedule("rail-alltoall", r);
      INFO("G=" << g << " M=" << m);
      std::map<Rank, Traffic> inside, across;
      for (TransferId id = 0; id < s.size(); ++id) {
        const Transfer t = s.transfer(id);
        if (t.is_local()) continue;
        const bool same_node = t.src / g == t.dst / g;
        if (!same_node) CHECK(t.src % g == t.dst % g);  // the rail's two NICs
        CHECK(t.step == (same_node ? 0u : 1u));
        Traffic& out = (same_node ? inside : across)[t.src];
        out.sent += s.transfer_bytes(id);
        out.messages += 1;
      }
      for (Rank rank = 0; rank < p; ++rank) {
        // (G-1) M blocks to the node's other ranks, then one message of G blocks per other node.
        CHECK(inside[rank].messages == (g - 1) * m);
        CHECK(inside[rank].sent == kBlock * (g - 1) * m);
        CHECK(across[rank].messages == m - 1);
        CHECK(across[rank].sent == kBlock * g * (m - 1));
      }
      CHECK_NOTHROW(check_schedule(s));
    }
}

TEST_CASE("rail-alltoall is refused without whole nodes, saying what to use", "[alltoall][rail-alltoall]") {
  ScheduleRequest r;
  r.collective = Collective::alltoall;
  r.ranks = 12;
  r.bytes = 1200;
  CHECK_THROWS_WITH(generate_schedule("rail-alltoall", r),
                    Catch::Contains("--ranks-per-node") && Catch::Contains("pairwise"));
  r.ranks_per_node = 8;
  CHECK_THROWS_WITH(generate_schedule("rail-alltoall", r),
                    Catch::Contains("12 ranks are not a whole number of nodes of 8") && Catch::Contains("pairwise"));
  // "all" leaves it out there, and lists it on whole nodes.
  CHECK(expand_algorithm_names({"all"}, Collective::alltoall, 12, 8) ==
        std::vector<std::string>{"linear", "pairwise", "bruck"});
  CHECK(expand_algorithm_names({"all"}, Collective::alltoall, 16, 8).back() == "rail-alltoall");
}
