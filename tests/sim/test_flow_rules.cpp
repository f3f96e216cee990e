// tests/sim/test_flow_rules.cpp — the flow engine's rank reducer and pair channel
// (sim/flow_rules.hpp) on hand-computed times, alone and through the engine's three paths
// (the one-pass shortcut, the event simulation with and without its partial shortcut).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "sim/flow_engine.hpp"
#include "sim/flow_rules.hpp"
#include "topologies/cluster_config.hpp"

using namespace collsim;
using flow::PairChannel;
using flow::RankReducer;

// Times below are sums of binary fractions: exact, so compared with ==.
TEST_CASE("a rank's reducer reduces one at a time, in order of arrival") {
  RankReducer reducer;
  RankReducer::Reduced r = reducer.reduce(1, 1.0, 2.0, false);  // free: done at arrival + cost
  CHECK(r.done_s == 3.0);
  CHECK(r.behind == kNoTransfer);
  r = reducer.reduce(2, 2.0, 0.5, false);  // arrives while 1 reduces: waits for it
  CHECK(r.done_s == 3.5);
  CHECK(r.behind == 1);
  r = reducer.reduce(3, 3.5, 0.25, false);  // arrives as 2 is done: no wait
  CHECK(r.done_s == 3.75);
  CHECK(r.behind == kNoTransfer);
  r = reducer.reduce(4, 5.0, 1.0, false);
  CHECK(r.done_s == 6.0);
  CHECK(r.behind == kNoTransfer);
}

TEST_CASE("a rank's reducer tells when an arrival timed ahead could pass the events' order") {
  RankReducer reducer;
  CHECK(reducer.keeps_order(0.0, true));  // the first one
  reducer.reduce(1, 5.0, 1.0, false);
  CHECK(!reducer.keeps_order(4.0, false));  // earlier than one already reduced
  CHECK(reducer.keeps_order(5.0, false));   // a tie the events order themselves
  CHECK(!reducer.keeps_order(5.0, true));   // a tie timed ahead: the events could order it first
  CHECK(reducer.keeps_order(5.5, true));
  reducer.reduce(2, 6.0, 1.0, true);
  CHECK(!reducer.keeps_order(6.0, false));  // a tie with one timed ahead
  CHECK(reducer.keeps_order(6.5, false));
}

TEST_CASE("a pair's channel drains its transfers in order, each after the previous one arrived") {
  PairChannel channel;
  CHECK(channel.last() == kNoTransfer);
  PairChannel::Drained d = channel.drain(10, 1.0, 100, 50.0);  // alone: from its start-up on
  CHECK(d.start_s == 1.0);
  CHECK(d.arrival_s == 3.0);
  CHECK(d.behind == kNoTransfer);
  d = channel.drain(11, 2.0, 50, 100.0);  // start-up over while 10 drains: after it
  CHECK(d.start_s == 3.0);
  CHECK(d.arrival_s == 3.5);
  CHECK(d.behind == 10);
  d = channel.drain(12, 3.5, 25, 100.0);  // start-up over as 11 arrives: no wait
  CHECK(d.start_s == 3.5);
  CHECK(d.arrival_s == 3.75);
  CHECK(d.behind == kNoTransfer);
  CHECK(channel.last() == 12);
  CHECK(channel.last_arrival_s() == 3.75);
  const PairChannel::Carried carried = channel.take_carried();
  CHECK(carried.bytes == 175);
  CHECK(carried.busy_s == 2.75);  // 2 + 0.5 + 0.25: the drains, not the waits
  CHECK(carried.fastest_Bps == 100.0);
  CHECK(channel.carried().bytes == 0);  // counted from zero again; the order is kept
  CHECK(channel.drain(13, 3.0, 100, 100.0).start_s == 3.75);
}

