// tests/collectives/test_collnet.cpp — collnet (NCCL's CollNet direct on InfiniBand SHARP) in
// the IR: M nodes x G ranks, node n's NVSwitch reducer n and the fabric's SHARP reducer after
// them (ScheduleInfo::fabric_reducer). The checker proves it for 1-5 nodes x G in {1, 2, 4, 8}
// x 1-4 segments; variants with a contribution reduced into the SHARP switch twice, or a
// multicast out of it that does not wait for every rail's reduction, are rejected; each GPU
// sends N + N/G into its node's switch and N/G into the fabric; explain, the schedule JSON and
// the SVG name the fabric's reducer "SHARP switch".
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "collectives/algorithm.hpp"
#include "collectives/checker.hpp"
#include "collectives/draw_svg.hpp"
#include "collectives/explain.hpp"
#include "collectives/schedule_json.hpp"
#include "tests/support/schedule_request.hpp"

using namespace collsim;

namespace {

Schedule collnet(Rank nodes, Rank g, std::uint64_t bytes, std::uint32_t segments) {
  return generate_schedule("collnet", test::allreduce_request(nodes * g, bytes, 1, g, segments));
}

// A copy of `s` with transfer `changed`'s dependencies replaced by `deps`, and transfer
// `twice` (if any) listed a second time right after itself, with the same dependencies.
Schedule copy_with(const Schedule& s, TransferId changed, std::vector<TransferId> deps, TransferId twice = kNoTransfer) {
  Schedule out(s.info());
  for (const ByteRange& c : s.chunks()) out.add_chunk(c);
  std::vector<TransferId> id_of(s.size());
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer t = s.transfer(id);
    std::vector<TransferId> d = id == changed ? deps : std::vector<TransferId>(t.deps.begin(), t.deps.end());
    for (TransferId& x : d) x = id_of[x];
    id_of[id] = out.append(t.src, t.src_chunk, t.dst, t.dst_chunk, t.op, t.step, d);
    if (id == twice) out.append(t.src, t.src_chunk, t.dst, t.dst_chunk, t.op, t.step, d);
  }
  return out;
}

}  // namespace

TEST_CASE("The checker proves collnet on 1-5 nodes of 1, 2, 4 and 8 ranks, sizes 0 to 4099, 1 to 4 segments") {
  std::size_t proved = 0;
  for (Rank m = 1; m <= 5; ++m)
    for (Rank g : {1u, 2u, 4u, 8u})
      for (std::uint64_t bytes : {0ull, 3ull, 1000ull, 4099ull})
        for (std::uint32_t segments = 1; segments <= 4; ++segments) {
          INFO(m << " nodes x " << g << ", N=" << bytes << " S=" << segments);
          const Schedule s = collnet(m, g, bytes, segments);
          REQUIRE(s.info().reducers == m + 1);
          REQUIRE(s.info().fabric_reducer() == m * g + m);
          REQUIRE_NOTHROW(check_schedule(s));
          ++proved;
        }
  CHECK(proved == 5 * 4 * 4 * 4);
}

TEST_CASE("collnet: each GPU sends N + N/G into its node's switch and N/G into the SHARP switch, and gets as much back") {
  const Rank m = 3, g = 4, p = m * g;
  const std::uint64_t n = 4 * 4 * 1000;  // G parts of S = 4 equal segments
  const Schedule s = collnet(m, g, n, 4);
  const ScheduleInfo& info = s.info();
  std::vector<std::uint64_t> to_node(p), to_fabric(p), from_node(p), from_fabric(p);
  std::uint64_t fabric_reduced = 0;
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer t = s.transfer(id);
    const std::uint64_t b = s.transfer_bytes(id);
    if (info.is_fabric_reducer(t.dst)) to_fabric[t.src] += b, fabric_reduced += b;
    else if (info.is_reducer(t.dst)) to_node[t.src] += b;
    if (info.is_fabric_reducer(t.src)) from_fabric[t.dst] += b;
    else if (info.is_reducer(t.src)) from_node[t.dst] += b;
    CHECK_FALSE((info.is_fabric_reducer(t.dst) && t.op == Op::copy));  // the fabric only reduces and multicasts
  }
  for (Rank r = 0; r < p; ++r) {
    INFO("rank " << r);
    CHECK(to_node[r] == n + n / g);
    CHECK(to_fabric[r] == n / g);
    CHECK(from_fabric[r] == n / g);
    CHECK(from_node[r] == n / g + (g - 1) * n / g);
  }
  CHECK(fabric_reduced == m * n);  // every node's node-sum of every part
  CHECK(s.size() == p * 4 * (2 * g + 3));  // the size bound's count, exactly
  CHECK(s.step_count() == 4 + 5);          // three phases of S + 1 steps, each two steps after the last
}

