// tests/collectives/test_explain.cpp — schedules run on strings reproduce the seeds' worked
// examples (collectives/explain.hpp; seed 002 for P = 4, seed 000 for P = 5).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/explain.hpp"
#include "tests/support/schedule_request.hpp"

using namespace collsim;

namespace {

using State = std::vector<std::vector<std::string>>;

Schedule generate(std::string_view algorithm, Collective collective, Rank ranks, std::uint64_t bytes,
                  std::uint32_t segments = 0, Rank root = 0) {
  ScheduleRequest request;
  request.collective = collective;
  request.ranks = ranks;
  request.bytes = bytes;
  request.segments = segments;
  request.root = root;
  return generate_schedule(algorithm, request);
}

// Seed 002: ring allreduce on 4 GPUs, the state after each step ([rank][chunk]).
const std::vector<State>& seed_002_states() {
  static const std::vector<State> states{
      // reduce-scatter step 0
      {{"a0", "b0", "c0", "d0d3"}, {"a1a0", "b1", "c1", "d1"}, {"a2", "b2b1", "c2", "d2"}, {"a3", "b3", "c3c2", "d3"}},
      // reduce-scatter step 1
      {{"a0", "b0", "c0c3c2", "d0d3"},
       {"a1a0", "b1", "c1", "d1d0d3"},
       {"a2a1a0", "b2b1", "c2", "d2"},
       {"a3", "b3b2b1", "c3c2", "d3"}},
      // reduce-scatter step 2
      {{"a0", "b0b3b2b1", "c0c3c2", "d0d3"},
       {"a1a0", "b1", "c1c0c3c2", "d1d0d3"},
       {"a2a1a0", "b2b1", "c2", "d2d1d0d3"},
       {"a3a2a1a0", "b3b2b1", "c3c2", "d3"}},
      // allgather step 0
      {{"a3a2a1a0", "b0b3b2b1", "c0c3c2", "d0d3"},
       {"a1a0", "b0b3b2b1", "c1c0c3c2", "d1d0d3"},
       {"a2a1a0", "b2b1", "c1c0c3c2", "d2d1d0d3"},
       {"a3a2a1a0", "b3b2b1", "c3c2", "d2d1d0d3"}},
      // allgather step 1
      {{"a3a2a1a0", "b0b3b2b1", "c0c3c2", "d2d1d0d3"},
       {"a3a2a1a0", "b0b3b2b1", "c1c0c3c2", "d1d0d3"},
       {"a2a1a0", "b0b3b2b1", "c1c0c3c2", "d2d1d0d3"},
       {"a3a2a1a0", "b3b2b1", "c1c0c3c2", "d2d1d0d3"}},
      // allgather step 2
      {{"a3a2a1a0", "b0b3b2b1", "c1c0c3c2", "d2d1d0d3"},
       {"a3a2a1a0", "b0b3b2b1", "c1c0c3c2", "d2d1d0d3"},
       {"a3a2a1a0", "b0b3b2b1", "c1c0c3c2", "d2d1d0d3"},
       {"a3a2a1a0", "b0b3b2b1", "c1c0c3c2", "d2d1d0d3"}},
  };
  return states;
}

// Index of the ring chunk (part of the data) a transfer's chunk is.
Rank part_index(const Schedule& s, ChunkId chunk) {
  const Rank p = s.info().ranks;
  for (Rank i = 0; i < p; ++i)
    if (s.chunks()[chunk] == part_of(s.info().data(), p, i)) return i;
  FAIL("chunk " << chunk << " is not one of the ring's parts");
  return p;
}

}  // namespace

