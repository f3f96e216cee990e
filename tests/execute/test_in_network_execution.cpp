// tests/execute/test_in_network_execution.cpp — in-network schedules executed by emulation
// (execute/execution_plan.hpp): each switch reducer runs its rank program as one more
// loopback rank, starting from zeros, and the ranks end with the reference whatever order
// the reductions reach the switch in (the inputs are small integers, so every order sums
// exactly). nvls-tree on 1-4 nodes x 1/2/4 GPUs, nvls on one node, collnet with the fabric's
// switch; a corrupted reduction in a switch shows on the ranks; the refusals: an in-network
// algorithm where no switch reduces, nvls on more ranks than a node holds, a schedule file
// whose reducer count is off its layout.
#include <catch2/catch.hpp>

#include <algorithm>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "execute/execution_plan.hpp"
#include "execute/loopback.hpp"
#include "execute/rank_program.hpp"
#include "execute/reference_data.hpp"

using namespace collsim;

namespace {

ExecutionRequest in_network_request(const std::string& algorithm, Rank ranks, Rank ranks_per_node,
                                    SwitchesReduce reduce = {.node = true, .fabric = true}) {
  ExecutionRequest r;
  r.collective = Collective::allreduce;
  r.ranks = ranks;
  r.ranks_per_node = ranks_per_node;
  r.algorithms = {algorithm};
  r.switches_reduce = reduce;
  return r;
}

// Every rank holds the reference; the switches' buffers are the emulation's own.
void require_reference(const Schedule& s, const LoopbackResult& result) {
  REQUIRE(result.buffers.size() == s.info().endpoints());
  for (Rank r = 0; r < s.info().ranks; ++r) {
    INFO(s.info().algorithm << " P=" << s.info().ranks << " per node " << s.info().ranks_per_node << " rank " << r);
    if (const auto m = find_mismatch(s.info(), r, result.buffers[r])) FAIL(describe_mismatch(s.info(), r, *m));
  }
}

void run_everywhere(const ExecutionRequest& request, Rank expected_reducers) {
  for (std::uint64_t bytes : {4ull, 52ull, 4000ull, 40000ull}) {
    const Schedule s = executed_schedule(request, request.algorithms[0], bytes);
    REQUIRE(s.info().reducers == expected_reducers);
    REQUIRE(executed_processes(s) == request.ranks + expected_reducers);
    for (std::uint64_t seed : {1u, 2u, 3u}) require_reference(s, run_loopback(s, seed));
  }
}

}  // namespace

TEST_CASE("nvls-tree runs with its node switches emulated, on 1-4 nodes of 1, 2 or 4 GPUs, and gives the reference") {
  for (Rank nodes = 1; nodes <= 4; ++nodes)
    for (Rank gpus : {1u, 2u, 4u}) {
      INFO(nodes << " nodes x " << gpus << " GPUs");
      run_everywhere(in_network_request("nvls-tree", nodes * gpus, gpus), nodes);
    }
}

TEST_CASE("nvls on one node and collnet across nodes run with their switches emulated, and give the reference") {
  for (Rank p = 1; p <= 8; ++p) {
    INFO("nvls on " << p << " ranks");
    run_everywhere(in_network_request("nvls", p, 0), 1);
  }
  for (Rank nodes = 1; nodes <= 4; ++nodes)
    for (Rank gpus : {1u, 2u, 4u}) {
      INFO("collnet on " << nodes << " nodes x " << gpus << " GPUs");
      run_everywhere(in_network_request("collnet", nodes * gpus, gpus), nodes + 1);  // the nodes', then the fabric's
    }
}

TEST_CASE("a switch's program receives reductions in any order and sends only after what it sends has arrived") {
  // nvls on 4 GPUs, one segment: per part, 4 reductions in and the sum out to its owner; the
  // owner's write-back in and 3 multicasts out (collectives/algorithms/nvls.cpp)
  const Schedule s = executed_schedule(in_network_request("nvls", 4, 0), "nvls", 4 * 64);
  REQUIRE(s.info().segments == 1);
  const RankProgram program = build_rank_program(s, 4);  // the switch: the id after the 4 ranks
  std::size_t reductions = 0, write_backs = 0, sends = 0;
  for (std::size_t i = 0; i < program.ops.size(); ++i) {
    const RankOp& op = program.ops[i];
    REQUIRE(op.role != Role::local);  // a switch reduces what arrives, nothing of its own
    if (op.role == Role::receive && op.op == Op::reduce) {
      CHECK(program.local_dependencies[i] == 0);  // reductions commute: none waits for another
      ++reductions;
    } else if (op.role == Role::receive) {
      CHECK(program.local_dependencies[i] == 1);  // the write-back overwrites the sum once it is sent
      ++write_backs;
    } else {
      CHECK(program.local_dependencies[i] > 0);  // the sum, or the written-back result, first
      ++sends;
    }
  }
  CHECK(reductions == 4 * 4);
  CHECK(write_backs == 4);
  CHECK(sends == 4 + 4 * 3);
  // An id past the schedule's endpoints (a process a larger schedule of the run needs) idles.
  CHECK(build_rank_program(s, 5).ops.empty());
}

