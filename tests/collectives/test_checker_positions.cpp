// tests/collectives/test_checker_positions.cpp — the checker proves where data lands, not only
// whose it is: every algorithm of every collective, with one transfer sent to the wrong
// chunk (misplaced), its two halves crossed (swapped), or a destination one
// byte off (off by one), must be refused with a message that names a transfer.
#include <catch2/catch.hpp>

#include <optional>
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

std::string rejection(const Schedule& s) {
  try {
    (void)check_schedule(s);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const char* phrase) { return text.find(phrase) != std::string::npos; }
bool about_positions(const std::string& m) { return contains(m, "misplaced") || contains(m, "mixes positions"); }

struct Family {
  std::string algorithm;
  Collective collective;
  Schedule schedule;
};

// Every algorithm of the table with every collective it implements, on 8 ranks of 1024 bytes,
// in nodes of 4 where it needs nodes (or in one node of 8 where it runs within one).
std::vector<Family> every_family() {
  std::vector<Family> out;
  for (const AlgorithmEntry& a : algorithm_table())
    for (Collective c : a.collectives) {
      ScheduleRequest request;
      request.collective = c;
      request.ranks = 8;
      request.bytes = 1024;
      request.ranks_per_node = a.runs_on(8, 4) ? 4 : 8;
      if (a.in_network == InNetwork::none && !a.needs_ranks_per_node) request.ranks_per_node = 0;
      out.push_back({std::string(a.name), c, generate_schedule(a.name, request)});
    }
  return out;
}

// About 24 transfers spread over the schedule, each with a non-empty chunk.
std::vector<TransferId> sample(const Editable& e) {
  std::vector<TransferId> ids;
  const std::size_t stride = std::max<std::size_t>(1, e.rows.size() / 24);
  for (TransferId k = 0; k < e.rows.size(); k += TransferId(stride))
    if (e.chunks[e.rows[k].dst_chunk].bytes > 0) ids.push_back(k);
  return ids;
}

// Another chunk of the same size at a different offset, or none.
std::optional<ChunkId> other_chunk_like(const Editable& e, ChunkId c) {
  for (ChunkId o = 0; o < e.chunks.size(); ++o)
    if (e.chunks[o].bytes == e.chunks[c].bytes && e.chunks[o].offset != e.chunks[c].offset) return o;
  return std::nullopt;
}

struct Tally {
  std::size_t tried = 0, by_position = 0;
};

void require_rejected(const Family& f, const Editable& mutated, const std::string& what, Tally& tally) {
  const std::string message = rejection(put_together(mutated));
  INFO(f.algorithm << " " << to_string(f.collective) << ": " << what << "; message: " << message);
  REQUIRE_FALSE(message.empty());
  CHECK(contains(message, "transfer "));
  CHECK_FALSE(contains(message, "\n"));
  ++tally.tried;
  tally.by_position += about_positions(message);
}

}  // namespace

TEST_CASE("every algorithm family is refused with a chunk sent to the wrong place", "[checker][mutation][positions]") {
  for (const Family& f : every_family()) {
    const Editable original = take_apart(f.schedule);
    Tally tally;
    for (TransferId k : sample(original)) {
      const std::optional<ChunkId> elsewhere = other_chunk_like(original, original.rows[k].dst_chunk);
      if (!elsewhere) continue;
      Editable mutated = original;
      mutated.rows[k].dst_chunk = *elsewhere;
      require_rejected(f, mutated, "transfer " + std::to_string(k) + " misplaced", tally);
    }
    INFO(f.algorithm << " " << to_string(f.collective) << ": " << tally.by_position << " of " << tally.tried
                     << " refused by position");
    // Families that move the whole buffer as one chunk have no other place to send it: the
    // swapped-halves test covers them.
    if (original.chunks.size() > 1) CHECK(tally.tried > 0);
  }
}

// Transfer k cut in two halves that cross: the first half of its source lands on the second
// half of its destination and the other way round. Applies to every family (also those that
// move the whole buffer as one chunk), and stays free of hazards: only positions are wrong.
Editable halves_swapped(Editable e, TransferId k) {
  const Row whole = e.rows[k];
  const ByteRange from = e.chunks[whole.src_chunk], to = e.chunks[whole.dst_chunk];
  const std::uint64_t h = from.bytes / 2;
  const auto add = [&](ByteRange r) {
    e.chunks.push_back(r);
    return ChunkId(e.chunks.size() - 1);
  };
  // Every chunk cut at its half too, so a chunk mapped onto another (data onto scratch) keeps
  // the same element boundaries as its image.
  for (std::size_t c = 0, n = e.chunks.size(); c < n; ++c) add({e.chunks[c].offset, e.chunks[c].bytes / 2});
  Row first = whole, second = whole;
  first.src_chunk = add({from.offset, h});
  first.dst_chunk = add({to.offset + h, h});
  second.src_chunk = add({from.offset + h, h});
  second.dst_chunk = add({to.offset, h});
  for (Row& r : e.rows)
    for (std::size_t i = 0, n = r.deps.size(); i < n; ++i) {
      if (r.deps[i] > k) ++r.deps[i];
      else if (r.deps[i] == k) r.deps.push_back(k + 1);
    }
  e.rows[k] = first;
  e.rows.insert(e.rows.begin() + k + 1, second);
  return e;
}