TEST_CASE("explaining ring allreduce on 4 ranks reproduces seed 002 step by step", "[explain]") {
  const Explanation x = explain_schedule(generate("ring", Collective::allreduce, 4, 8));
  CHECK(x.element_names == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(x.initial == State{{"a0", "b0", "c0", "d0"}, {"a1", "b1", "c1", "d1"}, {"a2", "b2", "c2", "d2"},
                           {"a3", "b3", "c3", "d3"}});
  REQUIRE(x.steps.size() == 6);
  for (std::uint32_t s = 0; s < 6; ++s) {
    INFO("step " << s);
    CHECK(x.steps[s].step == s);
    CHECK(x.steps[s].phase == (s < 3 ? "reduce-scatter" : "allgather"));
    CHECK(x.steps[s].transfers.size() == 4);
    CHECK(x.steps[s].state == seed_002_states()[s]);
  }
}

TEST_CASE("explaining ring allreduce on 5 ranks follows seed 000's first-step tables", "[explain]") {
  const Rank p = 5;
  const Schedule s = generate("ring", Collective::allreduce, p, 10);
  const Explanation x = explain_schedule(s);
  REQUIRE(x.steps.size() == 2 * (p - 1));
  // Reduce-scatter, first iteration: GPU r sends chunk r and receives chunk r-1.
  // Allgather, first iteration: GPU r sends chunk r+1 and receives chunk r.
  for (const auto& [step, send_offset, phase] :
       {std::tuple<std::uint32_t, Rank, const char*>{0, 0, "reduce-scatter"}, {p - 1, 1, "allgather"}}) {
    const ExplainedStep& first = x.steps[step];
    CHECK(first.phase == phase);
    REQUIRE(first.transfers.size() == p);
    std::vector<Rank> sent(p, p), received(p, p);
    for (TransferId id : first.transfers) {
      const Transfer t = s.transfer(id);
      CHECK(t.dst == (t.src + 1) % p);
      CHECK(t.op == (step == 0 ? Op::reduce : Op::copy));
      sent[t.src] = part_index(s, t.src_chunk);
      received[t.dst] = part_index(s, t.dst_chunk);
    }
    for (Rank r = 0; r < p; ++r) {
      INFO(phase << ": GPU " << r);
      CHECK(sent[r] == (r + send_offset) % p);
      CHECK(received[r] == (r + send_offset + p - 1) % p);
    }
  }
}

TEST_CASE("explaining naive allreduce ends with every rank holding all four contributions", "[explain]") {
  const Explanation x = explain_schedule(generate("naive", Collective::allreduce, 4, 8));
  REQUIRE(x.element_names == std::vector<std::string>{"a"});
  REQUIRE(x.steps.size() == 6);
  CHECK(x.steps[2].state[0][0] == "a0a1a2a3");  // the root after accumulating
  CHECK(x.steps[2].phase == "reduce");
  CHECK(x.steps[3].phase == "broadcast");
  for (Rank r = 0; r < 4; ++r) {
    INFO("rank " << r);
    const std::string& cell = x.steps.back().state[r][0];
    CHECK(cell.size() == 8);
    CHECK(cell == "a0a1a2a3");
  }
}

TEST_CASE("explaining shows '-' for bytes that hold nothing yet", "[explain]") {
  const Explanation gather = explain_schedule(generate("ring", Collective::allgather, 4, 8));
  CHECK(gather.initial[0] == std::vector<std::string>{"a0", "-", "-", "-"});
  CHECK(gather.initial[2] == std::vector<std::string>{"-", "-", "c2", "-"});
  for (Rank r = 0; r < 4; ++r) CHECK(gather.steps.back().state[r] == std::vector<std::string>{"a0", "b1", "c2", "d3"});

  const Explanation broadcast = explain_schedule(generate("binomial", Collective::broadcast, 4, 8, 0, 2));
  CHECK(broadcast.initial[2] == std::vector<std::string>{"a2"});
  CHECK(broadcast.initial[0] == std::vector<std::string>{"-"});
  for (Rank r = 0; r < 4; ++r) CHECK(broadcast.steps.back().state[r] == std::vector<std::string>{"a2"});
}

TEST_CASE("explaining names the phases a step belongs to, joined when they overlap", "[explain]") {
  // Tree on 4 ranks, 2 segments: height 2, reduce in steps 0-2, broadcast in steps 2-4.
  const Explanation x = explain_schedule(generate("tree", Collective::allreduce, 4, 8, 2));
  REQUIRE(x.steps.size() == 5);
  CHECK(x.steps[0].phase == "reduce");
  CHECK(x.steps[2].phase == "reduce + broadcast");
  CHECK(x.steps[4].phase == "broadcast");
  CHECK(x.element_names == std::vector<std::string>{"a", "b"});
  for (Rank r = 0; r < 4; ++r)
    for (const std::string& cell : x.steps.back().state[r]) CHECK(cell.size() == 8);  // four contributions
}

TEST_CASE("describe_chunk names chunks by their element letters", "[explain]") {
  const Schedule ring = generate("ring", Collective::allreduce, 4, 8);
  const Explanation rx = explain_schedule(ring);
  for (ChunkId c = 0; c < ring.chunks().size(); ++c) {
    const Rank i = part_index(ring, c);
    CHECK(describe_chunk(ring, rx, c) == "chunk " + std::to_string(i) + " (" + rx.element_names[i] + ")");
  }

  const Schedule halving = generate("rabenseifner", Collective::allreduce, 4, 8);
  const Explanation hx = explain_schedule(halving);
  for (ChunkId c = 0; c < halving.chunks().size(); ++c) {
    const ByteRange range = halving.chunks()[c];
    if (range == ByteRange{0, 8}) CHECK(describe_chunk(halving, hx, c) == "all chunks");
    if (range == ByteRange{4, 4}) CHECK(describe_chunk(halving, hx, c) == "chunks 2-3 (c..d)");
  }

  const Schedule tree = generate("tree", Collective::allreduce, 2, 8, 1);
  const Explanation tx = explain_schedule(tree);
  bool staged = false;
  for (ChunkId c = 0; c < tree.chunks().size(); ++c)
    if (tree.chunks()[c].offset >= 8) {
      CHECK(describe_chunk(tree, tx, c) == "staged chunk 0 (a)");
      staged = true;
    }
  CHECK(staged);
}

TEST_CASE("explain refuses more than 32 ranks or more than 52 named chunks", "[explain]") {
  CHECK_NOTHROW(explain_schedule(generate("ring", Collective::allreduce, 32, 64)));
  CHECK_THROWS_AS(explain_schedule(generate("ring", Collective::allreduce, 33, 64)), Error);
  CHECK_THROWS_WITH(explain_schedule(generate("ring", Collective::allreduce, 33, 64)),
                    Catch::Contains("at most 32 ranks") && Catch::Contains("33"));
  CHECK_THROWS_WITH(explain_schedule(generate("tree", Collective::allreduce, 4, 6000, 60)),
                    Catch::Contains("at most 52"));
}

TEST_CASE("explain lists each channel's rank order, rotated within nodes, and leaves them out for one channel") {
  const Explanation x = explain_schedule(generate_schedule("ring", test::allreduce_request(4, 16, 2, 2)));
  REQUIRE(x.channel_orders.size() == 2);
  CHECK(x.channel_orders[0] == std::vector<Rank>{0, 1, 2, 3});
  CHECK(x.channel_orders[1] == std::vector<Rank>{1, 0, 3, 2});
  CHECK(explain_schedule(generate_schedule("ring", test::allreduce_request(4, 16, 1, 2))).channel_orders.empty());
}
