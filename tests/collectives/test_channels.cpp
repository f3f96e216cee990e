// tests/collectives/test_channels.cpp — channels (collectives/algorithms/channels.hpp): C
// instances of ring, tree, two-tree or nccl-tree on disjoint parts of the buffer (a ring
// allgather or reduce-scatter: of every rank's block), each over its own rank order, are
// proved by the checker for P = 1..16, C = 1..4 and nodes of 2, 4 and 8 ranks;
// one channel is the algorithm's own schedule; orders rotate within nodes so that every
// channel leaves a node through a different rank; each transfer stays in its channel's part;
// the size guard counts channels; bad requests are refused naming what would work.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/algorithms/channels.hpp"
#include "collectives/checker.hpp"
#include "collectives/schedule_json.hpp"
#include "tests/support/schedule_request.hpp"

using namespace collsim;
using algorithms::channel_of;
using algorithms::channel_order;

namespace {

const std::vector<std::string> kChannelled = {"ring", "tree", "two-tree", "nccl-tree"};  // allreduce

ScheduleRequest allreduce(Rank ranks, std::uint64_t bytes, std::uint32_t channels, Rank ranks_per_node = 0,
                          std::uint32_t segments = 0) {
  return test::allreduce_request(ranks, bytes, channels, ranks_per_node, segments);
}

// The checker's proof of `algorithm` run as `request` asks, in its channels.
void prove_in_channels(const std::string& algorithm, const ScheduleRequest& request) {
  const Schedule s = generate_schedule(algorithm, request);
  REQUIRE(s.info().channels == std::max<std::uint32_t>(request.channels, 1));
  REQUIRE(s.info().root == request.root);
  REQUIRE_NOTHROW(check_schedule(s));
}

}  // namespace

TEST_CASE("One channel, given or left at 0, is exactly the algorithm's own schedule") {
  for (const std::string& a : kChannelled)
    for (Rank p : {1u, 5u, 8u}) {
      INFO(a << " P=" << p);
      const Schedule plain = generate_schedule(a, allreduce(p, 4099, 0, 4));
      CHECK(generate_schedule(a, allreduce(p, 4099, 1, 4)) == plain);
      CHECK(plain.info().channels == 1);
    }
}

TEST_CASE("The checker proves ring, tree, two-tree and nccl-tree in 1 to 4 channels for P = 1..16 on nodes of 2, 4 and 8 ranks") {
  std::size_t proved = 0;
  for (const std::string& a : kChannelled)
    for (Rank g : {0u, 2u, 4u, 8u})
      for (Rank p = 1; p <= 16; ++p)
        for (std::uint32_t c = 1; c <= 4; ++c)
          for (std::uint64_t bytes : {0ull, 3ull, 1000ull, 4099ull})
            for (std::uint32_t segments : {0u, 3u}) {
              INFO(a << " P=" << p << " G=" << g << " C=" << c << " N=" << bytes << " S=" << segments);
              prove_in_channels(a, allreduce(p, bytes, c, g, segments));
              ++proved;
            }
  CHECK(proved == 4 * 4 * 16 * 4 * 4 * 2);
}

TEST_CASE("The checker proves ring allgather and reduce-scatter in 1 to 4 channels, each on its part of every rank's block") {
  std::size_t proved = 0;
  for (Collective collective : {Collective::allgather, Collective::reduce_scatter})
    for (Rank g : {0u, 2u, 4u, 8u})
      for (Rank p = 1; p <= 16; ++p)
        for (std::uint32_t c = 1; c <= 4; ++c)
          for (std::uint64_t per_rank : {0ull, 3ull, 1000ull})
            for (std::uint32_t segments : {0u, 3u}) {
              INFO(to_string(collective) << " P=" << p << " G=" << g << " C=" << c << " N=" << per_rank * p << " S=" << segments);
              ScheduleRequest r = allreduce(p, per_rank * p, c, g, segments);
              r.collective = collective;
              prove_in_channels("ring", r);
              ++proved;
            }
  CHECK(proved == 2 * 4 * 16 * 4 * 3 * 2);
}

