// tests/collectives/test_algorithms.cpp — every generator, for every collective it
// implements, produces a schedule the checker proves, for every P up to 64 and awkward
// sizes; large P is checked with signatures; traffic and step counts match the docs; bad
// requests are refused with one-line messages (collectives/algorithm.hpp, docs/design.md 3-4).
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/algorithms/binary_tree.hpp"
#include "collectives/checker.hpp"
#include "collectives/elements.hpp"

using namespace collsim;

namespace {

bool rooted(Collective c) { return c == Collective::broadcast || c == Collective::reduce; }

std::string describe(std::string_view algorithm, const ScheduleRequest& r) {
  std::ostringstream out;
  out << algorithm << " " << to_string(r.collective) << " P=" << r.ranks << " N=" << r.bytes
      << " segments=" << r.segments << " root=" << r.root << " ranks_per_node=" << r.ranks_per_node;
  return out.str();
}

// Generates and checks one schedule; returns "" or what went wrong, with the parameters.
std::string generate_and_check(std::string_view algorithm, const ScheduleRequest& request,
                               const CheckOptions& options = {}) {
  try {
    const Schedule s = generate_schedule(algorithm, request);
    const CheckReport report = check_schedule(s, options);
    if (report.transfers != s.size()) return describe(algorithm, request) + ": report counts the wrong transfers";
    if (report.exact != (request.ranks <= options.exact_up_to))
      return describe(algorithm, request) + ": report.exact is wrong";
    // Every step belongs to a phase, and transfers are listed step by step (explain relies on it).
    for (TransferId id = 0; id < s.size(); ++id) {
      const Transfer t = s.transfer(id);
      if (s.phase_of_step(t.step) == nullptr)
        return describe(algorithm, request) + ": step " + std::to_string(t.step) + " lies in no phase";
      if (id > 0 && s.transfer(id - 1).step > t.step)
        return describe(algorithm, request) + ": transfer " + std::to_string(id) + " is listed out of step order";
    }
  } catch (const std::exception& e) {
    return describe(algorithm, request) + ": " + e.what();
  }
  return "";
}

std::vector<std::uint64_t> sizes_for(Rank p) {
  const std::set<std::uint64_t> sizes{0, 1, 7, p, 1000, 4096 + 3};
  return {sizes.begin(), sizes.end()};
}

std::vector<Rank> roots_for(Collective c, Rank p) {
  if (rooted(c) && p > 1) return {0, p - 1};
  return {0};
}

// Bytes rank r sends to other ranks.
std::uint64_t bytes_sent(const Schedule& s, Rank r) {
  std::uint64_t total = 0;
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer t = s.transfer(id);
    if (t.src == r && t.src != t.dst) total += s.transfer_bytes(id);
  }
  return total;
}

std::uint64_t bytes_received(const Schedule& s, Rank r) {
  std::uint64_t total = 0;
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer t = s.transfer(id);
    if (t.dst == r && t.src != t.dst) total += s.transfer_bytes(id);
  }
  return total;
}

ScheduleRequest request_of(Collective c, Rank p, std::uint64_t n) {
  ScheduleRequest r;
  r.collective = c;
  r.ranks = p;
  r.bytes = n;
  return r;
}

std::string first_lines(const std::vector<std::string>& failures, std::size_t n = 20) {
  std::string out;
  for (std::size_t i = 0; i < std::min(n, failures.size()); ++i) out += failures[i] + "\n";
  return out;
}

}  // namespace

