// tests/collectives/test_pieces.cpp — chunk ranges (collectives/elements.hpp): each rank's
// pieces, cut where transfers begin and end and joined where one write leaves them alike,
// give the builder the same dependencies as the dense (rank, element) records for every
// algorithm, and let Rabenseifner and recursive doubling build and be proved at 65,536 ranks.
#include <catch2/catch.hpp>

#include <sstream>
#include <vector>

#include "collectives/algorithm.hpp"
#include "collectives/checker.hpp"
#include "collectives/elements.hpp"
#include "collectives/schedule_builder.hpp"

using namespace collsim;

namespace {

// Builds every schedule with each rank's pieces while alive, as the builder does past
// kDenseRecordLimit.
struct PiecesOnly {
  PiecesOnly() { set_dense_record_limit(0); }
  ~PiecesOnly() { set_dense_record_limit(kDenseRecordLimit); }
};

Schedule built_with_pieces(std::string_view algorithm, const ScheduleRequest& r) {
  const PiecesOnly pieces;
  return generate_schedule(algorithm, r);
}

std::vector<ByteRange> bytes_of(PieceMap<int>& map, Rank rank, ByteRange range) {
  std::vector<ByteRange> out;
  map.for_each(rank, range, [&](ByteRange b, int&) { out.push_back(b); });
  return out;
}

}  // namespace

TEST_CASE("A piece map cuts a rank's bytes where ranges begin and end, and joins what continues") {
  PieceMap<int> map(2, 100, [](const int& whole, std::uint64_t delta) { return whole + int(delta); });
  CHECK(bytes_of(map, 0, {10, 30}) == std::vector<ByteRange>{{10, 30}});
  CHECK(map.pieces() == 4);  // [0,10) [10,40) [40,100) on rank 0, [0,100) on rank 1
  map.for_each(0, {10, 30}, [](ByteRange, int& v) { v = 7; });
  CHECK(bytes_of(map, 0, {0, 100}) == std::vector<ByteRange>{{0, 10}, {10, 30}, {40, 60}});
  map.cut_at(0, 25);  // the cut piece's state is the cut's: 7 + 15
  std::vector<int> values;
  map.for_each(0, {10, 30}, [&](ByteRange, int& v) { values.push_back(v); });
  CHECK(values == std::vector<int>{7, 22});
  map.join(0, {10, 30}, [](ByteRange left, const int& a, const int& b) { return a + int(left.bytes) == b; });
  CHECK(bytes_of(map, 0, {0, 100}) == std::vector<ByteRange>{{0, 10}, {10, 30}, {40, 60}});
  map.cut_at(0, 30);
  map.join(0, {10, 30}, [](ByteRange, const int&, const int&) { return false; });
  CHECK(map.pieces() == 5);
  CHECK(bytes_of(map, 1, {0, 0}).empty());
  CHECK(bytes_of(map, 1, {50, 50}) == std::vector<ByteRange>{{50, 50}});
}

// The two bookkeepings must agree transfer for transfer, dependencies included: the pieces
// are exact, not an approximation of the elements.
TEST_CASE("Every algorithm's schedule is the same built on each rank's pieces as on dense elements, and is proved") {
  for (const AlgorithmEntry& a : algorithm_table())
    for (Collective c : a.collectives)
      for (Rank p : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 12u, 16u, 33u, 64u})
        for (std::uint64_t bytes : {std::uint64_t(7), std::uint64_t(4096), std::uint64_t(3) << 20})
          for (Rank g : {0u, 4u}) {
            ScheduleRequest r;
            r.collective = c;
            r.ranks = p;
            r.bytes = bytes;
            r.ranks_per_node = g;
            if (!a.runs_on(p, g)) continue;
            std::ostringstream what;
            what << a.name << " " << to_string(c) << " P=" << p << " N=" << bytes << " g=" << g;
            INFO(what.str());
            const Schedule dense = generate_schedule(a.name, r);
            const Schedule pieces = built_with_pieces(a.name, r);
            REQUIRE(pieces == dense);
            REQUIRE_NOTHROW(check_schedule(pieces));
          }
}

TEST_CASE("Rabenseifner and recursive doubling build on each rank's pieces and are proved at 65,536 ranks") {
  for (const char* algorithm : {"rabenseifner", "recursive-doubling"})
    for (Rank p : {Rank(65536), Rank(40000)}) {
      ScheduleRequest r;
      r.ranks = p;
      r.bytes = std::uint64_t(1) << 30;
      INFO(algorithm << " P=" << p);
      REQUIRE_NOTHROW(check_schedule_fits(find_algorithm(algorithm), r));
      const Schedule s = generate_schedule(algorithm, r);
      const CheckReport report = check_schedule(s);
      CHECK(report.transfers == s.size());
      CHECK_FALSE(report.exact);
    }
}

TEST_CASE("A misplaced reduction is still caught on each rank's pieces at 65,536 ranks") {
  ScheduleRequest r;
  r.ranks = 65536;
  r.bytes = std::uint64_t(1) << 30;
  const Schedule s = generate_schedule("rabenseifner", r);
  // Rebuild it with the first halving transfer reducing into its block one byte earlier.
  Schedule wrong(s.info());
  for (const ByteRange& c : s.chunks()) wrong.add_chunk(c);
  for (const Phase& ph : s.phases()) wrong.add_phase(ph);
  const ChunkId moved = wrong.add_chunk({s.chunks()[s.transfer(0).src_chunk].offset - 1, s.transfer_bytes(0)});
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer t = s.transfer(id);
    wrong.append(t.src, t.src_chunk, t.dst, id == 0 ? moved : t.dst_chunk, t.op, t.step, t.deps);
  }
  REQUIRE(s.transfer(0).op == Op::reduce);
  REQUIRE_THROWS_WITH(check_schedule(wrong), Catch::Contains("transfer 0 ") && Catch::Contains("mixes positions"));
}
