// tests/collectives/test_checker_rejects.cpp — the checker must refuse broken schedules:
// valid generated schedules are copied transfer by transfer with one mutation each
// (dropped transfer, duplicated reduction, missing dependency, cycle, wrong op, dependency
// on an unrelated transfer), and every mutation must be caught (collectives/checker.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/checker.hpp"
#include "tests/support/editable_schedule.hpp"

using namespace collsim;
using collsim::testing::Editable;
using collsim::testing::put_together;
using collsim::testing::Row;
using collsim::testing::take_apart;

namespace {

// Removes transfer k: dependencies on it go, later ids move down by one.
Editable drop_transfer(Editable e, TransferId k) {
  e.rows.erase(e.rows.begin() + k);
  for (Row& r : e.rows) {
    std::erase(r.deps, k);
    for (TransferId& d : r.deps)
      if (d > k) --d;
  }
  return e;
}

// Inserts `row` right after transfer k: later ids move up by one.
Editable insert_after(Editable e, TransferId k, Row row) {
  for (Row& r : e.rows)
    for (TransferId& d : r.deps)
      if (d > k) ++d;
  e.rows.insert(e.rows.begin() + k + 1, std::move(row));
  return e;
}

bool overlap(ByteRange a, ByteRange b) { return a.bytes > 0 && b.bytes > 0 && a.offset < b.end() && b.offset < a.end(); }

bool involves(const Row& r, Rank rank) { return r.src == rank || r.dst == rank; }

// The message check_schedule throws, or "" when it accepts the schedule.
std::string rejection(const Schedule& s, const CheckOptions& options = {}) {
  try {
    (void)check_schedule(s, options);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const char* phrase) { return text.find(phrase) != std::string::npos; }

struct Subject {
  const char* algorithm;
  Rank ranks;
  std::uint32_t segments;
};

// The schedules every mutation is tried on: allreduce, N = 1000 (no empty chunks).
const std::vector<Subject>& subjects() {
  static const std::vector<Subject> all{
      {"ring", 4, 0},         {"ring", 8, 0},         {"tree", 8, 2},          {"tree", 5, 1},
      {"two-tree", 8, 2},     {"two-tree", 7, 1},     {"rabenseifner", 6, 0},  {"rabenseifner", 8, 0},
      {"recursive-doubling", 5, 0}, {"recursive-doubling", 4, 0}, {"naive", 4, 0}, {"binomial", 6, 0},
  };
  return all;
}

Schedule generate(const Subject& subject, std::uint64_t bytes = 1000) {
  ScheduleRequest request;
  request.collective = Collective::allreduce;
  request.ranks = subject.ranks;
  request.bytes = bytes;
  request.segments = subject.segments;
  return generate_schedule(subject.algorithm, request);
}

std::string name_of(const Subject& subject) {
  return std::string(subject.algorithm) + " P=" + std::to_string(subject.ranks) + " segments=" +
         std::to_string(subject.segments);
}

}  // namespace

TEST_CASE("a schedule taken apart and put back together is equal and still passes the checker", "[checker]") {
  for (const Subject& subject : subjects()) {
    INFO(name_of(subject));
    const Schedule original = generate(subject);
    const Schedule copy = put_together(take_apart(original));
    CHECK(copy == original);
    CHECK_NOTHROW(check_schedule(copy));
  }
}

TEST_CASE("the checker rejects a schedule with any one transfer dropped", "[checker][mutation]") {
  for (const Subject& subject : subjects()) {
    const Editable original = take_apart(generate(subject));
    for (TransferId k = 0; k < original.rows.size(); ++k) {
      INFO(name_of(subject) << ": dropped transfer " << k);
      const std::string message = rejection(put_together(drop_transfer(original, k)));
      INFO("message: " << message);
      REQUIRE_FALSE(message.empty());
      // Missing data shows as a failed postcondition, an early read, a stale value reduced
      // twice, or (where the dropped transfer linked two others) an unordered write.
      CHECK((contains(message, "postcondition") || contains(message, "read") || contains(message, "second time") ||
             contains(message, "write after")));
      CHECK_FALSE(contains(message, "\n"));
    }
  }
}

TEST_CASE("the checker rejects a reduction performed a second time", "[checker][mutation]") {
  for (const Subject& subject : subjects()) {
    const Editable original = take_apart(generate(subject));
    std::size_t tried = 0;
    for (TransferId k = 0; k < original.rows.size(); ++k) {
      if (original.rows[k].op != Op::reduce) continue;
      Row again = original.rows[k];
      again.deps = {k};
      INFO(name_of(subject) << ": reduce transfer " << k << " repeated");
      const std::string message = rejection(put_together(insert_after(original, k, again)));
      INFO("message: " << message);
      CHECK(contains(message, "second time"));
      ++tried;
    }
    INFO(name_of(subject));
    CHECK(tried > 0);
  }
}

TEST_CASE("the checker rejects a transfer that reads data before it arrives", "[checker][mutation]") {
  for (const Subject& subject : subjects()) {
    const Editable original = take_apart(generate(subject));
    std::size_t tried = 0;
    for (TransferId k = 0; k < original.rows.size(); ++k) {
      const Row& row = original.rows[k];
      // Only transfers whose source bytes some dependency writes.
      const bool reads_a_dependency = std::any_of(row.deps.begin(), row.deps.end(), [&](TransferId d) {
        const Row& dep = original.rows[d];
        return dep.dst == row.src && overlap(original.chunks[dep.dst_chunk], original.chunks[row.src_chunk]);
      });
      if (!reads_a_dependency) continue;
      Editable mutated = original;
      mutated.rows[k].deps.clear();
      INFO(name_of(subject) << ": dependencies of transfer " << k << " removed");
      const std::string message = rejection(put_together(mutated));
      INFO("message: " << message);
      CHECK((contains(message, "read before arrival") || contains(message, "write after")));
      ++tried;
    }
    INFO(name_of(subject));
    CHECK(tried > 0);
  }
}

TEST_CASE("the checker rejects a transfer that overwrites data still being read", "[checker][mutation]") {
  // Recursive doubling: the copy into a partner's staging in step k+1 must wait for the
  // partner's local reduction of step k, which reads that staging; nothing else orders them.
  for (Rank p : {4u, 8u}) {
    const Editable original = take_apart(generate({"recursive-doubling", p, 0}));
    std::size_t tried = 0;
    for (TransferId k = 0; k < original.rows.size(); ++k) {
      const Row& row = original.rows[k];
      if (row.src == row.dst) continue;
      auto reads_destination = [&](TransferId d) {
        const Row& dep = original.rows[d];
        return dep.src == row.dst && overlap(original.chunks[dep.src_chunk], original.chunks[row.dst_chunk]);
      };
      if (std::none_of(row.deps.begin(), row.deps.end(), reads_destination)) continue;
      Editable mutated = original;
      std::erase_if(mutated.rows[k].deps, reads_destination);
      INFO("P=" << p << ": transfer " << k << " no longer waits for the readers of its destination");
      const std::string message = rejection(put_together(mutated));
      INFO("message: " << message);
      CHECK(contains(message, "write after read"));
      ++tried;
    }
    CHECK(tried == std::size_t(p) * (floor_log2(p) - 1));  // every exchange after the first
  }
}

TEST_CASE("the checker rejects a write that is not ordered after a reader on another rank", "[checker]") {
  ScheduleInfo info;
  info.algorithm = "hand-made";
  info.collective = Collective::broadcast;
  info.ranks = 3;
  info.bytes = 8;
  Schedule s(info);
  const ChunkId all = s.add_chunk({0, 8});
  const std::vector<TransferId> after_first{0};
  s.append(0, all, 1, all, Op::copy, 0, {});           // 0: root -> 1
  s.append(0, all, 2, all, Op::copy, 0, {});           // 1: root -> 2
  s.append(1, all, 0, all, Op::copy, 1, after_first);  // 2: 1 -> root, not after transfer 1
  CHECK_THROWS_WITH(check_schedule(s), Catch::Contains("transfer 2") && Catch::Contains("still reads") &&
                                           Catch::Contains("transfer 1") && Catch::Contains("write after read"));
}

TEST_CASE("the checker rejects a dependency cycle", "[checker][mutation]") {
  for (const Subject& subject : subjects()) {
    const Editable original = take_apart(generate(subject));
    // The first transfer with a dependency d: make d wait for it too.
    const auto waiting = std::find_if(original.rows.begin(), original.rows.end(),
                                      [](const Row& r) { return !r.deps.empty(); });
    REQUIRE(waiting != original.rows.end());
    const TransferId k = TransferId(waiting - original.rows.begin());
    Editable mutated = original;
    mutated.rows[waiting->deps.front()].deps.push_back(k);
    INFO(name_of(subject) << ": transfer " << waiting->deps.front() << " made to wait for transfer " << k);
    const std::string message = rejection(put_together(mutated));
    INFO("message: " << message);
    CHECK(contains(message, "cycle"));
    CHECK_FALSE(contains(message, "\n"));
  }
}

TEST_CASE("the checker rejects an early transfer that waits for a later one", "[checker][mutation]") {
  for (const Subject& subject : subjects()) {
    Editable mutated = take_apart(generate(subject));
    // Transfer 0 waits for the last transfer; a later transfer of one of its ranks if possible.
    const Row first = mutated.rows.front();
    TransferId later = TransferId(mutated.rows.size() - 1);
    for (TransferId k = later; k > 0; --k)
      if (involves(mutated.rows[k], first.src) || involves(mutated.rows[k], first.dst)) {
        later = k;
        break;
      }
    mutated.rows.front().deps.push_back(later);
    INFO(name_of(subject) << ": transfer 0 waits for transfer " << later);
    const std::string message = rejection(put_together(mutated));
    INFO("message: " << message);
    CHECK((contains(message, "cycle") || contains(message, "later transfer")));
  }
}

TEST_CASE("the checker rejects a forward dependency even without a cycle", "[checker]") {
  ScheduleInfo info;
  info.algorithm = "hand-made";
  info.collective = Collective::broadcast;
  info.ranks = 3;
  info.bytes = 8;
  Schedule s(info);
  const ChunkId all = s.add_chunk({0, 8});
  const std::vector<TransferId> waits_for_next{1};
  s.append(0, all, 1, all, Op::copy, 0, waits_for_next);
  s.append(0, all, 2, all, Op::copy, 0, {});
  CHECK_THROWS_WITH(check_schedule(s), Catch::Contains("depends on later transfer 1"));
}

TEST_CASE("the checker rejects a transfer that depends on itself", "[checker]") {
  Editable mutated = take_apart(generate({"ring", 4, 0}));
  mutated.rows[5].deps.push_back(5);
  CHECK_THROWS_WITH(check_schedule(put_together(mutated)), Catch::Contains("cycle") && Catch::Contains("itself"));
}

TEST_CASE("the checker rejects a copy of the result turned into a reduction", "[checker][mutation]") {
  for (const Subject& subject : subjects()) {
    const Editable original = take_apart(generate(subject));
    std::size_t tried = 0;
    for (TransferId k = 0; k < original.rows.size(); ++k) {
      const Row& row = original.rows[k];
      // Copies into the data buffer (allgather, broadcast, unfold); staging copies excluded.
      if (row.op != Op::copy || original.chunks[row.dst_chunk].offset >= original.info.bytes) continue;
      Editable mutated = original;
      mutated.rows[k].op = Op::reduce;
      INFO(name_of(subject) << ": copy " << k << " turned into a reduction");
      const std::string message = rejection(put_together(mutated));
      INFO("message: " << message);
      CHECK(contains(message, "second time"));
      ++tried;
    }
    // Recursive doubling on a power of two copies only into staging.
    const bool has_data_copies = std::string(subject.algorithm) != "recursive-doubling" || !is_power_of_two(subject.ranks);
    INFO(name_of(subject));
    CHECK((tried > 0) == has_data_copies);
  }
}

TEST_CASE("the checker rejects a reduction turned into a copy", "[checker][mutation]") {
  for (const Subject& subject : subjects()) {
    const Editable original = take_apart(generate(subject));
    for (TransferId k = 0; k < original.rows.size(); ++k) {
      if (original.rows[k].op != Op::reduce) continue;
      Editable mutated = original;
      mutated.rows[k].op = Op::copy;
      INFO(name_of(subject) << ": reduction " << k << " turned into a copy");
      const std::string message = rejection(put_together(mutated));
      INFO("message: " << message);
      CHECK(contains(message, "postcondition"));
    }
  }
}

TEST_CASE("the checker rejects a dependency on a transfer neither rank takes part in", "[checker][mutation]") {
  std::size_t tried = 0;
  for (const Subject& subject : subjects()) {
    const Editable original = take_apart(generate(subject));
    for (TransferId k = 1; k < original.rows.size() && tried < 1000; ++k) {
      const Row& row = original.rows[k];
      const auto unrelated = std::find_if(original.rows.begin(), original.rows.begin() + k, [&](const Row& u) {
        return !involves(u, row.src) && !involves(u, row.dst);
      });
      if (unrelated == original.rows.begin() + k) continue;
      Editable mutated = original;
      mutated.rows[k].deps.push_back(TransferId(unrelated - original.rows.begin()));
      INFO(name_of(subject) << ": transfer " << k << " waits for unrelated transfer "
                            << (unrelated - original.rows.begin()));
      const std::string message = rejection(put_together(mutated));
      INFO("message: " << message);
      CHECK(contains(message, "takes part"));
      ++tried;
      break;  // one per schedule
    }
  }
  CHECK(tried >= 8);
}

TEST_CASE("the checker rejects structural nonsense: bad ranks, chunks, sizes and overlapping local transfers",
          "[checker]") {
  const Editable original = take_apart(generate({"recursive-doubling", 4, 0}));
  {
    Editable e = original;
    e.rows[3].dst = 4;
    CHECK_THROWS_WITH(check_schedule(put_together(e)), Catch::Contains("rank 4") && Catch::Contains("4 ranks"));
  }
  {
    Editable e = original;
    e.rows[3].src_chunk = ChunkId(e.chunks.size());
    CHECK_THROWS_WITH(check_schedule(put_together(e)), Catch::Contains("names chunk"));
  }
  {
    Editable e = original;
    e.chunks.push_back({0, 10});
    e.rows[0].dst_chunk = ChunkId(e.chunks.size() - 1);
    CHECK_THROWS_WITH(check_schedule(put_together(e)), Catch::Contains("bytes) into chunk"));
  }
  {
    // A local reduction from the data buffer onto itself.
    Editable e = original;
    const auto local = std::find_if(e.rows.begin(), e.rows.end(), [](const Row& r) { return r.src == r.dst; });
    REQUIRE(local != e.rows.end());
    local->src_chunk = local->dst_chunk;
    CHECK_THROWS_WITH(check_schedule(put_together(e)), Catch::Contains("overlap"));
  }
  {
    Editable e = original;
    e.chunks.push_back({e.info.address_space() - 1, 2});
    CHECK_THROWS_WITH(check_schedule(put_together(e)), Catch::Contains("outside"));
  }
}

TEST_CASE("signatures catch a dropped transfer when P is above the exact limit", "[checker][signature]") {
  ScheduleRequest request;
  request.ranks = 100;
  request.bytes = 1000;
  const Schedule valid = generate_schedule("ring", request);
  CheckReport report;
  REQUIRE_NOTHROW(report = check_schedule(valid));
  CHECK_FALSE(report.exact);
  const Editable original = take_apart(valid);
  const TransferId n = TransferId(original.rows.size());
  // First transfer, last of reduce-scatter, first of allgather, middle and last.
  for (TransferId k : {TransferId(0), n / 2 - 1, n / 2, n / 2 + n / 4, n - 1}) {
    INFO("dropped transfer " << k);
    const std::string message = rejection(put_together(drop_transfer(original, k)));
    INFO("message: " << message);
    CHECK((contains(message, "postcondition") || contains(message, "read")));
  }
}

TEST_CASE("signatures catch a duplicated contribution by its count", "[checker][signature]") {
  ScheduleRequest request;
  request.ranks = 8;
  request.bytes = 800;
  const Editable original = take_apart(generate_schedule("ring", request));
  // The last allgather copy to a rank turned into a reduction: no later transfer reads it.
  const TransferId last = TransferId(original.rows.size() - 1);
  Editable mutated = original;
  mutated.rows[last].op = Op::reduce;
  const std::string message = rejection(put_together(mutated), CheckOptions{.exact_up_to = 0});
  INFO("message: " << message);
  CHECK(contains(message, "postcondition"));
  CHECK(contains(message, "contributions"));
}

TEST_CASE("a correct schedule passes with signatures only", "[checker][signature]") {
  ScheduleRequest request;
  request.ranks = 8;
  request.bytes = 1000;
  for (const char* algorithm : {"ring", "two-tree", "rabenseifner"}) {
    INFO(algorithm);
    const Schedule s = generate_schedule(algorithm, request);
    CheckReport report;
    REQUIRE_NOTHROW(report = check_schedule(s, CheckOptions{.exact_up_to = 0}));
    CHECK_FALSE(report.exact);
    CHECK(report.transfers == s.size());
    CHECK(report.dependencies == s.dependency_count());
    CHECK(check_schedule(s).exact);
  }
}

TEST_CASE("the checker names the missing contribution when a postcondition fails", "[checker]") {
  ScheduleRequest request;
  request.collective = Collective::reduce;
  request.ranks = 4;
  request.bytes = 8;
  // Naive reduce to root 0 on 4 ranks: transfers 0-2 reduce ranks 1, 2, 3 into the root.
  Editable e = take_apart(generate_schedule("naive", request));
  REQUIRE(e.rows.size() == 3);
  REQUIRE(e.rows[2].src == 3);
  const std::string message = rejection(put_together(drop_transfer(e, 2)));
  INFO(message);
  CHECK(contains(message, "postcondition of reduce fails"));
  CHECK(contains(message, "rank 0"));
  CHECK(contains(message, "miss the contribution of rank 3"));
}

TEST_CASE("the checker names a rank left without the result", "[checker]") {
  ScheduleRequest request;
  request.ranks = 4;
  request.bytes = 8;
  // Naive allreduce on 4 ranks: the last transfer sends the result from root 0 to rank 3.
  Editable e = take_apart(generate_schedule("naive", request));
  const TransferId last = TransferId(e.rows.size() - 1);
  REQUIRE(e.rows[last].dst == 3);
  const std::string message = rejection(put_together(drop_transfer(e, last)));
  INFO(message);
  CHECK(contains(message, "postcondition of allreduce fails: rank 3"));
  CHECK(contains(message, "miss the contribution of rank 0"));
}