TEST_CASE("every algorithm's schedules pass the checker for P = 1..64, awkward sizes, segments and roots",
          "[algorithms][sweep]") {
  for (const AlgorithmEntry& entry : algorithm_table()) {
    DYNAMIC_SECTION(entry.name) {
      const bool hierarchical = entry.needs_ranks_per_node;
      const std::vector<std::uint32_t> segment_counts =
          entry.pipelined ? std::vector<std::uint32_t>{1, 3} : std::vector<std::uint32_t>{1};
      const std::vector<std::uint32_t> node_sizes =
          hierarchical ? std::vector<std::uint32_t>{1, 2, 4, 8} : std::vector<std::uint32_t>{0};
      std::vector<std::string> failures;
      std::size_t checked = 0;
      for (Collective collective : entry.collectives)
        for (std::uint32_t g : node_sizes)
          for (Rank p = 1; p <= 64; ++p) {
            if (hierarchical && p % g != 0) continue;
            for (std::uint64_t n : sizes_for(p))
              for (std::uint32_t segments : segment_counts)
                for (Rank root : roots_for(collective, p)) {
                  ScheduleRequest request = request_of(collective, p, n);
                  request.segments = segments;
                  request.root = root;
                  request.ranks_per_node = g;
                  if (std::string failure = generate_and_check(entry.name, request); !failure.empty())
                    failures.push_back(std::move(failure));
                  ++checked;
                }
          }
      INFO(failures.size() << " of " << checked << " schedules failed; the first:\n" << first_lines(failures));
      CHECK(failures.empty());
      // At least 5 distinct sizes per P (N = P coincides with 1 or 7 for P = 1 and 7).
      CHECK(checked >= (hierarchical ? 120u * 5 : 64u * 5 * entry.collectives.size()));
    }
  }
}

TEST_CASE("rooted algorithms produce checked allreduce schedules from every root", "[algorithms]") {
  std::vector<std::string> failures;
  for (const char* algorithm : {"naive", "binomial", "tree"})
    for (Rank p = 1; p <= 16; ++p)
      for (Rank root = 0; root < p; ++root) {
        ScheduleRequest request = request_of(Collective::allreduce, p, 1000);
        request.root = root;
        request.segments = std::string_view(algorithm) == "tree" ? 2 : 0;
        if (std::string failure = generate_and_check(algorithm, request); !failure.empty()) failures.push_back(failure);
      }
  INFO(first_lines(failures));
  CHECK(failures.empty());
}

TEST_CASE("pipelined algorithms take their default segment count from the message size", "[algorithms]") {
  for (const char* algorithm : {"tree", "two-tree"}) {
    INFO(algorithm);
    const Schedule s = generate_schedule(algorithm, request_of(Collective::allreduce, 8, 3 << 20));
    CHECK(s.info().segments == 3);
    CHECK_NOTHROW(check_schedule(s));
  }
  // Rings slice each step's message, N/P bytes, not the whole buffer.
  for (const char* algorithm : {"ring", "hierarchical-ring"}) {
    INFO(algorithm);
    ScheduleRequest request = request_of(Collective::allreduce, 8, 3 << 20);
    request.ranks_per_node = 4;
    CHECK(generate_schedule(algorithm, request).info().segments == 1);  // steps of 384 KiB
    request.bytes = 24 << 20;
    CHECK(generate_schedule(algorithm, request).info().segments == 3);  // steps of 3 MiB
    request.bytes = 4096;
    CHECK(generate_schedule(algorithm, request).info().segments == 1);
  }
  CHECK(generate_schedule("ring", request_of(Collective::allreduce, 4, 1ull << 30)).info().segments == 64);
}

TEST_CASE("large schedules are checked with signatures", "[algorithms][large]") {
  struct Case {
    const char* algorithm;
    Rank ranks;
    std::uint64_t bytes;
    std::uint32_t segments;
  };
  for (const Case& c : {Case{"ring", 1000, 1u << 20, 0}, Case{"rabenseifner", 1000, 1u << 20, 0},
                        Case{"two-tree", 513, 1u << 20, 4}, Case{"recursive-doubling", 1024, 1u << 20, 0},
                        Case{"ring", 100, 1u << 20, 4}, Case{"hierarchical-ring", 96, 1u << 20, 3}}) {
    ScheduleRequest request = request_of(Collective::allreduce, c.ranks, c.bytes);
    request.segments = c.segments;
    request.ranks_per_node = std::string_view(c.algorithm) == "hierarchical-ring" ? 8 : 0;
    INFO(describe(c.algorithm, request));
    const Schedule s = generate_schedule(c.algorithm, request);
    CheckReport report;
    REQUIRE_NOTHROW(report = check_schedule(s));
    CHECK_FALSE(report.exact);
    CHECK(report.transfers == s.size());
    CHECK(report.dependencies == s.dependency_count());
  }
}

