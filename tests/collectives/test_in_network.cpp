// tests/collectives/test_in_network.cpp — in-network reduction in the IR (collectives/schedule.hpp):
// switch reducers beyond the P ranks accumulate reductions in any order, and the checker
// holds every read of their bytes (the multicast) after each reduction into them. nvls is
// proved for P = 1..16 and many sizes and segment counts; broken variants (a contribution
// reduced into the switch twice, a multicast that does not wait for every reduction, a local
// reduction on a switch) are caught; the builder infers no order among a switch's reductions;
// the JSON format, explain and the SVG name the switch.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/checker.hpp"
#include "collectives/draw_svg.hpp"
#include "collectives/explain.hpp"
#include "collectives/schedule_builder.hpp"
#include "collectives/schedule_json.hpp"
#include "tests/support/schedule_request.hpp"

using namespace collsim;

namespace {

ScheduleInfo two_ranks_one_switch(std::uint64_t bytes) {
  ScheduleInfo info;
  info.algorithm = "hand-made";
  info.ranks = 2;
  info.bytes = bytes;
  info.reducers = 1;
  return info;
}

// A hand-made schedule: both ranks reduce into the switch (id 2), then the switch copies the
// sum back to each; `deps` lists each multicast's dependencies (the reductions are 0 and 1).
Schedule by_hand(std::vector<TransferId> multicast_deps, bool reduce_rank0_twice = false) {
  Schedule s(two_ranks_one_switch(8));
  const ChunkId all = s.add_chunk({0, 8});
  s.append(0, all, 2, all, Op::reduce, 0, {});
  s.append(1, all, 2, all, Op::reduce, 0, {});
  std::vector<TransferId> deps = multicast_deps;
  if (reduce_rank0_twice) {
    s.append(0, all, 2, all, Op::reduce, 0, {});
    deps.push_back(2);
  }
  // Each multicast overwrites the rank's data, which the rank's own reduction read.
  std::vector<TransferId> to0 = deps, to1 = deps;
  to0.push_back(0);
  to1.push_back(1);
  std::sort(to0.begin(), to0.end());
  to0.erase(std::unique(to0.begin(), to0.end()), to0.end());
  std::sort(to1.begin(), to1.end());
  to1.erase(std::unique(to1.begin(), to1.end()), to1.end());
  s.append(2, all, 0, all, Op::copy, 1, to0);
  s.append(2, all, 1, all, Op::copy, 1, to1);
  return s;
}

}  // namespace

TEST_CASE("Reductions into a switch need no order among themselves, the multicast waits for all of them") {
  CHECK_NOTHROW(check_schedule(by_hand({0, 1})));
  CHECK(check_schedule(by_hand({0, 1})).exact);
}

TEST_CASE("A multicast that does not wait for every reduction into the switch is caught") {
  CHECK_THROWS_WITH(check_schedule(by_hand({0})),
                    Catch::Contains("reads bytes [0, 8) of switch reducer 2 before transfer 1") &&
                        Catch::Contains("multicast before every reduction"));
}

TEST_CASE("A contribution reduced into the switch twice is caught") {
  CHECK_THROWS_WITH(check_schedule(by_hand({0, 1}, true)),
                    Catch::Contains("reduces rank 0's contribution into bytes [0, 8) of rank 2 a second time"));
}

TEST_CASE("A switch has no local reductions, and transfers name ranks or reducers that exist") {
  Schedule local(two_ranks_one_switch(8));
  const ChunkId a = local.add_chunk({0, 4}), b = local.add_chunk({4, 4});
  local.append(2, a, 2, b, Op::reduce, 0, {});
  CHECK_THROWS_WITH(validate_structure(local), Catch::Contains("local to switch reducer 2"));
  Schedule beyond(two_ranks_one_switch(8));
  const ChunkId all = beyond.add_chunk({0, 8});
  beyond.append(0, all, 3, all, Op::reduce, 0, {});
  CHECK_THROWS_WITH(validate_structure(beyond), Catch::Contains("names rank 3 but the schedule has 2 ranks and 1 switch reducers"));
}

