// tests/collectives/test_transfer_stream.cpp — a streamed ring (and hierarchical ring) is the
// generated one, transfer for transfer: ids, ranks, bytes, op, step, dependencies and successors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "base/error.hpp"
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

// The stream tells exactly the schedule: every transfer in list order (ranks, bytes, op, step,
// dependencies within their bound); deciding dependencies a subset, each one left out an
// ancestor of one kept (so it is done first and never sets the ready time); successors their
// inverse; roots the transfers without dependencies.
void require_same_transfers(const Schedule& s, const TransferStream& stream) {
  REQUIRE(stream.size() == s.size());
  REQUIRE(stream.info() == s.info());
  TransferId expected = 0;
  std::uint64_t farthest = 0;
  stream.for_each([&](TransferId id, const StreamedTransfer& x) {
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
  REQUIRE(farthest <= stream.max_dependency_distance());
  std::vector<std::vector<TransferId>> want_successors(s.size());
  std::vector<TransferId> want_roots, deciding, got;
  for (TransferId id = 0; id < s.size(); ++id) {
    const std::span<const TransferId> deps = s.transfer(id).deps;
    if (deps.empty()) want_roots.push_back(id);
    stream.deciding_dependencies(id, deciding);
    REQUIRE(std::is_sorted(deciding.begin(), deciding.end()));
    for (TransferId d : deciding) REQUIRE(id - d <= stream.max_deciding_distance());
    const StreamedTransfer with_deciding = stream.deciding_transfer(id, got);
    REQUIRE(got == deciding);
    REQUIRE(with_deciding.bytes == s.transfer_bytes(id));
    REQUIRE(with_deciding.src == s.transfer(id).src);
    REQUIRE(with_deciding.dst == s.transfer(id).dst);
    REQUIRE(with_deciding.step == s.transfer(id).step);
    REQUIRE(deciding.size() <= deps.size());
    REQUIRE(deciding.empty() == deps.empty());
    for (TransferId d : deciding) REQUIRE(std::find(deps.begin(), deps.end(), d) != deps.end());
    for (TransferId d : deps) {
      if (std::find(deciding.begin(), deciding.end(), d) != deciding.end()) continue;
      REQUIRE(std::any_of(deciding.begin(), deciding.end(), [&](TransferId k) { return is_ancestor(s, d, k); }));
    }
    for (TransferId d : deciding) want_successors[d].push_back(id);
  }
  for (TransferId id = 0; id < s.size(); ++id) {
    stream.successors(id, got);
    REQUIRE(got == want_successors[id]);
  }
  REQUIRE(stream.roots() == want_roots);
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
        require_same_transfers(generate_schedule("ring", r), *stream_ring(r));
      }
}

TEST_CASE("a streamed ring in C channels equals the generated one: rotated orders on nodes, or a mesh's given rings") {
  for (std::uint32_t channels : {2u, 3u, 4u})
    for (std::uint32_t segments : {1u, 3u})
      for (Rank g : {2u, 4u})
        for (Rank nodes : {1u, 3u}) {
          INFO("C=" << channels << " S=" << segments << " G=" << g << " nodes=" << nodes);
          ScheduleRequest r;
          r.ranks = g * nodes;
          r.ranks_per_node = g;
          r.channels = channels;
          r.bytes = 1000 * segments * channels + 7;  // channels, chunks and slices of unequal sizes
          r.segments = segments;
          require_same_transfers(generate_schedule("ring", r), *stream_ring(r));
        }
  // An allgather's and a reduce-scatter's channels cut every rank's block (channels.hpp).
  for (Collective collective : {Collective::reduce_scatter, Collective::allgather})
    for (std::uint32_t channels : {2u, 3u})
      for (Rank nodes : {1u, 3u}) {
        INFO(to_string(collective) << " C=" << channels << " nodes=" << nodes);
        ScheduleRequest r;
        r.collective = collective;
        r.ranks = 4 * nodes;
        r.ranks_per_node = 4;
        r.channels = channels;
        r.bytes = r.ranks * (300 * channels + 7);  // equal blocks, parts and slices of unequal sizes
        r.segments = 3;
        require_same_transfers(generate_schedule("ring", r), *stream_ring(r));
      }
  // Given orders (a mesh's rings, topologies/ring_search.hpp): channel c over its own ring.
  ScheduleRequest r;
  r.ranks = 4;
  r.channels = 3;
  r.bytes = 4099;
  r.channel_orders = {{0, 1, 2, 3}, {0, 3, 2, 1}, {0, 2, 1, 3}};
  require_same_transfers(generate_schedule("ring", r), *stream_ring(r));
  r.channels = 2;  // one order per channel, or refused
  REQUIRE_THROWS_WITH(stream_ring(r), Catch::Contains("3 channel orders for 2 channels"));
}

TEST_CASE("a streamed hierarchical ring equals the generated one, on one node or many, in one segment or several") {
  for (Rank g : {1u, 2u, 3u, 4u, 8u})
    for (Rank m : {1u, 2u, 3u, 5u, 8u})
      for (std::uint32_t segments : {1u, 3u}) {
        INFO("G=" << g << " M=" << m << " segments=" << segments);
        ScheduleRequest r;
        r.ranks = g * m;
        r.ranks_per_node = g;
        r.bytes = 997 * segments * g * m + 5;  // node chunks, slices and rail pieces of unequal sizes
        r.segments = segments;
        require_same_transfers(generate_schedule("hierarchical-ring", r), *stream_hierarchical_ring(r));
      }
}

TEST_CASE("a streamed hierarchical ring takes the generated one's default segments, and a slice of one byte") {
  ScheduleRequest r;
  r.ranks = 12;
  r.ranks_per_node = 4;
  r.bytes = 36 << 20;  // steps of 3 MiB: 3 slices
  REQUIRE(stream_hierarchical_ring(r)->info().segments == 3);
  REQUIRE(stream_hierarchical_ring(r)->size() == generate_schedule("hierarchical-ring", r).size());
  r.bytes = 12 * 2;  // one byte in each rail piece at 2 segments
  r.segments = 2;
  require_same_transfers(generate_schedule("hierarchical-ring", r), *stream_hierarchical_ring(r));
}

TEST_CASE("a streamed hierarchical ring refuses what the generator refuses and what it cannot number") {
  ScheduleRequest r;
  r.ranks = 12;
  r.bytes = 1 << 20;
  REQUIRE_THROWS_WITH(stream_hierarchical_ring(r), Catch::Contains("ranks per node"));  // none given
  r.ranks_per_node = 5;
  REQUIRE_THROWS_WITH(stream_hierarchical_ring(r), Catch::Contains("whole number of nodes"));
  r.ranks_per_node = 4;
  r.collective = Collective::reduce_scatter;
  REQUIRE_THROWS_WITH(stream_hierarchical_ring(r), Catch::Contains("does not implement reduce-scatter"));
  r.collective = Collective::allreduce;
  r.channels = 2;
  REQUIRE_THROWS_WITH(stream_hierarchical_ring(r), Catch::Contains("one channel"));
  r.channels = 0;
  r.segments = 2;
  r.bytes = 12 * 2 - 1;  // a rail piece of no byte
  REQUIRE_THROWS_WITH(stream_hierarchical_ring(r), Catch::Contains("at least one byte per slice"));
  r.ranks = 16384;  // 8 ranks a node: 2 x 16,384 x (7 + 2,047) x 64 segments = 4.3 G transfers
  r.ranks_per_node = 8;
  r.segments = 64;
  r.bytes = std::uint64_t(1) << 40;
  REQUIRE_THROWS_WITH(stream_hierarchical_ring(r), Catch::Contains("more transfers") && Catch::Contains("than ids"));
  r.segments = 1;  // 67 M transfers: numbered
  REQUIRE(stream_hierarchical_ring(r)->size() == 2ull * 16384 * (7 + 2047));
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