TEST_CASE("ring allreduce has 2P(P-1) transfers in 2(P-1) steps", "[algorithms][ring]") {
  for (Rank p : {1u, 2u, 3u, 4u, 5u, 8u, 13u, 32u}) {
    INFO("P=" << p);
    const Schedule s = generate_schedule("ring", request_of(Collective::allreduce, p, 1000));
    CHECK(s.size() == 2ull * p * (p - 1));
    CHECK(s.step_count() == 2 * (p - 1));
  }
}

TEST_CASE("the pipelined ring passes the checker for P = 1..64 in 2 to 8 segments, slices equal or not",
          "[algorithms][ring][sweep]") {
  std::vector<std::string> failures;
  std::size_t checked = 0;
  for (Collective c : {Collective::allreduce, Collective::reduce_scatter, Collective::allgather})
    for (Rank p = 1; p <= 64; ++p)
      for (std::uint32_t k : {2u, 4u, 5u, 8u})
        for (std::uint64_t n : {std::uint64_t(p) * k * 3, std::uint64_t(p) * k * 3 + 5}) {
          ScheduleRequest request = request_of(c, p, n);
          request.segments = k;
          if (std::string failure = generate_and_check("ring", request); !failure.empty()) failures.push_back(failure);
          ++checked;
        }
  INFO(failures.size() << " of " << checked << " schedules failed; the first:\n" << first_lines(failures));
  CHECK(failures.empty());
  CHECK(checked == 3u * 64 * 4 * 2);
}

TEST_CASE("a pipelined ring sends each step in S slices, and each slice waits only for its own slice",
          "[algorithms][ring]") {
  for (Rank p : {2u, 3u, 5u, 8u})
    for (std::uint32_t k : {1u, 3u, 4u}) {
      ScheduleRequest request = request_of(Collective::allreduce, p, std::uint64_t(p) * k * 10);
      request.segments = k;
      const Schedule s = generate_schedule("ring", request);
      INFO("P=" << p << " S=" << k);
      CHECK(s.size() == 2ull * p * (p - 1) * k);
      CHECK(s.step_count() == 2 * (p - 1) * k);
      for (Rank r = 0; r < p; ++r) {
        CHECK(bytes_sent(s, r) == 2ull * (p - 1) * 10 * k);
        CHECK(bytes_received(s, r) == 2ull * (p - 1) * 10 * k);
      }
      for (TransferId id = 0; id < s.size(); ++id) {
        const Transfer t = s.transfer(id);
        CHECK(s.transfer_bytes(id) == 10);
        // Slot s S + k: slice k of ring step s; a slice of step s >= 1 reads what the same
        // slice of step s-1 delivered, and nothing else holds it back (a write after a read
        // of that slice may, in the allgather).
        if (t.step < k) continue;
        bool same_slice_before = false;
        for (TransferId d : t.deps) {
          const Transfer before = s.transfer(d);
          CHECK(before.step + k <= t.step);
          same_slice_before |= before.dst == t.src && s.chunks()[before.dst_chunk] == s.chunks()[t.src_chunk] &&
                               before.step + k == t.step;
        }
        CHECK(same_slice_before);
      }
    }
}

