// tests/sim/test_radix_heap.cpp — the filling's monotone heap (sim/radix_heap.hpp): it pops in
// the order of a binary heap of (share, link) pairs, ties and rounding steps down included, with
// pushes between pops as a filling makes them, so the filling freezes links in the same order.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <random>
#include <vector>

#include "sim/radix_heap.hpp"

using namespace collsim;

TEST_CASE("the radix heap pops as a binary heap of (share, link) pairs, with pushes between pops") {
  std::mt19937_64 random(7);
  RadixHeap heap;
  using Pair = std::pair<double, std::uint32_t>;
  for (int instance = 0; instance < 50; ++instance) {
    heap.clear();
    std::priority_queue<Pair, std::vector<Pair>, std::greater<>> reference;
    auto push = [&](double share, std::uint32_t link) {
      heap.push(share, link);
      reference.emplace(share, link);
    };
    // Few distinct shares, so that ties are common, as on a fabric in lock-step.
    auto share = [&] { return double(random() % 40) * 1.25e9; };
    for (std::uint32_t l = 0; l < 300; ++l) push(share(), l);
    push(std::numeric_limits<double>::infinity(), 300);
    double last = 0;
    while (!heap.empty()) {
      const RadixHeap::Entry top = heap.pop();
      REQUIRE(!reference.empty());
      REQUIRE(top.share == reference.top().first);
      REQUIRE(top.link == reference.top().second);
      reference.pop();
      last = top.share;
      if (!std::isfinite(last)) continue;
      const std::uint32_t link = std::uint32_t(random() % 400);
      switch (random() % 4) {
        case 0: push(last + share(), link); break;                  // a share raised by a freeze
        case 1: push(std::nextafter(last, 0.0), link); break;      // a rounding step down
        default: break;
      }
    }
    REQUIRE(reference.empty());
  }
}

TEST_CASE("a share pushed below the last pop comes out next, clear starts again from 0, equal shares come by link") {
  RadixHeap heap;
  heap.push(5.0, 1);
  heap.push(9.0, 2);
  REQUIRE(heap.pop().link == 1);
  heap.push(std::nextafter(5.0, 0.0), 3);  // a rounding step down
  const RadixHeap::Entry next = heap.pop();
  REQUIRE(next.link == 3);
  REQUIRE(next.share == std::nextafter(5.0, 0.0));
  REQUIRE(heap.pop().link == 2);
  REQUIRE(heap.empty());

  heap.push(7.0, 4);
  heap.clear();
  REQUIRE(heap.empty());
  heap.push(1.0, 5);  // below every key before the clear
  heap.push(0.5, 6);
  REQUIRE(heap.pop().link == 6);
  REQUIRE(heap.pop().link == 5);
  heap.push(3.0, 9);  // equal shares: lowest link first, as a heap of (share, link) pairs
  heap.push(3.0, 2);
  heap.push(3.0, 5);
  REQUIRE(heap.pop().link == 2);
  heap.push(3.0, 1);                       // joins the current key, in link order
  heap.push(std::nextafter(3.0, 0.0), 8);  // a rounding step down: before every 3.0
  REQUIRE(heap.pop().link == 8);
  REQUIRE(heap.pop().link == 1);
  REQUIRE(heap.pop().link == 5);
  REQUIRE(heap.pop().link == 9);
  REQUIRE(heap.empty());
}
