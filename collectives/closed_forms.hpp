// collectives/closed_forms.hpp — closed-form times of the algorithms under the analytic
// engine's model (one-port, contention-free; docs/semantics.md), and the lower bound no
// algorithm can beat. Thakur, Rabenseifner & Gropp (2005), as in MPICH's comments, with N
// bytes on P ranks:
//   ring               2(P-1) a + 2(P-1)/P N b + (P-1)/P N g
//   recursive doubling lg P (a + N b + N g)
//   rabenseifner       2 lg P a + 2(P-1)/P N b + (P-1)/P N g
//   binomial           2 lg P a + 2 lg P N b + lg P N g          (reduce + broadcast)
//   naive              2(P-1)(a + N b) + (P-1) N g              (seed 000's single reducer)
//   nvls               max(2P, P + 3)(a + N/P b), one segment    (the switch reduces: no g; a GPU's
//                      port sends P parts up and its write-back, and receives its part's sum and
//                      P - 1 others' multicasts; a, b of a GPU's route to the switch and back,
//                      taken as the node's GPU-to-GPU link: exact when the switch adds no latency
//                      and reduces at least at the GPU link's rate. With S > 1 segments the two
//                      phases interleave on the ports step by step: no closed form, as tree)
//   collnet            G = 1 (M nodes of one rank): (S + 1)(a + N/S b), a and b of the route
//                      between nodes standing for a GPU's route to the SHARP switch and back;
//                      one node (M = 1), S = 1: max(2G, G + 3)(a + N/G b) on the node's link
//                      (G parts up, one down, one up, G - 1 down; with G = 2 the last part's
//                      write waits for its own copy); exact as nvls's; none otherwise
//   lower bound        ceil(lg P) a + 2(P-1)/P N b + (P-1)/P N g (Patarasuk & Yuan 2009;
//                      a max of its port and reducer parts when reduction overlaps transfers)
// For P not a power of two, recursive doubling and Rabenseifner fold (fold.hpp): one extra
// (a + N b + N g) before and (a + N b) after, with P' = 2^floor(lg P) in place of P. Thakur
// et al. print (P-1)/P there; the exact value is (P'-1)/P'.
// The forms are exact when every message of a step has the same size (N divisible by the
// chunk count); they assume a uniform network, except hierarchical-ring's, which uses both
// link classes. With N = 0 nothing is sent and every time, bound included, is 0.
#pragma once

#include <optional>
#include <string_view>

#include "collectives/cost_model.hpp"

namespace collsim {

// The closed form of each algorithm that has one (its table entry points here): the time of
// `collective` on P ranks of n bytes, nullopt where the model is not the one it assumes.
namespace closed_forms {
std::optional<double> ring(Collective collective, Rank ranks, double n, const CostModel& cost,
                           std::uint32_t segments);
std::optional<double> naive(Collective collective, Rank ranks, double n, const CostModel& cost,
                            std::uint32_t segments);
std::optional<double> binomial(Collective collective, Rank ranks, double n, const CostModel& cost,
                               std::uint32_t segments);
std::optional<double> recursive_doubling(Collective collective, Rank ranks, double n, const CostModel& cost,
                                         std::uint32_t segments);
std::optional<double> rabenseifner(Collective collective, Rank ranks, double n, const CostModel& cost,
                                   std::uint32_t segments);
std::optional<double> hierarchical_ring(Collective collective, Rank ranks, double n, const CostModel& cost,
                                        std::uint32_t segments);
std::optional<double> nvls(Collective collective, Rank ranks, double n, const CostModel& cost, std::uint32_t segments);
std::optional<double> collnet(Collective collective, Rank ranks, double n, const CostModel& cost,
                              std::uint32_t segments);
}  // namespace closed_forms

// nullopt when the algorithm has no closed form for this collective / model (its table entry).
// `segments`: the schedule's (0: the algorithm's default for this size, as generate_schedule).
std::optional<double> closed_form_time(std::string_view algorithm, Collective collective, Rank ranks,
                                       std::uint64_t bytes, const CostModel& cost, std::uint32_t segments = 0);

// How a rank's messages share it: one port (the analytic engine: one message at a time each
// way, in issue order) or none (the flow engine and SimGrid: any number at once, sharing links).
// unshared: the analytic engine with unlimited ports, where no message shares a link with
// another: no rank's links bound its bytes, only one start-up and the reductions are certain.
enum class Ports : std::uint8_t { one, none, unshared };

// Lower bound on any schedule's time: the busier of a rank's ports (for allreduce
// ceil(lg P) a + 2(P-1)/P N b with one port; a + 2(P-1)/P N b without ports, where start-ups
// overlap) and its reduction unit ((P-1)/P N g). The two are a max, not a sum, because a
// pipelined schedule reduces one segment while the next one is on the wire. `cost`'s cheaper
// beta stands for the rank's port: on a topology, sim/ passes the rank's summed links.
// `switches_reduce`: switches reduce in the network (NVLS): an allreduce then moves at least N
// bytes each way per rank, not 2(P-1)/P N (a switch has a port per GPU, so the one-port
// start-ups no longer add up either), and no rank need reduce.
double lower_bound_time(Collective collective, Rank ranks, std::uint64_t bytes, const CostModel& cost,
                        Ports ports = Ports::one, bool switches_reduce = false);

// The classic bound above, ceil(lg P) a + 2(P-1)/P N b + (P-1)/P N g: it holds for schedules
// that do not overlap reduction with communication (every unpipelined algorithm here), and
// pipelined ones approach or beat it only when g is comparable to b.
double classic_lower_bound_time(Collective collective, Rank ranks, std::uint64_t bytes, const CostModel& cost);

}  // namespace collsim