TEST_CASE("hierarchical-ring's rails cut each node slice, so that rail slice k waits for node slice k only",
          "[algorithms][hierarchical-ring]") {
  ScheduleRequest request = request_of(Collective::allreduce, 12, 12 * 4 * 6);
  request.ranks_per_node = 4;
  request.segments = 4;
  const Schedule s = generate_schedule("hierarchical-ring", request);
  REQUIRE_NOTHROW(check_schedule(s));
  CHECK(s.step_count() == (2 * 3 + 2 * 2) * 4u);
  const Phase* rails = nullptr;
  for (const Phase& phase : s.phases())
    if (phase.name == "inter-node allreduce") rails = &phase;
  REQUIRE(rails != nullptr);
  const std::uint32_t node_steps = 3 * 4;
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer t = s.transfer(id);
    if (t.step < rails->first_step || t.step >= rails->first_step + 4) continue;  // the rails' first step
    const std::uint32_t slice = t.step - rails->first_step;
    for (TransferId d : t.deps) {
      INFO("rail transfer " << id << " in slot " << t.step << " depends on " << d);
      CHECK(s.transfer(d).step == node_steps - 4 + slice);  // the node ring's last step, same slice
    }
  }
}

TEST_CASE("ring reduce-scatter and allgather each have P(P-1) transfers in P-1 steps", "[algorithms][ring]") {
  for (Collective c : {Collective::reduce_scatter, Collective::allgather})
    for (Rank p : {2u, 5u, 8u}) {
      INFO(to_string(c) << " P=" << p);
      const Schedule s = generate_schedule("ring", request_of(c, p, 1000));
      CHECK(s.size() == std::size_t(p) * (p - 1));
      CHECK(s.step_count() == p - 1);
      CHECK_NOTHROW(check_schedule(s));
    }
}

TEST_CASE("each ring allreduce rank sends and receives 2(P-1)/P N bytes when P divides N", "[algorithms][ring]") {
  for (Rank p : {2u, 3u, 4u, 8u, 10u}) {
    const std::uint64_t n = std::uint64_t(p) * 1000;
    const Schedule s = generate_schedule("ring", request_of(Collective::allreduce, p, n));
    for (Rank r = 0; r < p; ++r) {
      INFO("P=" << p << " rank " << r);
      CHECK(bytes_sent(s, r) == 2 * (p - 1) * n / p);
      CHECK(bytes_received(s, r) == 2 * (p - 1) * n / p);
    }
  }
}

TEST_CASE("the naive root receives and sends (P-1) N bytes and every other rank N each way",
          "[algorithms][naive]") {
  for (Rank p : {2u, 4u, 7u}) {
    const std::uint64_t n = 1000;
    const Schedule s = generate_schedule("naive", request_of(Collective::allreduce, p, n));
    INFO("P=" << p);
    CHECK(bytes_received(s, 0) == (p - 1) * n);
    CHECK(bytes_sent(s, 0) == (p - 1) * n);
    for (Rank r = 1; r < p; ++r) {
      CHECK(bytes_sent(s, r) == n);
      CHECK(bytes_received(s, r) == n);
    }
    CHECK(s.step_count() == 2 * (p - 1));
  }
}

TEST_CASE("rabenseifner ranks each send 2(P-1)/P N bytes in 2 lg P steps when P is a power of two",
          "[algorithms][rabenseifner]") {
  for (Rank p : {2u, 4u, 8u, 16u, 32u}) {
    const std::uint64_t n = std::uint64_t(p) * 64;
    const Schedule s = generate_schedule("rabenseifner", request_of(Collective::allreduce, p, n));
    INFO("P=" << p);
    CHECK(s.step_count() == 2 * floor_log2(p));
    for (Rank r = 0; r < p; ++r) {
      CHECK(bytes_sent(s, r) == 2 * (p - 1) * n / p);
      CHECK(bytes_received(s, r) == 2 * (p - 1) * n / p);
    }
  }
}

