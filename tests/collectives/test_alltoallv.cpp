// tests/collectives/test_alltoallv.cpp — all-to-all-v: alltoall with a size per pair read from
// a matrix file (collectives/alltoall_matrix.hpp). The file's faults name their line; linear
// and pairwise move each pair's bytes and the checker proves where every block lands for
// P = 1..64, misplaced blocks refused; Bruck and rail-alltoall, which need equal blocks,
// refuse with the reason; a schedule's sizes survive its JSON.
#include <catch2/catch.hpp>

#include <string>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/alltoall_matrix.hpp"
#include "collectives/checker.hpp"
#include "collectives/collective_spec.hpp"
#include "collectives/schedule_json.hpp"
#include "tests/support/editable_schedule.hpp"

using namespace collsim;

namespace {

// Sizes with no pattern a misplaced block could hide in: 0 .. 96 bytes, some pairs empty.
std::vector<std::uint64_t> uneven_matrix(Rank p) {
  std::vector<std::uint64_t> m(std::size_t(p) * p);
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = (i * 2654435761u >> 7) % 97;
  return m;
}

ScheduleRequest alltoallv(Rank p, std::vector<std::uint64_t> matrix) {
  ScheduleRequest r;
  r.collective = Collective::alltoall;
  r.ranks = p;
  r.bytes = largest_row_bytes(matrix, p);
  r.pair_bytes = std::move(matrix);
  return r;
}

std::string refusal(std::string_view text) {
  try {
    (void)parse_alltoall_matrix(text, "m.csv");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a matrix file: P rows of P sizes, comments and a header allowed", "[alltoallv]") {
  const AlltoallMatrix m = parse_alltoall_matrix("# bytes from row to column\nto0, to1,to2\n0,10,20 # rank 0\n\n"
                                                 "30,0,40\r\n50,60,0\n",
                                                 "m.csv");
  CHECK(m.ranks == 3);
  CHECK(m.pair_bytes == std::vector<std::uint64_t>{0, 10, 20, 30, 0, 40, 50, 60, 0});
  CHECK(largest_row_bytes(m.pair_bytes, 3) == 110);
}

TEST_CASE("a bad matrix file is refused naming its line and what is wrong", "[alltoallv]") {
  CHECK_THAT(refusal("1,2\n3,4\n5,6\n"), Catch::Contains("m.csv:3") && Catch::Contains("square"));
  CHECK_THAT(refusal("1,2,3\n4,5,6\n"), Catch::Contains("m.csv:2") && Catch::Contains("2 rows of 3 columns"));
  CHECK_THAT(refusal("1,2\n3\n"), Catch::Contains("m.csv:2") && Catch::Contains("1 columns where the first row has 2"));
  CHECK_THAT(refusal("1,2\n3,-4\n"), Catch::Contains("m.csv:2: column 2") && Catch::Contains("negative"));
  CHECK_THAT(refusal("# header below\nto0,to1\n1,2\n3,x\n"), Catch::Contains("m.csv:4: column 2") &&
                                                                  Catch::Contains("'x' is not a whole number"));
  CHECK_THAT(refusal("1,2\n3,1.5\n"), Catch::Contains("m.csv:2") && Catch::Contains("not a whole number"));
  CHECK_THAT(refusal("1,2\n3,\n"), Catch::Contains("m.csv:2: column 2 is empty"));
  CHECK_THAT(refusal("# nothing\n\n"), Catch::Contains("m.csv: no rows"));
  CHECK_THAT(refusal("1,99999999999999999999999\n1,1\n"), Catch::Contains("too large"));
  // A second header is data that is not numbers.
  CHECK_THAT(refusal("a,b\nc,d\n"), Catch::Contains("m.csv:2: column 1") && Catch::Contains("'c'"));
  CHECK_THROWS_WITH(read_alltoall_matrix("/nonexistent/m.csv"), Catch::Contains("cannot read matrix"));
}

TEST_CASE("linear and pairwise move each pair's bytes, proved for P = 1..64", "[alltoallv]") {
  for (const char* algorithm : {"linear", "pairwise"})
    for (Rank p = 1; p <= 64; ++p) {
      INFO(algorithm << " P=" << p);
      const std::vector<std::uint64_t> matrix = uneven_matrix(p);
      const Schedule s = generate_schedule(algorithm, alltoallv(p, matrix));
      for (TransferId id = 0; id < s.size(); ++id) {
        const Transfer t = s.transfer(id);
        REQUIRE(s.transfer_bytes(id) == matrix[std::size_t(t.src) * p + t.dst]);
      }
      REQUIRE_NOTHROW(check_schedule(s));
    }
}

TEST_CASE("an all-to-all-v block delivered to another sender's place is refused by position", "[alltoallv]") {
  // Rank 0 sends 8 bytes to rank 1 and to rank 2; rank 1 sends 8 bytes to rank 2 as well: 0's
  // block for 2 written where 2 expects 1's block has the right size but the wrong source.
  const std::vector<std::uint64_t> matrix{0, 8, 8, 8, 0, 8, 8, 8, 0};
  testing::Editable e = testing::take_apart(generate_schedule("linear", alltoallv(3, matrix)));
  bool swapped = false;
  for (testing::Row& row : e.rows)
    if (row.src == 0 && row.dst == 2) {
      for (const testing::Row& other : e.rows)
        if (other.src == 1 && other.dst == 2) row.dst_chunk = other.dst_chunk;
      swapped = true;
    }
  REQUIRE(swapped);
  CHECK_THROWS_WITH(check_schedule(testing::put_together(e)), Catch::Contains("rank 2"));
}

TEST_CASE("Bruck and rail-alltoall need equal blocks and say so, and sizes must fit the ranks", "[alltoallv]") {
  ScheduleRequest r = alltoallv(4, uneven_matrix(4));
  CHECK_THROWS_WITH(generate_schedule("bruck", r), Catch::Contains("equal blocks") && Catch::Contains("pairwise"));
  r.ranks_per_node = 2;
  CHECK_THROWS_WITH(generate_schedule("rail-alltoall", r), Catch::Contains("equal blocks"));
  r.ranks = 3;
  CHECK_THROWS_WITH(generate_schedule("linear", r), Catch::Contains("does not fit 3 ranks"));
  r = alltoallv(4, uneven_matrix(4));
  r.bytes -= 1;
  CHECK_THROWS_WITH(generate_schedule("linear", r), Catch::Contains("more than its"));
  r = alltoallv(4, uneven_matrix(4));
  r.collective = Collective::allgather;
  CHECK_THROWS_WITH(generate_schedule("ring", r), Catch::Contains("belong to alltoall"));
}

TEST_CASE("an all-to-all-v schedule keeps its sizes through JSON, and a file with bad sizes is refused",
          "[alltoallv]") {
  const Schedule s = generate_schedule("pairwise", alltoallv(5, uneven_matrix(5)));
  const nlohmann::json j = schedule_to_json(s);
  REQUIRE(j.contains("pair_bytes"));
  const Schedule back = schedule_from_json(j);
  CHECK(back.info() == s.info());
  CHECK_NOTHROW(check_schedule(back));
  nlohmann::json short_matrix = j;
  short_matrix["pair_bytes"].erase(0);
  CHECK_THROWS_WITH(schedule_from_json(short_matrix), Catch::Contains("does not fit 5 ranks"));
  // Equal blocks write no matrix: files from before all-to-all-v read the same.
  ScheduleRequest equal = alltoallv(5, {});
  equal.bytes = 500;
  CHECK_FALSE(schedule_to_json(generate_schedule("pairwise", equal)).contains("pair_bytes"));
}
