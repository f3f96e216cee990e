// collectives/closed_forms.hpp — what the algorithms' closed forms share, and the lower bound
// no algorithm can beat. Each algorithm's form is in its own file (algorithms/<name>.cpp,
// reached through its table entry's `closed_form`); docs/algorithms.md tables them all. The
// times are those of the analytic engine's model (one-port, contention-free;
// docs/semantics.md), after Thakur, Rabenseifner & Gropp (2005), as in MPICH's comments, with
// N bytes on P ranks, a the start-up, b the time per byte sent, g the time per byte reduced:
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
#include <vector>

#include "collectives/cost_model.hpp"

namespace collsim {

// What several algorithms' forms are written in (their files hold the forms themselves).
namespace closed_forms {

struct Terms {  // the three constants of a uniform model, and N, P as doubles
  double a, b, g, n, p;
};

// The terms of a uniform model; the flat forms hold only there.
std::optional<Terms> uniform(const CostModel& cost, Rank ranks, double n);

// The extra cost of folding P down to a power of two and back (fold.hpp): recursive doubling
// and Rabenseifner.
double fold(const Terms& t, Rank ranks);

// Reduce then broadcast, or one of them, for the rooted algorithms (naive, binomial).
double rooted(Collective c, double reduce, double broadcast);

// The ring's form (algorithms/ring.cpp, derived there), declared here as well: it is the
// reference time of a uniform ring, which tests and hierarchical-ring's degenerate cases take.
std::optional<double> ring(Collective collective, Rank ranks, double n, const CostModel& cost,
                           std::uint32_t segments);

// A ring allreduce on C channels over nodes of C GPUs, one NIC each on its own rail, whose
// channels stay on their rails (PXN: docs/algorithms.md, Channels), on a fabric that blocks
// nothing, with no start-up or latency: the busier of two links never idles. NIC c carries
// channel c alone, 2(P-1)/P N/C each way; GPU g's link from the node's switch carries all C
// channels' 2(P-1)/P N/C (C-1 channels as steps inside the node, and channel g's PXN hand-off
// to g's NIC), so 2(P-1)/P N: max of N_wire / (C nic_Bps) and N_wire / gpu_Bps.
double rail_ring_drain(Rank ranks, double n, std::uint32_t channels, double gpu_Bps, double nic_Bps);

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
// All-to-all-v's (a size per pair, ScheduleInfo::pair_bytes): one start-up, then the bytes the
// busiest rank sends to or receives from the others, at the cheaper link class (without ports:
// the start-up alone); 0 when no byte leaves its rank.
double alltoallv_lower_bound(const std::vector<std::uint64_t>& pair_bytes, Rank ranks, const CostModel& cost,
                             Ports ports);

}  // namespace collsim
