// tests/sim/test_flow_queue.cpp — the flow engine's event queue (sim/flow_queue.hpp): on random
// pushes, moved ends and pops it pops what one sorted list of the live events would, in order
// of (time, key), where a flow's end moved in place is there once, at its latest time, and an
// event set at or before the instant last popped joins that instant.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "sim/flow_queue.hpp"

using namespace collsim;
using namespace collsim::flow;

namespace {

struct Live {
  double time;  // max(time given, the instant last popped when given)
  std::uint32_t key, slot;
  bool end;
};

bool before(const Live& a, const Live& b) { return a.time < b.time || (a.time == b.time && a.key < b.key); }

std::uint32_t key_of(EventKind kind, std::uint32_t id) { return (std::uint32_t(kind) << kKindShift) | id; }

void exercise(std::uint32_t seed, std::uint32_t slots, int operations) {
  std::mt19937 random(seed);
  EventQueue queue;
  std::vector<Live> live;  // the reference: every live event, unsorted
  double instant = 0;
  std::uint32_t next_id = 0;
  // Times on a coarse grid, so that many events share an instant, and sometimes in the past.
  const auto some_time = [&] { return instant + double(random() % 8) * 0.25 - (random() % 4 == 0 ? 0.5 : 0.0); };
  for (int op = 0; op < operations; ++op) {
    const std::uint32_t what = random() % 10;
    if (what < 3) {
      const EventKind kind = random() % 2 ? EventKind::flow_start : EventKind::local_ready;
      const Event e{some_time(), key_of(kind, next_id++), 0, std::uint32_t(random() % slots)};
      queue.push(e);
      live.push_back({std::max(e.time, instant), e.key, e.slot, false});
    } else if (what < 6) {
      const std::uint32_t slot = std::uint32_t(random() % slots), id = next_id++;
      const double time = some_time();
      queue.set_end(slot, time, id);
      std::erase_if(live, [&](const Live& l) { return l.end && l.slot == slot; });
      live.push_back({std::max(time, instant), key_of(EventKind::flow_end, id), slot, true});
    } else if (!live.empty()) {
      REQUIRE_FALSE(queue.empty());
      const auto expected = std::min_element(live.begin(), live.end(), before);
      REQUIRE(queue.next_time() <= expected->time);
      const Event e = queue.pop();
      INFO("operation " << op);
      REQUIRE(e.key == expected->key);
      REQUIRE(e.slot == expected->slot);
      REQUIRE(e.time == expected->time);
      instant = expected->time;
      live.erase(expected);
    }
  }
  while (!live.empty()) {
    const auto expected = std::min_element(live.begin(), live.end(), before);
    REQUIRE(queue.pop().key == expected->key);
    live.erase(expected);
  }
  REQUIRE(queue.empty());
}

}  // namespace

TEST_CASE("the event queue pops live events in order of time then key, each flow's end once, where it moved last") {
  for (std::uint32_t seed = 1; seed <= 40; ++seed) exercise(seed, 1 + seed % 24, 4000);
}

TEST_CASE("a flow's end moved later or earlier pops only at its new time") {
  EventQueue queue;
  queue.set_end(3, 5.0, 7);
  queue.push({4.0, key_of(EventKind::flow_start, 9), 0, 1});
  queue.set_end(3, 6.0, 7);  // later: nothing pops at 5
  queue.set_end(4, 2.0, 8);
  queue.set_end(4, 1.0, 8);  // earlier
  Event e = queue.pop();
  REQUIRE((e.time == 1.0 && e.id() == 8 && e.kind() == EventKind::flow_end));
  e = queue.pop();
  REQUIRE((e.time == 4.0 && e.id() == 9 && e.kind() == EventKind::flow_start));
  e = queue.pop();
  REQUIRE((e.time == 6.0 && e.id() == 7 && e.slot == 3));
  REQUIRE(queue.empty());
}

TEST_CASE("at one instant the event queue pops ends, then starts, then local reductions, each by transfer id") {
  EventQueue queue;
  queue.push({1.0, key_of(EventKind::local_ready, 1), 0, 0});
  queue.push({1.0, key_of(EventKind::flow_start, 5), 0, 0});
  queue.set_end(0, 1.0, 9);
  queue.set_end(1, 1.0, 2);
  queue.push({1.0, key_of(EventKind::flow_start, 3), 0, 0});
  std::vector<std::uint32_t> keys;
  while (!queue.empty()) keys.push_back(queue.pop().key);
  REQUIRE(keys == std::vector<std::uint32_t>{key_of(EventKind::flow_end, 2), key_of(EventKind::flow_end, 9),
                                             key_of(EventKind::flow_start, 3), key_of(EventKind::flow_start, 5),
                                             key_of(EventKind::local_ready, 1)});
}