TEST_CASE("The checker proves chain and tree broadcast and reduce in 1 to 4 channels, from any root") {
  std::size_t proved = 0;
  for (const std::string a : {"chain", "tree"})
    for (Collective collective : {Collective::broadcast, Collective::reduce})
      for (Rank g : {0u, 4u})
        for (Rank p = 1; p <= 12; ++p)
          for (std::uint32_t c = 1; c <= 4; ++c)
            for (Rank root : {0u, p / 2, p - 1})
              for (std::uint64_t bytes : {3ull, 4099ull}) {
                INFO(a << " " << to_string(collective) << " P=" << p << " G=" << g << " C=" << c << " root=" << root
                       << " N=" << bytes);
                ScheduleRequest r = allreduce(p, bytes, c, g, 3);
                r.collective = collective;
                r.root = root;
                prove_in_channels(a, r);
                ++proved;
              }
  CHECK(proved == 2 * 2 * 2 * 12 * 4 * 3 * 2);
}

TEST_CASE("A broadcast's channels each start at the root, whose place differs in their rotated orders") {
  // 8 ranks on nodes of 4, 2 channels: channel 1's order is 2 3 0 1 | 6 7 4 5, so root 5 sits at
  // position 5 in channel 0's and at position 4 in channel 1's; every first-step send is the root's.
  ScheduleRequest r = allreduce(8, 8192, 2, 4, 1);
  r.collective = Collective::broadcast;
  r.root = 5;
  const Schedule s = generate_schedule("chain", r);
  std::size_t first_step = 0;
  for (TransferId id = 0; id < s.size(); ++id)
    if (s.transfer(id).step == 0) {
      ++first_step;
      CHECK(s.transfer(id).src == 5);
    }
  CHECK(first_step == 2);  // one per channel
}

TEST_CASE("An allgather's channel c moves part c of every rank's block, as NCCL's channels do") {
  // 8 ranks on nodes of 4, 4 channels, 8 x 4096 bytes: each block of 4096 is cut into four
  // 1024-byte parts, and every transfer of channel c moves bytes of part c of some block.
  ScheduleRequest r = allreduce(8, 8 * 4096, 4, 4);
  r.collective = Collective::allgather;
  const Schedule s = generate_schedule("ring", r);
  const Schedule one = generate_schedule("ring", [&] {
    ScheduleRequest o = r;
    o.channels = 1;
    o.bytes = 8 * 1024;
    return o;
  }());
  std::vector<std::size_t> per_channel(4, 0);
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer t = s.transfer(id);
    const ByteRange chunk = s.chunks()[t.src_chunk];
    const std::uint32_t c = channel_of(s.info(), chunk.offset);
    REQUIRE(chunk.offset % 4096 / 1024 == c);                 // part c of its block
    REQUIRE((chunk.offset + chunk.bytes - 1) / 4096 == chunk.offset / 4096);  // within one block
    REQUIRE(channel_of(s.info(), s.chunks()[t.dst_chunk].offset) == c);
    ++per_channel[c];
  }
  for (std::size_t n : per_channel) CHECK(n == one.size());  // each channel is a whole instance
  // The moved bytes are the single channel's: (P - 1) blocks into every rank.
  std::uint64_t moved = 0;
  for (TransferId id = 0; id < s.size(); ++id) moved += s.transfer_bytes(id);
  CHECK(moved == 8ull * 7 * 4096);
}

