// tests/sim/test_closed_forms.cpp — the analytic engine, run on generated schedules, equals
// the closed forms of Thakur, Rabenseifner & Gropp to 1e-9, and no algorithm beats the
// lower bound.
#include <catch2/catch.hpp>

#include "collectives/algorithm.hpp"
#include "collectives/closed_forms.hpp"
#include "sim/analytic_engine.hpp"

using namespace collsim;

namespace {

double analytic_time(std::string_view algo, Collective c, Rank p, std::uint64_t n, const CostModel& cost,
                     std::uint32_t segments = 0, Rank per_node = 0) {
  ScheduleRequest r;
  r.collective = c;
  r.ranks = p;
  r.bytes = n;
  r.segments = segments;
  r.ranks_per_node = per_node;
  return run_analytic(generate_schedule(algo, r), cost).time_s;
}

// Bytes that every algorithm's chunks divide evenly for this P (P blocks, P' blocks, nodes).
std::uint64_t divisible_bytes(Rank p, std::uint64_t scale) { return std::uint64_t(p) * 1024 * 3 * scale; }

const CostModel kModels[] = {
    CostModel::uniform(5e-6, 1.0 / 12.5e9, 1.0 / 100e9),  // typical cluster
    CostModel::uniform(1e-3, 1e-9, 0),                    // latency-heavy, no reduction cost
    CostModel::uniform(0, 1.0 / 6e9, 1e-10),              // bandwidth only
};

}  // namespace

TEST_CASE("analytic time equals the closed form for ring, recursive doubling, Rabenseifner, binomial and naive",
          "[closed-form]") {
  const char* algos[] = {"ring", "recursive-doubling", "rabenseifner", "binomial", "naive"};
  for (const CostModel& cost : kModels)
    for (const char* algo : algos)
      for (Rank p = 1; p <= 48; ++p)
        for (std::uint64_t scale : {0ull, 1ull, 37ull}) {
          // Rabenseifner's blocks are P' = 2^floor(lg P) of the buffer: make N divisible by P' too.
          const std::uint64_t n = divisible_bytes(p, scale) * 64;
          INFO(algo << " P=" << p << " N=" << n);
          const double engine = analytic_time(algo, Collective::allreduce, p, n, cost);
          const auto formula = closed_form_time(algo, Collective::allreduce, p, n, cost);
          REQUIRE(formula.has_value());
          REQUIRE(engine == Approx(*formula).epsilon(1e-9).margin(1e-15));
        }
}

// Chunk ranges (collectives/elements.hpp) take both past the 8,192 ranks where dense elements
// stopped; the 65,536-rank figure is bench/cli_scale.sh's.
TEST_CASE("analytic time equals the closed form for recursive doubling and Rabenseifner on 16,384 and 12,289 ranks",
          "[closed-form]") {
  const CostModel cost = CostModel::uniform(1e-6, 1.0 / 25e9, 0);
  for (const char* algo : {"recursive-doubling", "rabenseifner"})
    for (Rank p : {Rank(16384), Rank(12289)}) {
      const std::uint64_t n = std::uint64_t(1) << 30;
      INFO(algo << " P=" << p);
      REQUIRE(analytic_time(algo, Collective::allreduce, p, n, cost) ==
              Approx(*closed_form_time(algo, Collective::allreduce, p, n, cost)).epsilon(1e-9));
    }
}

TEST_CASE("closed forms hold for the other collectives of ring, naive and binomial", "[closed-form]") {
  const CostModel cost = kModels[0];
  struct Case {
    const char* algo;
    Collective collective;
  } cases[] = {{"ring", Collective::reduce_scatter}, {"ring", Collective::allgather}, {"naive", Collective::reduce},
               {"naive", Collective::broadcast},     {"binomial", Collective::reduce}, {"binomial", Collective::broadcast}};
  for (const Case& c : cases)
    for (Rank p = 1; p <= 33; ++p) {
      const std::uint64_t n = divisible_bytes(p, 5);
      INFO(c.algo << " " << to_string(c.collective) << " P=" << p);
      REQUIRE(analytic_time(c.algo, c.collective, p, n, cost) ==
              Approx(*closed_form_time(c.algo, c.collective, p, n, cost)).epsilon(1e-9));
    }
}

