// tests/collectives/test_transfer_context.cpp — which transfers are halves of an exchange: a message
// whose receiver sends to its sender in the same step (collectives/transfer_context.hpp).
#include <catch2/catch.hpp>

#include <string>

#include "collectives/algorithm.hpp"
#include "collectives/transfer_context.hpp"

using namespace collsim;

namespace {

Schedule allreduce(const std::string& algorithm, Rank ranks) {
  ScheduleRequest r;
  r.ranks = ranks;
  r.bytes = 1 << 16;
  return generate_schedule(algorithm, r);
}

// How many network transfers are halves, and how many are not.
std::pair<std::size_t, std::size_t> count_halves(const Schedule& s) {
  const std::vector<bool> halves = exchange_halves(s);
  REQUIRE(halves.size() == s.size());
  std::size_t yes = 0, no = 0;
  for (TransferId id = 0; id < s.size(); ++id) {
    if (s.transfer(id).is_local()) {
      CHECK_FALSE(halves[id]);
      continue;
    }
    (halves[id] ? yes : no) += 1;
  }
  return {yes, no};
}

}  // namespace

TEST_CASE("on two ranks the ring and recursive doubling exchange, while the tree and naive send one way at a time") {
  for (const char* algorithm : {"ring", "recursive-doubling", "rabenseifner"}) {
    INFO(algorithm);
    const auto [yes, no] = count_halves(allreduce(algorithm, 2));
    CHECK(yes > 0);
    CHECK(no == 0);
  }
  for (const char* algorithm : {"naive", "tree", "binomial"}) {
    INFO(algorithm);
    const auto [yes, no] = count_halves(allreduce(algorithm, 2));
    CHECK(yes == 0);
    CHECK(no > 0);
  }
}

TEST_CASE("a ring of more than two ranks sends to one neighbour and receives from the other: no exchange") {
  for (Rank p : {3u, 4u, 8u}) {
    INFO("P = " << p);
    CHECK(count_halves(allreduce("ring", p)).first == 0);
    // Recursive doubling pairs rank r with r xor 2^k in every step: all its messages are halves.
    if ((p & (p - 1)) == 0) CHECK(count_halves(allreduce("recursive-doubling", p)).second == 0);
  }
}

TEST_CASE("a reverse message in another step is no exchange") {
  ScheduleInfo info;
  info.ranks = 2;
  info.bytes = 64;
  Schedule s(info);
  const ChunkId a = s.add_chunk({0, 32}), b = s.add_chunk({32, 32});
  const std::vector<TransferId> first{s.append(0, a, 1, a, Op::copy, 0, {})};
  s.append(1, b, 0, b, Op::copy, 1, first);
  s.append(1, a, 0, a, Op::copy, 1, first);
  s.append(0, b, 1, b, Op::copy, 1, first);
  const std::vector<bool> halves = exchange_halves(s);
  CHECK(halves == std::vector<bool>{false, true, true, true});
}

TEST_CASE("recursive doubling reduces into the buffer it has just sent, ring, Rabenseifner and the trees do not") {
  const auto reductions = [](const Schedule& s) {
    const std::vector<bool> into_sent = reductions_into_sent(s);
    REQUIRE(into_sent.size() == s.size());
    std::size_t yes = 0, no = 0;
    for (TransferId id = 0; id < s.size(); ++id) {
      if (s.transfer(id).op != Op::reduce) {
        CHECK_FALSE(into_sent[id]);
        continue;
      }
      (into_sent[id] ? yes : no) += 1;
    }
    return std::pair{yes, no};
  };
  for (Rank p : {2u, 4u, 8u}) {
    INFO("P = " << p);
    const auto [yes, no] = reductions(allreduce("recursive-doubling", p));
    CHECK(yes > 0);
    CHECK(no == 0);
    for (const char* algorithm : {"ring", "rabenseifner", "tree", "naive", "binomial", "two-tree"}) {
      INFO(algorithm);
      CHECK(reductions(allreduce(algorithm, p)).first == 0);
    }
  }
}

TEST_CASE("a transfer context is computed only where it is asked for") {
  const Schedule s = allreduce("recursive-doubling", 2);
  const TransferContext none = transfer_context(s, false, false);
  CHECK(none.halves.empty());
  CHECK(none.into_sent.empty());
  const TransferContext both = transfer_context(s, true, true);
  CHECK(both.halves == exchange_halves(s));
  CHECK(both.into_sent == reductions_into_sent(s));
  for (TransferId id = 0; id < s.size(); ++id) {
    CHECK_FALSE(none.exchange_half(id));
    CHECK(both.reduction_into_sent(id) == (s.transfer(id).op == Op::reduce));
  }
}