TEST_CASE("a switch starts at the sum's identity and has no postcondition") {
  const Schedule s = executed_schedule(in_network_request("nvls", 3, 0), "nvls", 4 * 16);
  std::vector<float> buffer(s.info().address_space(), 5.0f);
  fill_inputs(s.info(), 3, buffer);
  CHECK(std::all_of(buffer.begin(), buffer.end(), [](float v) { return v == 0.0f; }));
  CHECK_FALSE(find_mismatch(s.info(), 3, buffer));
}

TEST_CASE("a corrupted reduction inside an emulated switch shows on the ranks") {
  const Schedule s = executed_schedule(in_network_request("nvls-tree", 4, 2), "nvls-tree", 4 * 64);
  std::vector<Faults> faults(s.info().endpoints());
  faults[4].corrupt_first_reduction = true;  // node 0's switch
  const LoopbackResult result = run_loopback(s, 1, faults);
  bool caught = false;
  for (Rank r = 0; r < 4; ++r) caught = caught || find_mismatch(s.info(), r, result.buffers[r]).has_value();
  CHECK(caught);
}

TEST_CASE("in-network algorithms run only where the request's switches reduce, and brought reducers follow the layout") {
  CHECK_THROWS_WITH(executed_schedule(in_network_request("nvls", 4, 0, {}), "nvls", 64),
                    Catch::Contains("nvls reduces in the node's switch (NVLink SHARP), and the run's cluster has no such "
                                    "switch: give --preset or --config"));
  CHECK_THROWS_WITH(executed_schedule(in_network_request("collnet", 4, 2, {.node = true}), "collnet", 64),
                    Catch::Contains("fabric and node switches reduce"));
  CHECK_THROWS_WITH(executed_schedule(in_network_request("nvls", 16, 8), "nvls", 64),
                    Catch::Contains("nvls reduces inside one node's switch, and 16 ranks are more than a node's 8"));
  // "all" lists them only where the switches reduce
  ExecutionRequest every = in_network_request("all", 4, 2, {});
  every.algorithms = {"all"};
  CHECK(std::ranges::count(expand_algorithms(every), "nvls-tree") == 0);
  every.switches_reduce = {.node = true};
  CHECK(std::ranges::count(expand_algorithms(every), "nvls-tree") == 1);

  // A schedule file names its own switches: run without a cluster, its count checked.
  auto brought = std::make_shared<Schedule>(generate_schedule("nvls-tree", [] {
    ScheduleRequest r;
    r.ranks = 4;
    r.ranks_per_node = 2;
    r.bytes = 4 * 64;
    return r;
  }()));
  ExecutionRequest file;
  file.ranks = 0;  // the schedule's own
  bring_schedule(file, brought);
  CHECK(executed_processes(executed_schedule(file, "nvls-tree", 4 * 64)) == 6);
  ScheduleInfo off = brought->info();
  off.reducers = 4;  // 2 nodes: 2, or 3 with the fabric's
  Schedule wrong(off);
  for (const ByteRange& chunk : brought->chunks()) wrong.add_chunk(chunk);
  for (TransferId id = 0; id < brought->size(); ++id) {
    const Transfer t = brought->transfer(id);
    wrong.append(t.src, t.src_chunk, t.dst, t.dst_chunk, t.op, t.step, t.deps);
  }
  file.schedule = std::make_shared<Schedule>(std::move(wrong));
  CHECK_THROWS_WITH(executed_schedule(file, "nvls-tree", 4 * 64),
                    Catch::Contains("the schedule names 4 switch reducers, but its 4 ranks (2 to a node) have 2 node "
                                    "switches and one fabric switch"));
}