TEST_CASE("analytic time equals the closed forms of linear, pairwise and bruck alltoall", "[closed-form][alltoall]") {
  for (const CostModel& cost : kModels)
    for (const char* algo : {"linear", "pairwise", "bruck"})
      for (Rank p = 1; p <= 40; ++p)
        for (std::uint64_t n : {std::uint64_t(p) * 4096, std::uint64_t(p) * 7 + 3}) {
          INFO(algo << " P=" << p << " N=" << n);
          const double engine = analytic_time(algo, Collective::alltoall, p, n, cost);
          const auto formula = closed_form_time(algo, Collective::alltoall, p, n, cost);
          REQUIRE(formula.has_value());
          REQUIRE(engine == Approx(*formula).epsilon(1e-9).margin(1e-15));
        }
}

TEST_CASE("bruck beats pairwise at small blocks and loses at large ones", "[closed-form][alltoall]") {
  const CostModel cost = CostModel::uniform(5e-6, 1.0 / 12.5e9, 0);
  const auto time = [&](const char* algo, std::uint64_t n) { return *closed_form_time(algo, Collective::alltoall, 64, n, cost); };
  CHECK(time("bruck", 64 * 64) < time("pairwise", 64 * 64) / 5);  // 6 start-ups against 63
  CHECK(time("bruck", 64u << 20) > time("pairwise", 64u << 20) * 2);  // 3x the bytes
}

// Cost models that put the pipelined ring in each of its regimes: ports busier than the
// reduction unit (g < b), reduction-bound (g > b, and g a little above b, where the ports
// still win for S > 2), equal, alpha-heavy, and no reduction at all.
const CostModel kPipelineModels[] = {
    CostModel::uniform(5e-6, 1.0 / 12.5e9, 1.0 / 100e9), CostModel::uniform(1e-6, 1.0 / 100e9, 1.0 / 12.5e9),
    CostModel::uniform(0, 1e-9, 1.1e-9),                 CostModel::uniform(2e-6, 1e-9, 1e-9),
    CostModel::uniform(1e-3, 1e-9, 3e-9),                CostModel::uniform(1e-6, 1e-10, 0),
};

TEST_CASE("the pipelined ring takes its closed form for S segments, in every regime", "[closed-form][ring]") {
  for (const CostModel& cost : kPipelineModels)
    for (Collective c : {Collective::allreduce, Collective::reduce_scatter, Collective::allgather})
      for (Rank p : {2u, 3u, 4u, 5u, 8u, 13u, 16u})
        for (std::uint32_t k : {1u, 2u, 3u, 4u, 8u, 16u})
          for (std::uint64_t scale : {1ull, 64ull, 4096ull}) {
            const std::uint64_t n = std::uint64_t(p) * k * 48 * scale;  // equal slices
            INFO(to_string(c) << " P=" << p << " S=" << k << " N=" << n << " alpha=" << cost.inter_node.alpha_s
                              << " beta=" << cost.inter_node.beta_s_per_byte << " gamma=" << cost.gamma_s_per_byte);
            const double engine = analytic_time("ring", c, p, n, cost, k);
            REQUIRE(engine == Approx(*closed_form_time("ring", c, p, n, cost, k)).epsilon(1e-9).margin(1e-15));
          }
}