TEST_CASE("rabenseifner folds the extra ranks of a non-power of two in and out", "[algorithms][rabenseifner]") {
  const Schedule s = generate_schedule("rabenseifner", request_of(Collective::allreduce, 6, 6000));
  // P' = 4: fold, 2 halving steps, 2 doubling steps, unfold.
  CHECK(s.step_count() == 6);
  REQUIRE(s.phases().size() == 4);
  CHECK(s.phases().front().name == "fold");
  CHECK(s.phases().back().name == "unfold");
  // Ranks 0 and 2 fold into 1 and 3: they send and receive the whole buffer once.
  for (Rank r : {0u, 2u}) {
    CHECK(bytes_sent(s, r) == 6000);
    CHECK(bytes_received(s, r) == 6000);
  }
}

TEST_CASE("recursive doubling exchanges the whole buffer lg P times", "[algorithms][recursive-doubling]") {
  for (Rank p : {2u, 4u, 8u, 64u, 1024u}) {
    const std::uint64_t n = 1000;
    const Schedule s = generate_schedule("recursive-doubling", request_of(Collective::allreduce, p, n));
    INFO("P=" << p);
    CHECK(s.step_count() == floor_log2(p));
    for (Rank r = 0; r < p; ++r) {
      std::uint32_t exchanges = 0;
      for (TransferId id = 0; id < s.size(); ++id) {
        const Transfer t = s.transfer(id);
        if (t.src == r && !t.is_local()) {
          ++exchanges;
          CHECK(s.transfer_bytes(id) == n);
        }
      }
      CHECK(exchanges == floor_log2(p));
      CHECK(bytes_received(s, r) == floor_log2(p) * n);
    }
  }
}

TEST_CASE("binomial reduce then broadcast takes 2 ceil(lg P) steps of the whole buffer", "[algorithms][binomial]") {
  for (Rank p : {2u, 3u, 8u, 9u, 33u}) {
    const Schedule s = generate_schedule("binomial", request_of(Collective::allreduce, p, 100));
    INFO("P=" << p);
    CHECK(s.step_count() == 2 * ceil_log2(p));
    CHECK(s.size() == 2u * (p - 1));  // every non-root rank sends once and receives once
  }
}

TEST_CASE("tree allreduce takes 2H + k - 1 steps with H = 1 + floor(lg(P-1))", "[algorithms][tree]") {
  for (Rank p : {2u, 3u, 8u, 13u, 64u})
    for (std::uint32_t k : {1u, 4u}) {
      ScheduleRequest request = request_of(Collective::allreduce, p, 4096);
      request.segments = k;
      const Schedule s = generate_schedule("tree", request);
      INFO("P=" << p << " k=" << k);
      const std::uint32_t h = 1 + floor_log2(p - 1);
      CHECK(s.step_count() == 2 * h + k - 1);
    }
}

TEST_CASE("each two-tree rank with an interior position in one tree moves half the buffer per child",
          "[algorithms][two-tree]") {
  const Rank p = 8;
  const std::uint64_t n = 8000;
  const Schedule s = generate_schedule("two-tree", request_of(Collective::allreduce, p, n));
  const auto trees = algorithms::double_binary_tree(p);
  for (Rank r = 0; r < p; ++r) {
    std::uint64_t expected = 0;  // reduce: N/2 to each parent; broadcast: N/2 to each child
    for (const auto& tree : trees)
      expected += (tree.parent[r] != algorithms::kNoRank ? n / 2 : 0) + tree.children[r].size() * (n / 2);
    INFO("rank " << r);
    CHECK(bytes_sent(s, r) == expected);
  }
}

TEST_CASE("ring reduce-scatter leaves rank r owning block r, as the checker proves", "[algorithms][ring]") {
  for (Rank p : {2u, 3u, 7u, 16u}) {
    const Schedule s = generate_schedule("ring", request_of(Collective::reduce_scatter, p, 1001));
    INFO("P=" << p);
    REQUIRE_NOTHROW(check_schedule(s));
    // Each rank's last incoming transfer delivers its own block (MPI's convention).
    for (Rank r = 0; r < p; ++r) {
      TransferId last = kNoTransfer;
      for (TransferId id = 0; id < s.size(); ++id)
        if (s.transfer(id).dst == r) last = id;
      REQUIRE(last != kNoTransfer);
      CHECK(s.chunks()[s.transfer(last).dst_chunk] == part_of({0, 1001}, p, r));
    }
  }
}

