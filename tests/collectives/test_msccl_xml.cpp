// tests/collectives/test_msccl_xml.cpp — MSCCL's XML IR (collectives/msccl_xml.hpp): every
// allreduce algorithm collsim writes out reads back as a schedule the checker proves, with the
// same transfers; small XML written by hand from the format's description (2-4 GPUs) reads
// as the transfers it describes; malformed or unsupported files are refused naming the line.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <tuple>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/checker.hpp"
#include "collectives/msccl_xml.hpp"

using namespace collsim;

namespace {

ScheduleRequest allreduce(Rank ranks, std::uint64_t bytes) {
  ScheduleRequest r;
  r.ranks = ranks;
  r.bytes = bytes;
  return r;
}

// The transfers as (src, dst, src bytes, dst bytes, op), in no particular order.
std::multiset<std::tuple<Rank, Rank, std::uint64_t, std::uint64_t, std::uint64_t, Op>> moves(const Schedule& s) {
  std::multiset<std::tuple<Rank, Rank, std::uint64_t, std::uint64_t, std::uint64_t, Op>> out;
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer t = s.transfer(id);
    out.emplace(t.src, t.dst, s.chunks()[t.src_chunk].offset, s.chunks()[t.dst_chunk].offset, s.transfer_bytes(id), t.op);
  }
  return out;
}

// A 2-GPU allreduce by hand: each GPU sends its half the other reduces, then the reduced half back.
const char* kTwoGpus = R"(<algo name="halves" proto="Simple" nchannels="1" nchunksperloop="2" ngpus="2" coll="allreduce" inplace="1">
  <gpu id="0" i_chunks="2" o_chunks="2" s_chunks="0">
    <tb id="0" send="1" recv="1" chan="0">
      <step s="0" type="s" srcbuf="i" srcoff="1" dstbuf="i" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="rrc" srcbuf="i" srcoff="0" dstbuf="i" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="2" type="s" srcbuf="i" srcoff="0" dstbuf="i" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="3" type="r" srcbuf="i" srcoff="1" dstbuf="i" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
  <gpu id="1" i_chunks="2" o_chunks="2" s_chunks="0">
    <tb id="0" send="0" recv="0" chan="0">
      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="i" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="rrc" srcbuf="i" srcoff="1" dstbuf="i" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="2" type="s" srcbuf="i" srcoff="1" dstbuf="i" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="3" type="r" srcbuf="i" srcoff="0" dstbuf="i" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
</algo>
)";

// A 3-GPU allreduce by hand through scratch: GPUs 1 and 2 send all to GPU 0 (into its
// scratch), which reduces locally (re) and sends the sum back from two threadblocks, the
// second waiting on the first threadblock's reductions by depid/deps.
const char* kThreeGpus = R"(<algo name="star" nchunksperloop="1" ngpus="3" coll="allreduce">
  <gpu id="0" i_chunks="1" o_chunks="1" s_chunks="2">
    <tb id="0" send="1" recv="1" chan="0">
      <step s="0" type="r" srcbuf="i" srcoff="0" dstbuf="s" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="re" srcbuf="s" srcoff="0" dstbuf="i" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="2" type="re" srcbuf="s" srcoff="1" dstbuf="i" dstoff="0" cnt="1" depid="1" deps="0" hasdep="1"/>
      <step s="3" type="s" srcbuf="i" srcoff="0" dstbuf="i" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
    <tb id="1" send="2" recv="2" chan="0">
      <step s="0" type="r" srcbuf="i" srcoff="0" dstbuf="s" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="1"/>
      <step s="1" type="s" srcbuf="i" srcoff="0" dstbuf="i" dstoff="0" cnt="1" depid="0" deps="2" hasdep="0"/>
    </tb>
  </gpu>
  <gpu id="1" i_chunks="1" o_chunks="1" s_chunks="0">
    <tb id="0" send="0" recv="0" chan="0">
      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="s" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="r" srcbuf="i" srcoff="0" dstbuf="i" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
  <gpu id="2" i_chunks="1" o_chunks="1" s_chunks="0">
    <tb id="0" send="0" recv="0" chan="0">
      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="s" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="r" srcbuf="i" srcoff="0" dstbuf="i" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
</algo>
)";