TEST_CASE("as S grows, the pipelined ring hides the smaller of transfer and reduction", "[closed-form][ring]") {
  // No alpha, so slicing costs nothing and the engine's time tends to
  // max(2(P-1)/P N b, (P-1)/P N g + (P-2)/P N b): about (P-1)/P N (b + max(b, g)), where the
  // textbook ring (S = 1) pays (P-1)/P N (2b + g). The gap to the limit is the first and the
  // last slice's hop, 2 N b / (P S).
  const Rank p = 8;
  const std::uint64_t n = std::uint64_t(p) * 64 * 4096;
  const double b = 1e-10, dn = double(n);
  for (double g : {0.25 * b, b, 3 * b}) {
    const CostModel cost = CostModel::uniform(0, b, g);
    const double limit = std::max(2.0 * (p - 1) / p * dn * b, (p - 1.0) / p * dn * g + (p - 2.0) / p * dn * b);
    const double textbook = (p - 1.0) / p * dn * (2 * b + g);
    INFO("gamma / beta = " << g / b);
    CHECK(analytic_time("ring", Collective::allreduce, p, n, cost, 1) == Approx(textbook).epsilon(1e-9));
    double previous = textbook;
    for (std::uint32_t k : {2u, 4u, 16u, 64u}) {
      const double t = analytic_time("ring", Collective::allreduce, p, n, cost, k);
      INFO("S = " << k);
      CHECK(t <= previous * (1 + 1e-12));  // more slices never hurt without alpha
      CHECK(t >= limit * (1 - 1e-12));
      CHECK(t - limit <= 2 * dn * b / (p * k) * (1 + 1e-9));
      previous = t;
    }
  }
}

// Two link classes in several regimes: NVLink-like nodes with fast reductions, a node link
// slower than the rails, reductions slower than either link, alpha-heavy rails.
CostModel two_class_model(double intra_alpha, double intra_Bps, double inter_alpha, double inter_Bps, double gamma) {
  CostModel cost;
  cost.intra_node = {intra_alpha, 1.0 / intra_Bps};
  cost.inter_node = {inter_alpha, 1.0 / inter_Bps};
  cost.gamma_s_per_byte = gamma;
  return cost;
}

TEST_CASE("hierarchical ring matches its two-link-class closed form, pipelined or not", "[closed-form]") {
  const CostModel models[] = {two_class_model(1e-6, 300e9, 5e-6, 25e9, 1.0 / 400e9),
                              two_class_model(1e-6, 450e9, 2e-6, 50e9, 1.0 / 1100e9),
                              two_class_model(3e-6, 10e9, 1e-6, 40e9, 1.0 / 20e9),
                              two_class_model(0, 100e9, 1e-4, 100e9, 1.0 / 5e9),
                              two_class_model(1e-6, 200e9, 5e-6, 25e9, 0)};
  for (CostModel cost : models)
    for (Rank g : {1u, 2u, 4u, 8u})
      for (Rank nodes = 1; nodes <= 6; ++nodes)
        for (std::uint32_t k : {1u, 2u, 3u, 8u}) {
          cost.ranks_per_node = g;
          const Rank p = g * nodes;
          const std::uint64_t n = std::uint64_t(p) * k * 4096;
          INFO("G=" << g << " nodes=" << nodes << " S=" << k << " gamma=" << cost.gamma_s_per_byte);
          REQUIRE(analytic_time("hierarchical-ring", Collective::allreduce, p, n, cost, k, g) ==
                  Approx(*closed_form_time("hierarchical-ring", Collective::allreduce, p, n, cost, k)).epsilon(1e-9));
        }
}

TEST_CASE("rail-alltoall matches its two-link-class closed form", "[closed-form][alltoall]") {
  const CostModel models[] = {two_class_model(1e-6, 450e9, 5e-6, 50e9, 0), two_class_model(3e-6, 10e9, 1e-6, 40e9, 0),
                              two_class_model(0, 100e9, 1e-4, 100e9, 0)};
  for (CostModel cost : models)
    for (Rank g : {1u, 2u, 3u, 4u, 8u})
      for (Rank nodes = 1; nodes <= 6; ++nodes)
        for (std::uint64_t per_rank : {4096u, 7u}) {
          cost.ranks_per_node = g;
          const Rank p = g * nodes;
          const std::uint64_t n = p * per_rank + 3;  // blocks of floor(N / P): 3 bytes left over
          INFO("G=" << g << " nodes=" << nodes << " N=" << n);
          const auto formula = closed_form_time("rail-alltoall", Collective::alltoall, p, n, cost);
          REQUIRE(formula.has_value());
          REQUIRE(analytic_time("rail-alltoall", Collective::alltoall, p, n, cost, 0, g) ==
                  Approx(*formula).epsilon(1e-9).margin(1e-15));
        }
  // Without nodes it has no form (and no schedule).
  CHECK_FALSE(closed_form_time("rail-alltoall", Collective::alltoall, 8, 8192, CostModel::uniform(1e-6, 1e-9, 0)));
}

