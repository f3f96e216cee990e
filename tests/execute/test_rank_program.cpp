// tests/execute/test_rank_program.cpp — the per-rank programs and their state machine,
// executed without MPI on the adversarial loopback transport (execute/loopback.hpp): every
// algorithm and collective gives the independently computed reference, whatever order sends
// read their buffers and messages arrive in.
#include <catch2/catch.hpp>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "execute/execution_plan.hpp"
#include "execute/loopback.hpp"
#include "execute/rank_program.hpp"
#include "execute/reference_data.hpp"

using namespace collsim;

namespace {

ExecutionRequest request_for(Collective c, Rank ranks, Rank ranks_per_node = 0) {
  ExecutionRequest r;
  r.collective = c;
  r.ranks = ranks;
  r.ranks_per_node = ranks_per_node;
  r.algorithms = {"all"};
  return r;
}

void require_reference(const Schedule& s, const LoopbackResult& result) {
  for (Rank r = 0; r < s.info().ranks; ++r) {
    const auto mismatch = find_mismatch(s.info(), r, result.buffers[r]);
    INFO(s.info().algorithm << " P=" << s.info().ranks << " rank " << r);
    if (mismatch) FAIL(describe_mismatch(s.info(), r, *mismatch));
  }
}

}  // namespace

TEST_CASE("every algorithm of every collective, executed rank by rank in adversarial orders, gives the reference") {
  for (Collective c : all_collectives()) {
    for (Rank p = 1; p <= 9; ++p) {
      const ExecutionRequest request = request_for(c, p, p % 2 == 0 ? 2 : 0);
      for (const std::string& algorithm : expand_algorithms(request)) {
        for (std::uint64_t bytes : {4ull, 52ull, 4000ull, 40000ull}) {
          const Schedule s = executed_schedule(request, algorithm, bytes);
          for (std::uint64_t seed : {1u, 2u, 3u}) require_reference(s, run_loopback(s, seed));
        }
      }
    }
  }
}

TEST_CASE("pipelined schedules with many segments stay correct when messages overtake each other") {
  ExecutionRequest request = request_for(Collective::allreduce, 6);
  request.segments = 7;
  for (const std::string algorithm : {"tree", "two-tree"}) {
    const Schedule s = executed_schedule(request, algorithm, 4 * 1000);
    for (std::uint64_t seed = 10; seed < 20; ++seed) require_reference(s, run_loopback(s, seed));
  }
}

TEST_CASE("a corrupted reduction is caught by the reference, naming the rank and element") {
  const Schedule s = executed_schedule(request_for(Collective::allreduce, 4), "ring", 4 * 64);
  const LoopbackResult result = run_loopback(s, 1, {{}, {.corrupt_first_reduction = true}});
  bool caught = false;
  for (Rank r = 0; r < 4; ++r)
    if (auto m = find_mismatch(s.info(), r, result.buffers[r])) {
      caught = true;
      CHECK(m->got == m->expected + 1);
      CHECK_THAT(describe_mismatch(s.info(), r, *m), Catch::Contains("result mismatch on rank"));
    }
  CHECK(caught);
}

TEST_CASE("a ring rank waits locally for its own transfers and leaves the peer's to the message") {
  const Schedule s = executed_schedule(request_for(Collective::allreduce, 4), "ring", 4 * 64);
  const RankProgram program = build_rank_program(s, 1);
  // 2(P-1) steps, one send and one receive each
  CHECK(program.ops.size() == 2 * 2 * 3);
  std::size_t sends = 0, receives = 0;
  for (const RankOp& op : program.ops) (op.role == Role::send ? sends : receives) += 1;
  CHECK(sends == 6);
  CHECK(receives == 6);
  // the first sends wait for nothing; later ones wait for what this rank received
  CHECK(program.local_dependencies[0] == 0);
  std::size_t waiting = 0;
  for (std::uint32_t n : program.local_dependencies) waiting += n;
  CHECK(waiting > 0);
  CHECK(program.dependent_begin.size() == program.ops.size() + 1);
}

TEST_CASE("a dependency that neither rank of a transfer takes part in cannot be observed and is rejected") {
  ScheduleInfo info;
  info.ranks = 4;
  info.bytes = 8;
  Schedule s(info);
  const ChunkId whole = s.add_chunk({0, 8});
  const TransferId first = s.append(0, whole, 1, whole, Op::copy, 0, {});
  const TransferId deps[] = {first};
  s.append(2, whole, 3, whole, Op::copy, 1, deps);
  CHECK_THROWS_WITH(build_rank_program(s, 2), Catch::Contains("neither of its ranks"));
}

TEST_CASE("executed sizes are whole float elements, and the schedule is in elements") {
  const ExecutionRequest request = request_for(Collective::allreduce, 3);
  CHECK_THROWS_WITH(executed_schedule(request, "ring", 6), Catch::Contains("not a whole number of 4-byte float"));
  const Schedule s = executed_schedule(request, "ring", 4096);
  CHECK(s.info().bytes == 1024);
}

TEST_CASE("inputs are small integers so sums are exact, and empty places are marked") {
  ScheduleInfo info;
  info.collective = Collective::allgather;
  info.ranks = 4;
  info.bytes = 8;
  std::vector<float> buffer(8);
  fill_inputs(info, 1, buffer);
  CHECK(buffer[0] == kEmptyElement);
  CHECK(buffer[2] == input_value(1, 2));
  CHECK(buffer[4] == kEmptyElement);
  for (Rank r = 0; r < 64; ++r)
    for (std::uint64_t i = 0; i < 256; ++i) {
      const float v = input_value(r, i);
      CHECK((v >= 0.0f && v <= 14.0f && v == float(int(v))));
    }
}

// A chunk placed any distance off, or taken from another rank, must show as wrong numbers:
// the inputs have no short period (the earlier (7r + i) mod 13 repeated every 13 elements).
TEST_CASE("inputs have no short period in position, nor a rank they share a block with") {
  constexpr std::uint64_t kBlock = 256;
  for (std::uint64_t shift = 1; shift <= 1024; ++shift) {
    std::uint64_t same = 0;
    for (std::uint64_t i = 0; i < kBlock; ++i) same += input_value(3, i) == input_value(3, i + shift);
    INFO("shift " << shift);
    CHECK(same < kBlock / 2);
  }
  for (Rank other = 0; other < 64; ++other) {
    if (other == 5) continue;
    std::uint64_t same = 0;
    for (std::uint64_t i = 0; i < kBlock; ++i) same += input_value(5, i) == input_value(other, i);
    INFO("rank " << other);
    CHECK(same < kBlock / 2);
  }
}