namespace {

// A cable per pair, no latency, 1 GB/s, 1 ns per reduced byte. Rank 2 receives two reductions,
// 1 MB at 1 ms and 1.5 MB at 1.5 ms: the second waits until 2 ms and is done at 3.5 ms. Pair
// (0, 1) carries 1 MB from 0 to 1 ms, and a second 1 MB whose dependency (0.5 MB from 2 to 0)
// is done at 0.5 ms: it waits until 1 ms and arrives at 2 ms. `overtaken`: pair (1, 0) also
// carries two 0.25 MB, the first after that 0.5 MB (ready at 0.5 ms), the second ready at 0:
// the events drain the second first, from 0; the one-pass shortcut, which follows the list,
// leaves them to the events.
Schedule waits(bool overtaken) {
  ScheduleInfo info;
  info.ranks = 3;
  info.bytes = 1500000;
  Schedule s(info);
  const auto add = [&s](Rank src, Rank dst, std::uint64_t bytes, Op op, std::vector<TransferId> deps) {
    const ChunkId chunk = s.add_chunk({0, bytes});
    s.append(src, chunk, dst, chunk, op, 0, deps);
  };
  add(0, 2, 1000000, Op::reduce, {});
  add(1, 2, 1500000, Op::reduce, {});
  add(0, 1, 1000000, Op::copy, {});
  add(2, 0, 500000, Op::copy, {});
  add(0, 1, 1000000, Op::copy, {3});
  if (overtaken) {
    add(1, 0, 250000, Op::copy, {3});
    add(1, 0, 250000, Op::copy, {});
  }
  return s;
}

}  // namespace

TEST_CASE("the flow engine's paths time a reducer's and a channel's waits alike") {
  const ClusterConfig c = parse_cluster_config(
      "name: t\nlink_classes:\n  l: {bandwidth_Bps: 1.0e+9}\ntopology: {kind: full, endpoints: 3, link: l}\n"
      "ranks: 3\ngamma_s_per_byte: 1.0e-9\n",
      "t.yaml");
  enum class Path { one_pass, partial_shortcut, events };
  for (const Path path : {Path::one_pass, Path::partial_shortcut, Path::events}) {
    INFO("path " << int(path));
    FlowOptions options;
    options.timeline = true;
    options.shortcut = path != Path::events;
    const Schedule s = waits(path != Path::one_pass);
    const FlowResult f = run_flow(s, *c.topology, 1e-9, options);
    CHECK((f.events == 0) == (path == Path::one_pass));
    CHECK((f.exclusive_transfers == s.size()) == (path == Path::partial_shortcut));
    REQUIRE(f.timeline.size() == s.size());
    CHECK(f.timeline[0].done_s == Approx(2e-3).epsilon(1e-12));
    CHECK(f.timeline[1].arrival_s == Approx(1.5e-3).epsilon(1e-12));
    CHECK(f.timeline[1].done_s == Approx(3.5e-3).epsilon(1e-12));
    CHECK(f.timeline[4].ready_s == Approx(0.5e-3).epsilon(1e-12));
    CHECK(f.timeline[4].start_s == Approx(1e-3).epsilon(1e-12));
    CHECK(f.timeline[4].arrival_s == Approx(2e-3).epsilon(1e-12));
    if (s.size() > 5) {
      CHECK(f.timeline[6].start_s == 0.0);
      CHECK(f.timeline[6].arrival_s == Approx(0.25e-3).epsilon(1e-12));
      CHECK(f.timeline[5].start_s == Approx(0.5e-3).epsilon(1e-12));
      CHECK(f.timeline[5].arrival_s == Approx(0.75e-3).epsilon(1e-12));
    }
    CHECK(f.time_s == Approx(3.5e-3).epsilon(1e-12));
    REQUIRE(f.critical_path.size() == 2);
    CHECK(f.critical_path[0].id == 0);
    CHECK(f.critical_path[1].id == 1);
    CHECK(f.critical_path[1].waited == Waited::reducer);
  }
}
