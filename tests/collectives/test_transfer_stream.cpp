// tests/collectives/test_transfer_stream.cpp — a streamed ring is the generated ring, transfer
// for transfer: ids, ranks, bytes, op, step and dependencies.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "collectives/error.hpp"
#include "collectives/transfer_stream.hpp"

using namespace collsim;

TEST_CASE("a streamed ring equals the generated ring") {
  for (Collective collective : {Collective::allreduce, Collective::reduce_scatter, Collective::allgather}) {
    for (Rank p = 2; p <= 33; ++p) {
      INFO(to_string(collective) << " P=" << p);
      ScheduleRequest r;
      r.collective = collective;
      r.ranks = p;
      r.bytes = 1000 + p;  // chunks of unequal sizes
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
      });
      REQUIRE(expected == s.size());
      REQUIRE(farthest <= stream->max_dependency_distance());
    }
  }
}

TEST_CASE("a streamed ring refuses what it cannot number") {
  ScheduleRequest r;
  r.ranks = 8;
  r.bytes = 4;  // empty chunks
  REQUIRE_THROWS_AS(stream_ring(r), Error);
  r.bytes = 1 << 20;
  r.collective = Collective::broadcast;
  REQUIRE_THROWS_AS(stream_ring(r), Error);
}