TEST_CASE("A copy into a switch still orders with the reductions around it") {
  Schedule s(two_ranks_one_switch(8));
  const ChunkId all = s.add_chunk({0, 8});
  s.append(0, all, 2, all, Op::copy, 0, {});
  s.append(1, all, 2, all, Op::reduce, 0, {});  // not after the copy: write after write
  CHECK_THROWS_WITH(check_schedule(s), Catch::Contains("write after write"));
}

TEST_CASE("The builder infers no dependency between two ranks' reductions into a switch, and the multicast's on both") {
  ScheduleBuilder builder(two_ranks_one_switch(8), {{0, 8}});
  const TransferId r0 = builder.send(0, 2, 0, Op::reduce, 0);
  const TransferId r1 = builder.send(1, 2, 0, Op::reduce, 0);
  const TransferId m0 = builder.send(2, 0, 0, Op::copy, 1);
  const Schedule s = std::move(builder).build();
  CHECK(s.transfer(r1).deps.empty());
  CHECK(s.transfer(r0).deps.empty());
  const auto deps = s.transfer(m0).deps;
  CHECK(std::vector<TransferId>(deps.begin(), deps.end()) == std::vector<TransferId>{r0, r1});
}

TEST_CASE("A planned transfer may follow another that shares a rank with it, named by its plan index") {
  // Flow control (PlannedTransfer::after): no byte orders rank 0's second reduction after the
  // sum it got back, only the plan does; the builder turns the plan index into a dependency.
  ScheduleInfo info = two_ranks_one_switch(8);
  std::vector<PlannedTransfer> plan = {
      {0, 0, 0, 2, 0, Op::reduce}, {0, 1, 0, 2, 0, Op::reduce}, {1, 2, 0, 0, 0, Op::copy},
      {2, 0, 1, 2, 1, Op::reduce}, {2, 1, 1, 2, 1, Op::reduce}, {3, 2, 1, 0, 1, Op::copy}};
  plan[3].after = 2;  // rank 0's reduction of the second half after the first half's sum came back
  ScheduleBuilder builder(info, {{0, 4}, {4, 4}});
  builder.add_in_step_order(plan);
  const Schedule s = std::move(builder).build();
  const auto deps = s.transfer(3).deps;
  CHECK(std::vector<TransferId>(deps.begin(), deps.end()) == std::vector<TransferId>{2});
  CHECK(s.transfer(4).deps.empty());  // rank 1's was not held back

  std::vector<PlannedTransfer> later = plan;
  later[0].after = 2;  // after a transfer of a later step
  ScheduleBuilder b2(info, {{0, 4}, {4, 4}});
  CHECK_THROWS_WITH(b2.add_in_step_order(later), Catch::Contains("ordered after a later step"));
  std::vector<PlannedTransfer> apart = plan;
  apart[4].after = 0;  // rank 1 after rank 0's reduction: no rank in common
  ScheduleBuilder b3(info, {{0, 4}, {4, 4}});
  CHECK_THROWS_WITH(b3.add_in_step_order(apart), Catch::Contains("shares no rank"));
}

TEST_CASE("The checker proves nvls for P = 1..16, sizes 0 to 4099 and 1 to 5 segments") {
  std::size_t proved = 0;
  for (Rank p = 1; p <= 16; ++p)
    for (std::uint64_t bytes : {0ull, 1ull, 3ull, 1000ull, 4099ull})
      for (std::uint32_t segments = 1; segments <= 5; ++segments) {
        INFO("P=" << p << " N=" << bytes << " S=" << segments);
        const Schedule s = generate_schedule("nvls", test::allreduce_request(p, bytes, 1, 0, segments));
        REQUIRE(s.info().reducers == 1);
        REQUIRE_NOTHROW(check_schedule(s));
        ++proved;
      }
  CHECK(proved == 16 * 5 * 5);
  // Above 64 ranks the checker signs contributions instead of listing them.
  CHECK_FALSE(check_schedule(generate_schedule("nvls", test::allreduce_request(100, 1000, 1, 0, 3))).exact);
}

