// tests/sim/test_step_costs.cpp — a priced run step by step (sim/step_costs.hpp): on a DGX H100
// with NCCL's runtime, every step of a ring allreduce in one channel pays the runtime's step
// latency over NVLink and drains its chunk at the route's rate, and the runtime's fixed part
// plus the steps is predict's analytic time; a tree's steps overlap, so they do not add up.
#include <catch2/catch.hpp>

#include <cmath>

#include "collectives/algorithm.hpp"
#include "sim/cost_rule.hpp"
#include "sim/prediction.hpp"
#include "sim/step_costs.hpp"
#include "topologies/cluster_config.hpp"

using namespace collsim;

namespace {

struct Priced {
  double predicted_s = 0, fixed_s = 0, steps_s = 0;
  std::vector<StepCost> steps;
  RunCosts costs;
};

// `algorithm` on 8 ranks of dgx-h100 at `bytes`, one channel, one segment, Simple, analytic.
Priced price(const ClusterConfig& c, const std::string& algorithm, std::uint64_t bytes) {
  PredictionRequest r = cluster_request(c);
  r.algorithms = {algorithm};
  r.sizes = {bytes};
  r.engine = EngineKind::analytic;
  r.segments = 1;
  r.channels = 1;
  Priced p;
  p.predicted_s = predict(r).at(0).time_s;
  p.costs = run_costs(r, algorithm, simple_protocol(), bytes);
  ScheduleRequest sr;
  sr.ranks = 8;
  sr.bytes = bytes;
  sr.segments = 1;
  sr.ranks_per_node = c.cost.ranks_per_node;
  p.steps = step_costs(generate_schedule(algorithm, sr), p.costs);
  p.fixed_s = p.costs.fixed_s;
  for (const StepCost& s : p.steps) p.steps_s += s.time_s();
  return p;
}

}  // namespace

TEST_CASE("a ring's steps on a DGX H100 with NCCL: the step latency, the chunk at the route's rate, predict's total") {
  const ClusterConfig c = load_preset("dgx-h100");
  const std::uint64_t bytes = 64 << 10;
  const Priced p = price(c, "ring", bytes);
  REQUIRE(p.steps.size() == 14);  // 2 (P - 1)
  const LinkCost route = pair_cost(*c.topology, 0, 1, bytes / 8, p.costs.protocol);
  for (const StepCost& s : p.steps) {
    CHECK(s.transport == Transport::nvlink);
    CHECK(s.transports == (1u << unsigned(Transport::nvlink)));
    CHECK(s.bytes == bytes / 8);
    CHECK(s.sync_s > 0);
    CHECK(s.sync_s == p.costs.protocol.step.at(Transport::nvlink));
    CHECK(s.startup_s == Approx(route.alpha_s).epsilon(1e-12));
    CHECK(s.drain_s == Approx(double(bytes / 8) * route.beta_s_per_byte).epsilon(1e-12));
  }
  CHECK(p.steps.front().reduce_s > 0);  // reduce-scatter
  CHECK(p.steps.back().reduce_s == 0);  // allgather
  CHECK(p.fixed_s > 0);
  CHECK(p.fixed_s + p.steps_s == Approx(p.predicted_s).epsilon(1e-9));
}

TEST_CASE("a two-tree's steps overlap: the fixed part and the steps are not predict's total") {
  const Priced p = price(load_preset("dgx-h100"), "two-tree", 1 << 20);
  CHECK(std::abs(p.fixed_s + p.steps_s - p.predicted_s) > 1e-6 * p.predicted_s);
}