TEST_CASE("Channel orders rotate every node's ranks by c G / C places") {
  CHECK(channel_order(8, 4, 2, 0) == std::vector<Rank>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(channel_order(8, 4, 2, 1) == std::vector<Rank>{2, 3, 0, 1, 6, 7, 4, 5});
  CHECK(channel_order(6, 4, 2, 1) == std::vector<Rank>{2, 3, 0, 1, 4, 5});  // the last node, of 2, rotates by 0
  CHECK(channel_order(5, 0, 3, 2) == std::vector<Rank>{0, 1, 2, 3, 4});    // no nodes: one order
}

TEST_CASE("With as many channels as ranks per node, every channel leaves and enters a node through its own rank") {
  const Rank g = 8, p = 32;
  std::set<Rank> leaving, entering;
  for (std::uint32_t c = 0; c < g; ++c) {
    const std::vector<Rank> order = channel_order(p, g, g, c);
    leaving.insert(order[g - 1] % g);  // node 0 -> node 1
    entering.insert(order[g] % g);
  }
  CHECK(leaving.size() == g);
  CHECK(entering.size() == g);
}

TEST_CASE("Every transfer of a channelled schedule stays in its channel's part of data and scratch") {
  for (const std::string& a : kChannelled) {
    INFO(a);
    const Schedule s = generate_schedule(a, allreduce(8, 10007, 3, 4));
    const Schedule one = generate_schedule(a, allreduce(8, 10007 / 3 + 1, 1, 4));  // channel 0's share
    std::vector<std::size_t> per_channel(3, 0);
    for (TransferId id = 0; id < s.size(); ++id) {
      const Transfer t = s.transfer(id);
      const std::uint32_t c = channel_of(s.info(), s.chunks()[t.src_chunk].offset);
      REQUIRE(channel_of(s.info(), s.chunks()[t.dst_chunk].offset) == c);
      ++per_channel[c];
    }
    CHECK(per_channel[0] == one.size());  // each channel is a whole instance
    CHECK(per_channel[1] == per_channel[0]);
    CHECK(per_channel[2] == per_channel[0]);
    CHECK(s.info().scratch_bytes == (a == "ring" ? 0u : a == "nccl-tree" ? 3u * 10007 : 2u * 10007));  // a slot per child
  }
}

TEST_CASE("The size guard counts every channel's instance") {
  const AlgorithmEntry& ring = find_algorithm("ring");
  const ScheduleSize one = estimated_size(ring, allreduce(64, 1 << 20, 1));
  const ScheduleSize four = estimated_size(ring, allreduce(64, 4 << 20, 4));
  CHECK(four.transfers == Approx(4 * one.transfers));
  CHECK(four.elements == Approx(4 * one.elements));
  // 4,096 ranks of ring fit once under 1e8 transfers at 1 slice a step, not in 4 channels.
  CHECK_NOTHROW(check_schedule_fits(ring, allreduce(4096, 4096, 1, 0, 1)));
  CHECK_THROWS_WITH(check_schedule_fits(ring, allreduce(4096, 4096 * 4, 4, 0, 1)), Catch::Contains("too large"));
}

TEST_CASE("Default segments are those of one channel's share") {
  const AlgorithmEntry& tree = find_algorithm("tree");
  CHECK(segments_for(tree, allreduce(8, 64 << 20, 1)) == 64);
  CHECK(segments_for(tree, allreduce(8, 64 << 20, 4)) == 16);
}

TEST_CASE("Channels are refused where they do not apply, naming the algorithms that take them") {
  CHECK_THROWS_WITH(generate_schedule("rabenseifner", allreduce(8, 1024, 2)),
                    Catch::Contains("does not run in channels") && Catch::Contains("ring, tree, two-tree"));
  ScheduleRequest gather = allreduce(8, 1024, 2);
  gather.collective = Collective::allgather;
  CHECK_NOTHROW(generate_schedule("ring", gather));
  gather.bytes = 1001;  // blocks of unequal size cannot be cut alike
  CHECK_THROWS_WITH(generate_schedule("ring", gather), Catch::Contains("multiple of the ranks (8)"));
  ScheduleRequest alltoall = allreduce(8, 1024, 2);
  alltoall.collective = Collective::alltoall;
  CHECK_THROWS_WITH(generate_schedule("pairwise", alltoall), Catch::Contains("does not run in channels"));
  CHECK_FALSE(algorithms::collective_runs_in_channels(Collective::alltoall));
  CHECK_THROWS_WITH(generate_schedule("ring", allreduce(8, 1024, kMaxChannels + 1)), Catch::Contains("more than the 64"));
  CHECK_NOTHROW(generate_schedule("rabenseifner", allreduce(8, 1024, 1)));
}

TEST_CASE("A channelled schedule survives its JSON file, and a file without channels loads as one channel") {
  const Schedule s = generate_schedule("two-tree", allreduce(8, 1000, 2, 4));
  const nlohmann::json j = schedule_to_json(s);
  CHECK(j.at("channels") == 2);
  CHECK(schedule_from_json(j) == s);
  const nlohmann::json plain = schedule_to_json(generate_schedule("ring", allreduce(4, 100, 1)));
  CHECK_FALSE(plain.contains("channels"));
  CHECK(schedule_from_json(plain).info().channels == 1);
  nlohmann::json bad = j;
  bad["channels"] = 0;
  CHECK_THROWS_WITH(schedule_from_json(bad), Catch::Contains("channels must be 1..64"));
}