// A 2-GPU allgather by hand in MSCCL's in-place form: each GPU sends its input chunk (its part
// of the output) to the other, which receives it into its output.
const char* kAllgather = R"(<algo name="swap" nchunksperloop="2" ngpus="2" coll="allgather" inplace="1">
  <gpu id="0" i_chunks="1" o_chunks="2" s_chunks="0">
    <tb id="0" send="1" recv="1" chan="0">
      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="r" srcbuf="i" srcoff="0" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
  <gpu id="1" i_chunks="1" o_chunks="2" s_chunks="0">
    <tb id="0" send="0" recv="0" chan="0">
      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="r" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
</algo>
)";

void refused(const std::string& xml, const std::string& fragment) {
  INFO(xml);
  REQUIRE_THROWS_WITH(parse_msccl_xml(xml, "t.xml", 8), Catch::Contains(fragment));
}

}  // namespace

TEST_CASE("every allreduce algorithm collsim writes as MSCCL XML reads back as the same transfers, proved") {
  for (const char* algorithm : {"ring", "two-tree", "tree", "rabenseifner", "recursive-doubling", "binomial", "naive"})
    for (Rank ranks : {2u, 3u, 4u, 5u, 8u}) {
      INFO(algorithm << " on " << ranks << " ranks");
      const Schedule built = generate_schedule(algorithm, allreduce(ranks, 4096 * ranks));
      const Schedule read = parse_msccl_xml(schedule_to_msccl_xml(built), "written.xml", built.info().bytes);
      CHECK_NOTHROW(check_schedule(read));
      CHECK(read.info().algorithm == algorithm);
      CHECK(read.info().bytes == built.info().bytes);
      CHECK(moves(read) == moves(built));
    }
}

TEST_CASE("every allgather, reduce-scatter and alltoall algorithm written as MSCCL XML reads back the same, proved") {
  for (Collective collective : {Collective::allgather, Collective::reduce_scatter, Collective::alltoall})
    for (const AlgorithmEntry& entry : algorithm_table()) {
      if (!entry.supports(collective) || entry.in_network != InNetwork::none || entry.needs_ranks_per_node) continue;
      for (Rank ranks : {2u, 3u, 4u, 5u, 8u}) {
        INFO(entry.name << " " << to_string(collective) << " on " << ranks << " ranks");
        ScheduleRequest request = allreduce(ranks, 4096 * ranks);
        request.collective = collective;
        const Schedule built = generate_schedule(entry.name, request);
        const std::string xml = schedule_to_msccl_xml(built);
        const Schedule read = parse_msccl_xml(xml, "written.xml", built.info().bytes);
        CHECK_NOTHROW(check_schedule(read));
        CHECK(read.info().collective == collective);
        CHECK(read.info().scratch_bytes == built.info().scratch_bytes);
        CHECK(moves(read) == moves(built));
      }
    }
}

TEST_CASE("a pipelined schedule keeps its segments through MSCCL XML (collsim_segments)") {
  ScheduleRequest request = allreduce(4, 1 << 20);
  request.segments = 4;
  const Schedule built = generate_schedule("ring", request);
  const std::string xml = schedule_to_msccl_xml(built);
  CHECK(xml.find(R"(collsim_segments="4")") != std::string::npos);
  CHECK(parse_msccl_xml(xml, "written.xml", built.info().bytes).info().segments == 4);
  // MSCCLang's own files have no such attribute: one segment
  CHECK(parse_msccl_xml(kTwoGpus, "two.xml", 8).info().segments == 1);
}

TEST_CASE("MSCCL's collectives without a root are written, broadcast and reduce are refused") {
  ScheduleRequest request = allreduce(4, 4096);
  request.collective = Collective::broadcast;
  CHECK_THROWS_WITH(schedule_to_msccl_xml(generate_schedule("chain", request)), Catch::Contains("names no root"));
  request.collective = Collective::allgather;
  request.bytes = 4098;  // 4 parts of 1024.5 bytes
  CHECK_THROWS_WITH(schedule_to_msccl_xml(generate_schedule("ring", request)), Catch::Contains("multiple of 4"));
}