TEST_CASE("nvls: each rank sends N + N/P bytes and receives N, in P (2P + 1) S transfers over S + 3 steps") {
  // NCCL's data path (nvls.cpp): every part reduced into the switch and its sum handed to its
  // owner (P parts up, one down), then the owner's write-back (one up) multicast to the others.
  const Rank p = 8;
  const std::uint64_t n = 8000;
  const std::uint32_t segments = 4;
  const Schedule s = generate_schedule("nvls", test::allreduce_request(p, n, 1, 0, segments));
  std::vector<std::uint64_t> sent(p + 1), received(p + 1);
  for (TransferId id = 0; id < s.size(); ++id) {
    sent[s.transfer(id).src] += s.transfer_bytes(id);
    received[s.transfer(id).dst] += s.transfer_bytes(id);
  }
  for (Rank r = 0; r < p; ++r) {
    CHECK(sent[r] == n + n / p);
    CHECK(received[r] == n);
  }
  CHECK(received[p] == p * n + n);  // the switch reduces every rank's N and takes the write-backs
  CHECK(s.size() == p * (2 * p + 1) * segments);
  CHECK(s.step_count() == segments + 3);
}

TEST_CASE("nvls: a GPU reduces into the switch at most two segments ahead of the sums it got back") {
  // Flow control as NCCL's bounded NVLS buffers: the reduction of segment k waits for the
  // sum of segment k - 2, so the write-backs are not queued behind the whole buffer.
  const Rank p = 4;
  const Schedule s = generate_schedule("nvls", test::allreduce_request(p, 4096, 1, 0, 6));
  std::size_t held = 0;
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer t = s.transfer(id);
    if (t.op != Op::reduce || t.step < 2) continue;
    bool after_sum = false;
    for (TransferId d : t.deps) {
      const Transfer sum = s.transfer(d);
      after_sum |= sum.src == p && sum.dst == t.src && sum.op == Op::copy && sum.step + 1 == t.step;
    }
    CHECK(after_sum);
    ++held;
  }
  CHECK(held == std::size_t(p) * p * 4);  // segments 2 .. 5
}

TEST_CASE("nvls runs only where the cluster's switches reduce, and on one node") {
  CHECK(find_algorithm("nvls").in_network == InNetwork::node_switch);
  CHECK(find_algorithm("nvls").runs_on(8, 8));
  CHECK_FALSE(find_algorithm("nvls").runs_on(16, 8));  // across nodes: nvls-tree's job
  const auto every = expand_algorithm_names({"all"}, Collective::allreduce, 8, 8);
  CHECK(std::find(every.begin(), every.end(), "nvls") == every.end());
  const auto reducing = expand_algorithm_names({"all"}, Collective::allreduce, 8, 8, {.node = true});
  CHECK(std::find(reducing.begin(), reducing.end(), "nvls") != reducing.end());
}

TEST_CASE("Schedule JSON keeps the reducers, and files without them load with none") {
  const Schedule s = generate_schedule("nvls", test::allreduce_request(4, 100, 1, 0, 2));
  const auto j = schedule_to_json(s);
  CHECK(j.at("reducers") == 1);
  CHECK(schedule_from_json(j) == s);
  auto bad = j;
  bad["reducers"] = 0;  // the switch's transfers now name a rank that does not exist
  CHECK_THROWS_WITH(schedule_from_json(bad), Catch::Contains("names rank 4 but the schedule has 4 ranks"));
  CHECK_FALSE(schedule_to_json(generate_schedule("ring", test::allreduce_request(4, 100, 1))).contains("reducers"));
}