TEST_CASE("default_segments aims at about 1 MiB per segment, from 1 to 64", "[algorithms]") {
  CHECK(default_segments(0) == 1);
  CHECK(default_segments(1) == 1);
  CHECK(default_segments(1 << 20) == 1);
  CHECK(default_segments((1 << 20) + 1) == 2);
  CHECK(default_segments(3 << 20) == 3);
  CHECK(default_segments(std::uint64_t(100) << 20) == 64);
  CHECK(default_segments(std::uint64_t(1) << 40) == 64);
}

TEST_CASE("the algorithm table lists each algorithm once with a summary and at least one collective",
          "[algorithms]") {
  std::set<std::string_view> names;
  for (const AlgorithmEntry& entry : algorithm_table()) {
    CHECK(names.insert(entry.name).second);
    CHECK_FALSE(entry.summary.empty());
    CHECK_FALSE(entry.collectives.empty());
    CHECK(&find_algorithm(entry.name) == &entry);
  }
  for (const char* name : {"ring", "naive", "binomial", "tree", "two-tree", "recursive-doubling", "rabenseifner",
                           "hierarchical-ring", "chain"})
    CHECK(names.count(name) == 1);
  const auto algorithms_for = [](Collective c) {
    std::vector<std::string_view> out;
    for (const AlgorithmEntry& a : algorithm_table())
      if (a.supports(c)) out.push_back(a.name);
    return out;
  };
  const auto for_allgather = algorithms_for(Collective::allgather);
  CHECK(std::find(for_allgather.begin(), for_allgather.end(), "ring") != for_allgather.end());
  CHECK(std::find(for_allgather.begin(), for_allgather.end(), "two-tree") == for_allgather.end());
  // Every algorithm but chain (broadcast and reduce only) and the all-to-all ones implements
  // allreduce; those implement nothing else.
  const auto for_allreduce = algorithms_for(Collective::allreduce);
  const auto for_alltoall = algorithms_for(Collective::alltoall);
  CHECK(for_alltoall == std::vector<std::string_view>{"linear", "pairwise", "bruck", "rail-alltoall"});
  CHECK(for_allreduce.size() == algorithm_table().size() - 1 - for_alltoall.size());
  CHECK(std::find(for_allreduce.begin(), for_allreduce.end(), "chain") == for_allreduce.end());
}