TEST_CASE("MSCCL XML written by hand for 2 and 3 GPUs reads as the transfers it describes") {
  const Schedule two = parse_msccl_xml(kTwoGpus, "two.xml", 8);
  CHECK_NOTHROW(check_schedule(two));
  REQUIRE(two.size() == 4);
  CHECK(two.transfer(0).op == Op::reduce);
  CHECK(two.transfer(2).op == Op::copy);
  CHECK(two.transfer(2).deps.size() == 2);  // the reduced half's send waits for its reduction, and its earlier send

  const Schedule three = parse_msccl_xml(kThreeGpus, "three.xml", 4);
  CHECK_NOTHROW(check_schedule(three));
  CHECK(three.size() == 6);  // 2 sends in, 2 local reductions, 2 sends back
  CHECK(three.info().scratch_bytes == 8);
}

TEST_CASE("a 2-GPU allgather written by hand reads as each part sent to the other, proved") {
  const Schedule s = parse_msccl_xml(kAllgather, "ag.xml", 8);
  CHECK(s.info().collective == Collective::allgather);
  CHECK_NOTHROW(check_schedule(s));
  REQUIRE(s.size() == 2);
  // GPU 1's input is its part, bytes 4..8 of the data
  const Transfer from1 = s.transfer(0).src == 1 ? s.transfer(0) : s.transfer(1);
  CHECK(s.chunks()[from1.src_chunk].offset == 4);
  CHECK(s.chunks()[from1.dst_chunk].offset == 4);
  // the same file received into the wrong half fails the proof
  std::string wrong = kAllgather;
  wrong.replace(wrong.find(R"(dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>)"), 21, R"(dstbuf="o" dstoff="0")");
  CHECK_THROWS_AS(check_schedule(parse_msccl_xml(wrong, "ag.xml", 8)), Error);
}

TEST_CASE("a hand-made MSCCL XML that forgets a dependency is read, and the checker refuses it") {
  std::string racy = kThreeGpus;
  racy.replace(racy.find(R"(depid="0" deps="2")"), 18, R"(depid="-1" deps="-1")");  // sends back before the sum
  const Schedule s = parse_msccl_xml(racy, "racy.xml", 4);
  CHECK_THROWS_AS(check_schedule(s), Error);
}

TEST_CASE("malformed or unsupported MSCCL XML is refused with its line") {
  const std::string two = kTwoGpus;
  refused("<algo name='x'", "t.xml:1: not well-formed XML");
  refused(std::string(two).replace(two.find("coll=\"allreduce\""), 16, "coll=\"broadcast\""), "t.xml:1: coll 'broadcast'");
  // an allgather's input is one rank's part (1 of 2 chunks); 3 GPUs' parts of 1 chunk are not whole chunks
  refused(std::string(two).replace(two.find("coll=\"allreduce\""), 16, "coll=\"allgather\""),
          "t.xml:2: <gpu> i_chunks must be 1 for allgather");
  refused(std::string(kThreeGpus).replace(std::string(kThreeGpus).find("coll=\"allreduce\""), 16, "coll=\"alltoall\""),
          "t.xml:1: nchunksperloop (1) must be a multiple of ngpus (3)");
  refused(std::string(two).replace(two.find("type=\"rrc\""), 10, "type=\"xyz\""), "t.xml:5: step type 'xyz'");
  refused(std::string(two).replace(two.find("cnt=\"1\""), 7, "cnt=\"one\""), "t.xml:4: <step> 'cnt' must be a whole number");
  refused(std::string(two).replace(two.find("srcoff=\"1\""), 10, "srcoff=\"9\""), "t.xml:4: chunks 9..10 of buffer i");
  refused(std::string(two).replace(two.find("<gpu id=\"1\""), 11, "<gpu id=\"0\""), "gpu 0 is given twice");
  // GPU 1 receives first instead of sending: each waits for the other
  std::string deadlock = two;
  const std::size_t gpu1 = deadlock.find("<gpu id=\"1\"");
  deadlock.replace(deadlock.find("type=\"s\"", gpu1), 8, "type=\"r\"");
  REQUIRE_THROWS_WITH(parse_msccl_xml(deadlock, "t.xml", 8), Catch::Contains("never runs") && Catch::Contains("deadlock"));
  REQUIRE_THROWS_WITH(parse_msccl_xml(two, "t.xml", 7), Catch::Contains("give --bytes a multiple of 2"));
}