TEST_CASE("explain shows the switch accumulating every rank's chunk and the SVG draws its row") {
  const Schedule s = generate_schedule("nvls", test::allreduce_request(3, 6, 1, 0, 1));
  const Explanation x = explain_schedule(s);
  REQUIRE(x.initial.size() == 4);  // three ranks and the switch
  CHECK(x.initial[3][0] == "-");
  CHECK(x.steps.front().state[3][0] == "a0a1a2");
  CHECK(x.steps.back().state[1][0] == "a0a1a2");
  CHECK(endpoint_name(s.info(), 3) == "switch 0");
  CHECK(endpoint_name(s.info(), 2) == "gpu 2");
  const std::string svg = schedule_svg(s);
  CHECK(svg.find(">switch 0</text>") != std::string::npos);
  CHECK(svg.find("class=\"switch-row\"") != std::string::npos);
}

TEST_CASE("The checker proves nvls-tree for 1 to 16 nodes of 1, 2, 4 and 8 ranks, sizes 0 to 4099, 1 to 4 segments") {
  std::size_t proved = 0;
  for (Rank g : {1u, 2u, 4u, 8u})
    for (Rank m = 1; m <= 16; ++m)
      for (std::uint64_t bytes : {0ull, 3ull, 1000ull, 4099ull})
        for (std::uint32_t segments = 1; segments <= 4; ++segments) {
          INFO("G=" << g << " M=" << m << " N=" << bytes << " S=" << segments);
          const Schedule s = generate_schedule("nvls-tree", test::allreduce_request(m * g, bytes, 1, g, segments));
          REQUIRE(s.info().reducers == m);
          REQUIRE_NOTHROW(check_schedule(s));
          ++proved;
        }
  CHECK(proved == 4 * 16 * 4 * 4);
}

TEST_CASE("nvls-tree: only N/G bytes per rank leave the node, each node's switch reduces its G ranks' N") {
  const Rank g = 4, m = 4, p = g * m;
  const std::uint64_t n = 4000;
  const Schedule s = generate_schedule("nvls-tree", test::allreduce_request(p, n, 1, g, 2));
  std::vector<std::uint64_t> off_node(p), onto_node(p), into_switch(m), up(p);
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer t = s.transfer(id);
    if (t.is_local()) continue;
    if (s.info().is_reducer(t.dst) && t.op == Op::reduce) into_switch[t.dst - p] += s.transfer_bytes(id);
    if (s.info().is_reducer(t.dst)) up[t.src] += s.transfer_bytes(id);
    if (!s.info().is_reducer(t.src) && !s.info().is_reducer(t.dst) && t.src / g != t.dst / g) {
      off_node[t.src] += s.transfer_bytes(id);
      onto_node[t.dst] += s.transfer_bytes(id);
    }
    const bool with_switch = s.info().is_reducer(t.src) || s.info().is_reducer(t.dst);
    if (with_switch)  // a rank talks only to its own node's switch
      REQUIRE((s.info().is_reducer(t.src) ? t.src - p : t.src / g) == (s.info().is_reducer(t.dst) ? t.dst - p : t.dst / g));
  }
  for (Rank n_ = 0; n_ < m; ++n_) CHECK(into_switch[n_] == g * n);
  // Rail j's double binary tree of 4 nodes, 0 - 2 - {1, 3} and its mirror 3 - 1 - {2, 0}, each
  // over half of part j: node 2 is interior in the first, sending its half up once and down
  // twice, and a leaf in the second, sending its other half up once: 2 N/G, where one tree
  // over the whole part sent 3 N/G (up once, down twice). The same comes in.
  for (Rank r = 0; r < p; ++r) {
    CHECK(off_node[r] <= 2 * n / g);
    CHECK(onto_node[r] <= 2 * n / g);
  }
  CHECK(*std::max_element(off_node.begin(), off_node.end()) == 2 * n / g);
  for (Rank r = 0; r < p; ++r) CHECK(up[r] == n + n / g);  // every part reduced up, its own part written back
}
