// tests/collectives/test_transfer_stream.cpp — a streamed ring is the generated ring, transfer
// for transfer: ids, ranks, bytes, op, step, dependencies and successors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "collectives/error.hpp"
#include "collectives/transfer_stream.hpp"

using namespace collsim;

namespace {

// Whether `ancestor` is reached from `id` through dependencies (ids only decrease on the way).
bool is_ancestor(const Schedule& s, TransferId ancestor, TransferId id) {
  std::vector<TransferId> todo{id};
  std::vector<bool> seen(id + 1, false);
  while (!todo.empty()) {
    const TransferId t = todo.back();
    todo.pop_back();
    for (TransferId d : s.transfer(t).deps) {
      if (d == ancestor) return true;
      if (d > ancestor && !seen[d]) {
        seen[d] = true;
        todo.push_back(d);
      }
    }
  }
  return false;
}

}  // namespace

TEST_CASE("a streamed ring equals the generated ring, in one segment or several") {
  for (Collective collective : {Collective::allreduce, Collective::reduce_scatter, Collective::allgather})
    for (std::uint32_t segments : {1u, 3u})
      for (Rank p = 2; p <= 33; ++p) {
        INFO(to_string(collective) << " P=" << p << " segments=" << segments);
        ScheduleRequest r;
        r.collective = collective;
        r.ranks = p;
        r.bytes = 1000 * segments + p;  // chunks and slices of unequal sizes
        r.segments = segments;
        const Schedule s = generate_schedule("ring", r);
        const auto stream = stream_ring(r);
        REQUIRE(stream->size() == s.size());
        TransferId expected = 0;
        std::uint64_t farthest = 0;
        stream->for_each([&](TransferId id, const StreamedTransfer& x) {
          REQUIRE(id == expected++);
          const Transfer t = s.transfer(id);
          REQUIRE(x.src == t.src);
          REQUIRE(x.dst == t.dst);
          REQUIRE(x.bytes == s.transfer_bytes(id));
          REQUIRE(x.op == t.op);
          REQUIRE(x.step == t.step);
          std::vector<TransferId> want(t.deps.begin(), t.deps.end());
          std::sort(want.begin(), want.end());
          REQUIRE(std::vector<TransferId>(x.deps.begin(), x.deps.end()) == want);
          for (TransferId d : x.deps) farthest = std::max<std::uint64_t>(farthest, id - d);
          return true;
        });
        REQUIRE(expected == s.size());
        REQUIRE(farthest <= stream->max_dependency_distance());
        // Deciding dependencies: a subset, and each one left out is an ancestor of one kept (so
        // it is done first and never sets the ready time). Successors are their inverse; roots
        // are the transfers without dependencies.
        std::vector<std::vector<TransferId>> want_successors(s.size());
        std::vector<TransferId> want_roots, deciding, got;
        for (TransferId id = 0; id < s.size(); ++id) {
          const std::span<const TransferId> deps = s.transfer(id).deps;
          if (deps.empty()) want_roots.push_back(id);
          stream->deciding_dependencies(id, deciding);
          REQUIRE(std::is_sorted(deciding.begin(), deciding.end()));
          for (TransferId d : deciding) REQUIRE(id - d <= stream->max_deciding_distance());
          const StreamedTransfer with_deciding = stream->deciding_transfer(id, got);
          REQUIRE(got == deciding);
          REQUIRE(with_deciding.bytes == s.transfer_bytes(id));
          REQUIRE(with_deciding.src == s.transfer(id).src);
          REQUIRE(deciding.size() <= deps.size());
          REQUIRE(deciding.empty() == deps.empty());
          for (TransferId d : deps) {
            if (std::find(deciding.begin(), deciding.end(), d) != deciding.end()) continue;
            REQUIRE(std::any_of(deciding.begin(), deciding.end(), [&](TransferId k) { return is_ancestor(s, d, k); }));
          }
          for (TransferId d : deciding) want_successors[d].push_back(id);
        }
        for (TransferId id = 0; id < s.size(); ++id) {
          stream->successors(id, got);
          REQUIRE(got == want_successors[id]);
        }
        REQUIRE(stream->roots() == want_roots);
        REQUIRE(stream->info().segments == s.info().segments);
      }
}

TEST_CASE("a streamed ring takes the generated ring's default segments") {
  ScheduleRequest r;
  r.ranks = 4;
  r.bytes = 12 << 20;  // steps of 3 MiB: 3 slices
  REQUIRE(stream_ring(r)->info().segments == 3);
  REQUIRE(stream_ring(r)->size() == generate_schedule("ring", r).size());
}

TEST_CASE("a streamed ring refuses what it cannot number") {
  ScheduleRequest r;
  r.ranks = 8;
  r.bytes = 4;  // empty chunks
  REQUIRE_THROWS_AS(stream_ring(r), Error);
  r.bytes = 8 * 3 - 1;  // empty slices
  r.segments = 3;
  REQUIRE_THROWS_AS(stream_ring(r), Error);
  r.segments = 0;
  r.bytes = 1 << 20;
  r.collective = Collective::broadcast;
  REQUIRE_THROWS_AS(stream_ring(r), Error);
}