TEST_CASE("Thakur's non-power-of-two Rabenseifner estimate differs from the exact fold cost", "[closed-form]") {
  // For P = 6, P' = 4: the exact bandwidth term uses (P'-1)/P' = 3/4, Thakur prints (P-1)/P = 5/6.
  const CostModel cost = CostModel::uniform(0, 1e-9, 0);
  const std::uint64_t n = 1 << 20;
  const double exact = *closed_form_time("rabenseifner", Collective::allreduce, 6, n, cost);
  REQUIRE(exact == Approx((2.0 * 3 / 4 + 2) * n * 1e-9));
  REQUIRE(exact != Approx((2.0 * 5 / 6 + 2) * n * 1e-9));
}

TEST_CASE("no algorithm beats the lower bound, for any collective, size or P", "[lower-bound]") {
  for (const CostModel& cost : kModels)
    for (const AlgorithmEntry& a : algorithm_table())
      for (Collective c : a.collectives)
        for (Rank p : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 12u, 16u, 31u, 32u, 33u, 64u})
          // The bound is for schedules between ranks: a switch that reduces beats it by design
          // (docs/semantics.md, In-network reduction), and a flat network has no such switch.
          if (a.in_network == InNetwork::none)
          for (std::uint64_t n : {0ull, 1ull, 1000ull, 65536ull, 10000019ull}) {
            const Rank per_node = a.needs_ranks_per_node ? (p % 4 == 0 ? 4 : 1) : 0;  // hierarchical-ring, rail-alltoall
            for (std::uint32_t k : {1u, 4u}) {
              if (!a.pipelined && k > 1) continue;
              INFO(a.name << " " << to_string(c) << " P=" << p << " N=" << n << " k=" << k);
              const double t = analytic_time(a.name, c, p, n, cost, k, per_node);
              REQUIRE(t >= lower_bound_time(c, p, n, cost) * (1 - 1e-12));
            }
          }
}

// The classic bound, ceil(lg P) a + 2(P-1)/P N b + (P-1)/P N g: the lower bound's two terms
// added instead of maxed. It holds for schedules that do not overlap reduction with
// communication (every unpipelined algorithm here); pipelined ones approach or beat it only
// when g is comparable to b. The port term is the bound without reductions, the reducer term
// the bound without links.
double classic_lower_bound_time(Collective collective, Rank ranks, std::uint64_t bytes, const CostModel& cost) {
  CostModel links_only = cost, reductions_only = cost;
  links_only.gamma_s_per_byte = 0;
  reductions_only.inter_node = reductions_only.intra_node = {0, 0};
  return lower_bound_time(collective, ranks, bytes, links_only) + lower_bound_time(collective, ranks, bytes, reductions_only);
}

TEST_CASE("unpipelined allreduce algorithms never beat the classic additive lower bound", "[lower-bound]") {
  for (const CostModel& cost : kModels)
    for (const AlgorithmEntry& a : algorithm_table())
      for (Rank p : {2u, 3u, 5u, 8u, 13u, 32u, 40u})
        for (std::uint64_t n : {1ull, 4096ull, 10000019ull}) {
          if (!a.supports(Collective::allreduce) || (a.name == "hierarchical-ring" && p % 4 != 0)) continue;
          if (a.in_network != InNetwork::none) continue;  // no switch reduces on a flat network
          INFO(a.name << " P=" << p << " N=" << n);
          const double t = analytic_time(a.name, Collective::allreduce, p, n, cost, 1, a.name == "hierarchical-ring" ? 4 : 0);
          REQUIRE(t >= classic_lower_bound_time(Collective::allreduce, p, n, cost) * (1 - 1e-12));
        }
}

TEST_CASE("ring is bandwidth-optimal: at large N it comes within 1% of the classic lower bound", "[lower-bound]") {
  const CostModel cost = kModels[0];
  const std::uint64_t n = 1ull << 32;
  const double bound = classic_lower_bound_time(Collective::allreduce, 16, n, cost);
  REQUIRE(analytic_time("ring", Collective::allreduce, 16, n, cost) < bound * 1.01);
}