TEST_CASE("every algorithm family is refused with a transfer's two halves swapped", "[checker][mutation][positions]") {
  for (const Family& f : every_family()) {
    const Editable original = take_apart(f.schedule);
    Tally tally;
    for (TransferId k : sample(original)) {
      const ByteRange c = original.chunks[original.rows[k].dst_chunk];
      if (c.bytes < 2 || c.bytes % 2) continue;
      require_rejected(f, halves_swapped(original, k), "transfer " + std::to_string(k) + "'s halves swapped", tally);
    }
    INFO(f.algorithm << " " << to_string(f.collective) << ": " << tally.by_position << " of " << tally.tried
                     << " refused by position");
    CHECK(tally.tried > 0);
    // Refused by position, but for halves that hold different ranks' blocks (Bruck's packed
    // messages), where the wrong rank's block shows first.
    CHECK(tally.by_position > 0);
    if (f.collective != Collective::alltoall) CHECK(tally.by_position == tally.tried);
  }
}

TEST_CASE("every algorithm family is refused with a destination one byte off", "[checker][mutation][positions]") {
  for (const Family& f : every_family()) {
    const Editable original = take_apart(f.schedule);
    Tally tally;
    const std::uint64_t space = original.info.address_space();
    for (TransferId k : sample(original)) {
      const ByteRange c = original.chunks[original.rows[k].dst_chunk];
      if (c.offset == 0 && c.end() == space) continue;  // the whole buffer cannot be off by one
      Editable mutated = original;
      mutated.chunks.push_back(c.end() < space ? ByteRange{c.offset + 1, c.bytes} : ByteRange{c.offset - 1, c.bytes});
      mutated.rows[k].dst_chunk = ChunkId(mutated.chunks.size() - 1);
      require_rejected(f, mutated, "transfer " + std::to_string(k) + " one byte off", tally);
    }
    INFO(f.algorithm << " " << to_string(f.collective));
    if (original.chunks.size() > 1) CHECK(tally.tried > 0);
  }
}

// The hole the issue names: rank 0's chunk 0 reduced into rank 1's chunk 1, mirrored, then
// copied back: every byte ends holding {0, 1}, and only positions tell that it is wrong.
TEST_CASE("a reduction that mixes positions is refused at that transfer", "[checker][positions]") {
  ScheduleInfo info;
  info.ranks = 2;
  info.bytes = 2;
  Schedule s(info);
  const ChunkId c0 = s.add_chunk({0, 1}), c1 = s.add_chunk({1, 1});
  const TransferId t0 = s.append(0, c0, 1, c1, Op::reduce, 0, {});
  const TransferId t1 = s.append(1, c0, 0, c1, Op::reduce, 0, {});
  const std::vector<TransferId> after0{t0}, after1{t1}, both{t0, t1};
  s.append(1, c1, 0, c0, Op::copy, 1, both);
  s.append(0, c1, 1, c0, Op::copy, 1, both);
  const std::string message = rejection(s);
  INFO(message);
  CHECK(contains(message, "transfer 0 (reduce 0 -> 1, step 0) reduces bytes [0, 1)"));
  CHECK(contains(message, "mixes positions"));
}

TEST_CASE("a copy to the wrong offset fails the postcondition naming the transfer", "[checker][positions]") {
  ScheduleInfo info;
  info.collective = Collective::broadcast;
  info.ranks = 2;
  info.bytes = 2;
  Schedule s(info);
  const ChunkId c0 = s.add_chunk({0, 1}), c1 = s.add_chunk({1, 1});
  s.append(0, c0, 1, c1, Op::copy, 0, {});
  s.append(0, c1, 1, c0, Op::copy, 0, {});
  const std::string message = rejection(s);
  INFO(message);
  CHECK(contains(message, "postcondition of broadcast fails: rank 1 bytes [0, 1)"));
  CHECK(contains(message, "hold bytes [1, 2) (misplaced)"));
  CHECK(contains(message, "last written by transfer 1"));
}

TEST_CASE("a misplaced block is caught with signatures too (P above the exact limit)", "[checker][positions]") {
  ScheduleRequest request;
  request.collective = Collective::allgather;
  request.ranks = 8;
  request.bytes = 800;
  Editable e = take_apart(generate_schedule("ring", request));
  const std::optional<ChunkId> elsewhere = other_chunk_like(e, e.rows.back().dst_chunk);
  REQUIRE(elsewhere);
  e.rows.back().dst_chunk = *elsewhere;
  std::string message;
  try {
    (void)check_schedule(put_together(e), CheckOptions{.exact_up_to = 0, .seed = 1, .progress = {}});
  } catch (const Error& error) {
    message = error.what();
  }
  INFO(message);
  CHECK_FALSE(message.empty());
}
