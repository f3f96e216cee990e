// tests/sim/test_analytic_engine.cpp — the semantics of the analytic engine on small schedules.
#include <catch2/catch.hpp>

#include "collectives/algorithm.hpp"
#include "sim/analytic_engine.hpp"

using namespace collsim;

namespace {

Schedule make(std::string_view algo, Rank p, std::uint64_t n, Collective c = Collective::allreduce, std::uint32_t k = 0) {
  ScheduleRequest r;
  r.collective = c;
  r.ranks = p;
  r.bytes = n;
  r.segments = k;
  return generate_schedule(algo, r);
}

}  // namespace

TEST_CASE("a single message costs alpha plus bytes times beta, and a reduction adds bytes times gamma") {
  const CostModel cost = CostModel::uniform(2e-6, 1e-9, 5e-10);
  // naive reduce on 2 ranks: one reduce transfer of N bytes
  const double t = run_analytic(make("naive", 2, 1000, Collective::reduce), cost).time_s;
  REQUIRE(t == Approx(2e-6 + 1000 * 1e-9 + 1000 * 5e-10));
  const double b = run_analytic(make("naive", 2, 1000, Collective::broadcast), cost).time_s;
  REQUIRE(b == Approx(2e-6 + 1000 * 1e-9));
}

TEST_CASE("one-port serialises a root's sends, unlimited ports let them overlap") {
  const CostModel cost = CostModel::uniform(1e-6, 1e-9, 0);
  const Schedule s = make("naive", 9, 4096, Collective::broadcast);
  const double one = run_analytic(s, cost).time_s;
  const double many = run_analytic(s, cost, {.one_port = false}).time_s;
  REQUIRE(one == Approx(8 * (1e-6 + 4096e-9)));
  REQUIRE(many == Approx(1e-6 + 4096e-9));
}

TEST_CASE("the time is the last completion, and the critical path ends there") {
  const CostModel cost = CostModel::uniform(1e-6, 1e-9, 1e-10);
  const Schedule s = make("ring", 6, 6000);
  const AnalyticResult r = run_analytic(s, cost);
  REQUIRE(!r.critical_path.empty());
  REQUIRE(r.time_s == Approx(*std::max_element(r.rank_finish_s.begin(), r.rank_finish_s.end())));
  // Ring: the critical path crosses every one of the 2(P-1) steps.
  REQUIRE(r.critical_path.size() >= 2 * (6 - 1));
  for (std::size_t i = 1; i < r.critical_path.size(); ++i) REQUIRE(r.critical_path[i - 1] < r.critical_path[i]);
}

TEST_CASE("transfers inside a node use the intra-node link class") {
  CostModel cost;
  cost.intra_node = {1e-6, 1e-10};
  cost.inter_node = {1e-5, 1e-9};
  cost.ranks_per_node = 2;
  const Schedule s = make("naive", 2, 1000, Collective::broadcast);  // ranks 0 and 1 share node 0
  REQUIRE(run_analytic(s, cost).time_s == Approx(1e-6 + 1000 * 1e-10));
  cost.ranks_per_node = 1;  // now they are on different nodes
  REQUIRE(run_analytic(s, cost).time_s == Approx(1e-5 + 1000 * 1e-9));
}

TEST_CASE("pipelining a large tree allreduce in segments makes it faster") {
  const CostModel cost = CostModel::uniform(5e-6, 1.0 / 12.5e9, 0);
  const double whole = run_analytic(make("tree", 16, 64 << 20, Collective::allreduce, 1), cost).time_s;
  const double pipelined = run_analytic(make("tree", 16, 64 << 20, Collective::allreduce, 16), cost).time_s;
  REQUIRE(pipelined < 0.5 * whole);
}

TEST_CASE("two-tree beats a single tree at large sizes, as both trees keep every rank busy") {
  const CostModel cost = CostModel::uniform(5e-6, 1.0 / 12.5e9, 1.0 / 200e9);
  const double tree = run_analytic(make("tree", 32, 256 << 20, Collective::allreduce, 32), cost).time_s;
  const double two = run_analytic(make("two-tree", 32, 256 << 20, Collective::allreduce, 32), cost).time_s;
  REQUIRE(two < tree);
}

TEST_CASE("the naive single reducer grows linearly with P while ring stays flat") {
  const CostModel cost = CostModel::uniform(0, 1e-9, 0);
  const std::uint64_t n = 1 << 20;
  const double naive8 = run_analytic(make("naive", 8, n), cost).time_s;
  const double naive32 = run_analytic(make("naive", 32, n), cost).time_s;
  const double ring8 = run_analytic(make("ring", 8, n), cost).time_s;
  const double ring32 = run_analytic(make("ring", 32, n), cost).time_s;
  REQUIRE(naive32 / naive8 == Approx(31.0 / 7.0));
  REQUIRE(ring32 / ring8 < 1.15);
}