TEST_CASE("collnet with one rank per node uses only the SHARP switch, on one node, only the node's") {
  const Schedule rails = collnet(4, 1, 4000, 2);
  const Schedule node = collnet(1, 8, 4000, 2);
  for (TransferId id = 0; id < rails.size(); ++id) {
    const Transfer t = rails.transfer(id);
    CHECK((rails.info().is_fabric_reducer(t.src) || rails.info().is_fabric_reducer(t.dst)));
  }
  CHECK(rails.size() == 2 * 4 * 2);
  CHECK(rails.step_count() == 2 + 1);
  CHECK(node.step_count() == 2 + 3);
  for (TransferId id = 0; id < node.size(); ++id) {
    const Transfer t = node.transfer(id);
    CHECK_FALSE((node.info().is_fabric_reducer(t.src) || node.info().is_fabric_reducer(t.dst)));
  }
}

TEST_CASE("A collnet whose SHARP multicast leaves before every rail's reduction, or that reduces one twice, is caught") {
  const Schedule s = collnet(3, 2, 6000, 1);
  const ScheduleInfo& info = s.info();
  TransferId multicast = kNoTransfer, reduction = kNoTransfer;
  for (TransferId id = 0; id < s.size() && multicast == kNoTransfer; ++id) {
    const Transfer t = s.transfer(id);
    if (info.is_fabric_reducer(t.dst) && reduction == kNoTransfer) reduction = id;
    if (info.is_fabric_reducer(t.src)) multicast = id;
  }
  REQUIRE(multicast != kNoTransfer);
  std::vector<TransferId> fewer(s.transfer(multicast).deps.begin(), s.transfer(multicast).deps.end());
  REQUIRE(std::find(fewer.begin(), fewer.end(), reduction) != fewer.end());
  std::erase(fewer, reduction);
  CHECK_THROWS_WITH(check_schedule(copy_with(s, multicast, fewer)), Catch::Contains("multicast before every reduction"));
  CHECK_THROWS_WITH(check_schedule(copy_with(s, kNoTransfer, {}, reduction)), Catch::Contains("a second time"));
  CHECK_NOTHROW(check_schedule(copy_with(s, kNoTransfer, {})));  // the copy itself is sound
}

TEST_CASE("collnet's JSON keeps the fabric's reducer, and explain and the SVG call it the SHARP switch") {
  const Schedule s = collnet(2, 2, 64, 1);
  const Schedule back = schedule_from_json(schedule_to_json(s));
  CHECK(back == s);
  CHECK(back.info().is_fabric_reducer(6));
  CHECK(reducer_name(s.info(), 4) == "switch 0");
  CHECK(reducer_name(s.info(), 6) == "SHARP switch");
  CHECK(endpoint_name(s.info(), 6) == "SHARP switch");  // explain's rows and activity
  const std::string svg = schedule_svg(s);
  CHECK(svg.find(">SHARP switch</text>") != std::string::npos);
  CHECK(svg.find(">switch 1</text>") != std::string::npos);
  CHECK(svg.find(">rank 3</text>") != std::string::npos);
}