namespace {

// Expects generate_schedule to refuse the request with a one-line message containing `phrase`.
void require_refused(std::string_view algorithm, const ScheduleRequest& request, const std::string& phrase) {
  INFO(describe(algorithm, request));
  try {
    (void)generate_schedule(algorithm, request);
    FAIL("the request was accepted");
  } catch (const Error& e) {
    const std::string message = e.what();
    INFO("message: " << message);
    CHECK(message.find(phrase) != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
  }
}

}  // namespace

TEST_CASE("generate_schedule refuses an unknown algorithm and lists the valid ones", "[algorithms][errors]") {
  require_refused("bogus", request_of(Collective::allreduce, 4, 8), "unknown algorithm 'bogus'");
  require_refused("bogus", request_of(Collective::allreduce, 4, 8), "rabenseifner");
}

TEST_CASE("generate_schedule refuses zero ranks", "[algorithms][errors]") {
  require_refused("ring", request_of(Collective::allreduce, 0, 8), "ranks must be at least 1");
}

TEST_CASE("generate_schedule refuses a collective the algorithm does not implement", "[algorithms][errors]") {
  require_refused("two-tree", request_of(Collective::reduce_scatter, 4, 8), "does not implement reduce-scatter");
  require_refused("ring", request_of(Collective::broadcast, 4, 8), "does not implement broadcast");
  require_refused("recursive-doubling", request_of(Collective::allgather, 4, 8), "'recursive-doubling'");
}

TEST_CASE("generate_schedule refuses a root that is not a rank", "[algorithms][errors]") {
  ScheduleRequest request = request_of(Collective::broadcast, 4, 8);
  request.root = 4;
  require_refused("binomial", request, "root 4 is not a rank");
  request.collective = Collective::reduce;
  request.root = 100;
  require_refused("tree", request, "root 100");
}

TEST_CASE("hierarchical-ring refuses a missing ranks-per-node or a partial node", "[algorithms][errors]") {
  ScheduleRequest request = request_of(Collective::allreduce, 12, 64);
  request.ranks_per_node = 0;
  require_refused("hierarchical-ring", request, "ranks per node");
  request.ranks_per_node = 8;
  require_refused("hierarchical-ring", request, "12 ranks are not a whole number of nodes of 8");
}

TEST_CASE("generate_schedule refuses segments for an algorithm that is not pipelined", "[algorithms][errors]") {
  ScheduleRequest request = request_of(Collective::allreduce, 4, 64);
  request.segments = 2;
  require_refused("naive", request, "not pipelined");
  require_refused("rabenseifner", request, "not pipelined");
  CHECK_NOTHROW(generate_schedule("ring", request));
  request.segments = 1;
  CHECK_NOTHROW(generate_schedule("naive", request));
}

TEST_CASE("parse_collective names the valid collectives when it refuses one", "[algorithms][errors]") {
  CHECK(parse_collective("reduce-scatter") == Collective::reduce_scatter);
  for (Collective c : all_collectives()) CHECK(parse_collective(to_string(c)) == c);
  CHECK_THROWS_WITH(parse_collective("alltoallv"), Catch::Contains("'alltoallv'") && Catch::Contains("allgather") &&
                                                     Catch::Contains("or alltoall"));
}

TEST_CASE("bus bandwidth factors follow nccl-tests", "[algorithms]") {
  CHECK(bus_bandwidth_factor(Collective::allreduce, 4) == Approx(1.5));
  CHECK(bus_bandwidth_factor(Collective::reduce_scatter, 4) == Approx(0.75));
  CHECK(bus_bandwidth_factor(Collective::allgather, 8) == Approx(0.875));
  CHECK(bus_bandwidth_factor(Collective::broadcast, 8) == Approx(1.0));
  CHECK(bus_bandwidth_factor(Collective::reduce, 8) == Approx(1.0));
  CHECK(bus_bandwidth_factor(Collective::alltoall, 8) == Approx(0.875));  // nccl-tests AlltoAllGetBw
}

// The most elements the chunks one rank touches cut its bytes into: the pieces a builder
// keeps for it (elements.hpp), or fewer.
std::uint32_t most_pieces_per_rank(const Schedule& s) {
  std::vector<std::vector<ByteRange>> touched(s.info().endpoints());
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer t = s.transfer(id);
    touched[t.src].push_back(s.chunks()[t.src_chunk]);
    touched[t.dst].push_back(s.chunks()[t.dst_chunk]);
  }
  std::uint32_t most = 0;
  for (const std::vector<ByteRange>& chunks : touched) most = std::max(most, ElementMap(chunks).count());
  return most;
}

// The size guard weighs a request before generating it: its bounds must hold for every
// schedule, or a request could pass the guard and still exhaust memory.
TEST_CASE("The size bound of every algorithm covers the transfers and elements it generates, segments included") {
  for (const AlgorithmEntry& a : algorithm_table())
    for (Collective c : a.collectives)
      for (Rank p : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 12u, 16u, 33u, 64u})
        for (std::uint64_t bytes : {std::uint64_t(1), std::uint64_t(7), std::uint64_t(4096), std::uint64_t(3) << 20})
          for (Rank g : {0u, 1u, 4u})
            for (std::uint32_t segments : {0u, 5u}) {
              ScheduleRequest r = request_of(c, p, bytes);
              r.ranks_per_node = g;
              r.segments = segments;
              if (!a.runs_on(p, g) || (segments > 0 && !a.pipelined)) continue;
              const Schedule s = generate_schedule(a.name, r);
              const ScheduleSize bound = estimated_size(a, r);
              INFO(describe(a.name, r));
              CHECK(double(s.size()) <= bound.transfers);
              CHECK(double(most_pieces_per_rank(s)) <= bound.elements);
              CHECK(bound.element_visits >= bound.transfers);
            }
}

TEST_CASE("A schedule too large to build is refused before generating, naming the limit and what fits") {
  ScheduleRequest r;
  r.ranks = 1u << 20;
  r.bytes = 1024;
  CHECK_THROWS_WITH(generate_schedule("ring", r), Catch::Contains("too large to build") &&
                                                      Catch::Contains("transfers") &&
                                                      Catch::Contains("an algorithm that fits: naive"));
  // Rabenseifner keeps about 2 lg P pieces a rank (elements.hpp), so 65,536 ranks fit; on
  // 1,048,576 its visits of them do not.
  r.ranks = 1u << 16;
  r.bytes = 64u << 20;
  CHECK_NOTHROW(check_schedule_fits(find_algorithm("rabenseifner"), r));
  CHECK_NOTHROW(check_schedule_fits(find_algorithm("recursive-doubling"), r));
  r.ranks = 1u << 20;
  CHECK_THROWS_WITH(generate_schedule("rabenseifner", r), Catch::Contains("element visits"));
}

TEST_CASE("expand_algorithm_names checks names and expands all to what runs on the ranks") {
  CHECK(expand_algorithm_names({"ring", "tree"}, Collective::allreduce, 4, 0) == std::vector<std::string>{"ring", "tree"});
  CHECK_THROWS_WITH(expand_algorithm_names({"rng"}, Collective::allreduce, 4, 0), Catch::Contains("unknown algorithm 'rng'"));
  CHECK_THROWS_WITH(expand_algorithm_names({"two-tree"}, Collective::reduce_scatter, 4, 0),
                    Catch::Contains("does not implement reduce-scatter"));
  const auto every = expand_algorithm_names({"all"}, Collective::allreduce, 8, 0);
  CHECK(std::find(every.begin(), every.end(), "hierarchical-ring") == every.end());
  const auto with_nodes = expand_algorithm_names({"auto"}, Collective::allreduce, 8, 4);
  CHECK(std::find(with_nodes.begin(), with_nodes.end(), "hierarchical-ring") != with_nodes.end());
  CHECK(expand_algorithm_names({"all"}, Collective::allreduce, 8, 3).size() == every.size());  // 8 is not whole nodes of 3
}

TEST_CASE("the checker tells its progress: each part once, and the symbolic run every 65,536 transfers") {
  ScheduleRequest r;
  r.ranks = 256;  // ring: 2 x 256 x 255 = 130,560 transfers
  r.bytes = 1 << 20;
  const Schedule s = generate_schedule("ring", r);
  std::vector<std::pair<std::string, std::uint64_t>> heard;
  CheckOptions options;
  options.progress = [&](std::string_view part, std::uint64_t done, std::uint64_t total) {
    REQUIRE(total == s.size());
    heard.emplace_back(std::string(part), done);
  };
  check_schedule(s, options);
  const std::vector<std::pair<std::string, std::uint64_t>> expected{{"structure", 0},
                                                                    {"hazards and contributions", 0},
                                                                    {"hazards and contributions", 65536},
                                                                    {"postcondition", s.size()}};
  REQUIRE(s.size() == 130560);
  REQUIRE(heard == expected);
}
