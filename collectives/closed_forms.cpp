// collectives/closed_forms.cpp — one short function per algorithm.
#include "collectives/closed_forms.hpp"

#include <algorithm>
#include <iterator>

#include "collectives/algorithm.hpp"
#include "collectives/partition.hpp"

namespace collsim {
namespace {

struct Terms {  // the three constants of a uniform model, and N, P as doubles
  double a, b, g, n, p;
};

// The terms of a uniform model; the flat forms hold only there.
std::optional<Terms> uniform(const CostModel& cost, Rank ranks, double n) {
  if (!cost.is_uniform()) return std::nullopt;
  return Terms{cost.inter_node.alpha_s, cost.inter_node.beta_s_per_byte, cost.gamma_s_per_byte, n, double(ranks)};
}

// The extra cost of folding P down to a power of two and back (fold.hpp).
double fold(const Terms& t, Rank ranks) {
  return is_power_of_two(ranks) ? 0.0 : (t.a + t.n * (t.b + t.g)) + (t.a + t.n * t.b);
}

// Reduce then broadcast, or one of them, for the rooted algorithms.
double rooted(Collective c, double reduce, double broadcast) {
  if (c == Collective::reduce) return reduce;
  if (c == Collective::broadcast) return broadcast;
  return reduce + broadcast;
}

// Busy time some rank's ports and some rank's reduction unit cannot avoid. Ports: for
// allreduce every rank sends and receives 2(P-1)/P N bytes (Patarasuk & Yuan 2009), after at
// least one start-up; with one port a rank also receives at least ceil(lg P) messages one
// after another (what it knows at most doubles per message), so their start-ups add up.
// Without ports (the flow engine, SimGrid) start-ups overlap each other and other messages'
// bytes, so only one is certain. Reducer: the (P-1) N byte-reductions, shared by P ranks at
// best. The cheaper link class is assumed.
struct ResourceBounds {
  double port = 0, reducer = 0;
};

ResourceBounds resource_bounds(Collective collective, Rank ranks, std::uint64_t bytes, const CostModel& cost,
                               Ports ports, bool switches_reduce = false) {
  if (ranks <= 1 || bytes == 0) return {};
  if (switches_reduce) {
    // A switch may reduce: a rank's contribution to each byte still leaves it once, and the
    // result enters once (N each way for allreduce), and no rank need reduce anything.
    ResourceBounds b = resource_bounds(collective, ranks, bytes, cost, ports == Ports::one ? Ports::none : ports);
    if (collective == Collective::allreduce && ports != Ports::unshared) {
      const double a = std::min(cost.inter_node.alpha_s, cost.intra_node.alpha_s);
      const double beta = std::min(cost.inter_node.beta_s_per_byte, cost.intra_node.beta_s_per_byte);
      b.port = std::min(b.port, a + double(bytes) * beta);
    }
    return {b.port, 0};
  }
  if (ports == Ports::unshared) {  // every message at its route's full rate: only a start-up is certain
    const ResourceBounds b = resource_bounds(collective, ranks, bytes, cost, Ports::none);
    return {std::min(cost.inter_node.alpha_s, cost.intra_node.alpha_s), b.reducer};
  }
  const double a = std::min(cost.inter_node.alpha_s, cost.intra_node.alpha_s);
  const double b = std::min(cost.inter_node.beta_s_per_byte, cost.intra_node.beta_s_per_byte);
  const double n = double(bytes), share = (ranks - 1.0) / ranks;
  const double latency = ports == Ports::one ? ceil_log2(ranks) * a : a;
  switch (collective) {
    case Collective::allreduce: return {latency + 2 * share * n * b, share * n * cost.gamma_s_per_byte};
    case Collective::reduce_scatter: return {latency + share * n * b, share * n * cost.gamma_s_per_byte};
    case Collective::allgather: return {latency + share * n * b, 0};
    case Collective::broadcast: return {latency + n * b, 0};
    case Collective::reduce: return {latency + n * b, share * n * cost.gamma_s_per_byte};
  }
  return {latency, 0};
}

// A ring's phases on a uniform model, each step's N/P bytes sent as S slices of m = N/(P S):
// a slice holds a rank's ports for `hop` = a + m b, then the receiver's reduction unit for
// `reduce` = m g; each phase has n-1 steps, so `slots` = (P-1) S slices pass each port.
// The time is the longest path through the schedule (docs/algorithms.md derives it):
//   S = 1: each step waits for the reduction before it (Thakur et al.).
//   S >= 2: either the ports never idle (every slot a hop), or the path rides the reduction
//   unit from the first slice to the last and jumps on to the allgather: whichever is longer.
struct RingSlots {
  double slots, segments, hop, reduce;

  double reduce_scatter() const {
    if (segments == 1) return slots * (hop + reduce);
    return slots * std::max(hop, reduce) + std::min(hop, reduce);
  }
  double allgather() const { return slots * hop; }
  double allreduce() const {
    if (segments == 1) return slots * (2 * hop + reduce);
    // Reduction-bound: the first hop, every reduction, one hop into the allgather (its first
    // step rides the last reduce-scatter step), then its other (P-2) S slots.
    return std::max(2 * slots * hop, 2 * hop + slots * reduce + (slots - segments) * hop);
  }
};

RingSlots ring_slots(const Terms& t, std::uint32_t segments) {
  const double s = std::max<std::uint32_t>(segments, 1), slice = t.n / (t.p * s);
  return {(t.p - 1) * s, s, t.a + slice * t.b, slice * t.g};
}

// Hierarchical-ring pipelined (S >= 2, G >= 2, M >= 2). One rank's port takes, in order, the
// node ring's reduce-scatter (X1 = (G-1) S slots), the rail's reduce-scatter and allgather
// (X2 = (M-1) S slots each) and the node's allgather (X1), and slice k of each phase waits
// for slice k of the phase before. The longest path either keeps to the ports (every slot a
// hop) or leaves them once to ride the reduction unit over a run of reduce slots and jumps
// on to the slot S later; of all runs, only these five can be the longest (the gains below
// are linear between the phases' edges; docs/algorithms.md). A detour adds its reductions
// and drops the hops it skips.
double pipelined_hierarchical_ring(const RingSlots& node, const RingSlots& rail) {
  const double x1 = node.slots, x2 = rail.slots, s = node.segments;
  const double hop1 = node.hop, red1 = node.reduce, hop2 = rail.hop, red2 = rail.reduce;
  const double ports = 2 * (x1 * hop1 + x2 * hop2);
  const double detours[] = {
      (x1 - s + 1) * red1 - (x1 - 1) * hop1,                          // node reductions to its last step's first slice
      x1 * red1 - (x1 - 1) * hop1 - (s - 1) * hop2,                    // every node reduction
      red1 - (s - 1) * hop2,                                           // the node's last reduction alone
      x1 * red1 + x2 * red2 - (x1 - 1) * hop1 - (x2 + s - 1) * hop2,  // every node and rail reduction
      red1 + x2 * red2 - (x2 + s - 1) * hop2,                          // the node's last, then every rail reduction
  };
  return ports + std::max(0.0, *std::max_element(std::begin(detours), std::end(detours)));
}

}  // namespace

namespace closed_forms {

std::optional<double> ring(Collective c, Rank ranks, double n, const CostModel& cost, std::uint32_t segments) {
  const auto t = uniform(cost, ranks, n);
  if (!t) return std::nullopt;
  const RingSlots ring = ring_slots(*t, segments);
  if (c == Collective::reduce_scatter) return ring.reduce_scatter();
  if (c == Collective::allgather) return ring.allgather();
  return ring.allreduce();
}

std::optional<double> naive(Collective c, Rank ranks, double n, const CostModel& cost, std::uint32_t) {
  const auto t = uniform(cost, ranks, n);
  if (!t) return std::nullopt;
  return rooted(c, (t->p - 1) * (t->a + t->n * (t->b + t->g)), (t->p - 1) * (t->a + t->n * t->b));
}

std::optional<double> binomial(Collective c, Rank ranks, double n, const CostModel& cost, std::uint32_t) {
  const auto t = uniform(cost, ranks, n);
  if (!t) return std::nullopt;
  const double levels = ceil_log2(ranks);
  return rooted(c, levels * (t->a + t->n * (t->b + t->g)), levels * (t->a + t->n * t->b));
}

std::optional<double> recursive_doubling(Collective, Rank ranks, double n, const CostModel& cost, std::uint32_t) {
  const auto t = uniform(cost, ranks, n);
  if (!t) return std::nullopt;
  return floor_log2(ranks) * (t->a + t->n * (t->b + t->g)) + fold(*t, ranks);
}

std::optional<double> rabenseifner(Collective, Rank ranks, double n, const CostModel& cost, std::uint32_t) {
  const auto t = uniform(cost, ranks, n);
  if (!t) return std::nullopt;
  const double pof2 = double(Rank(1) << floor_log2(ranks)), levels = floor_log2(ranks);
  const double moved = (pof2 - 1) / pof2 * t->n;
  return 2 * levels * t->a + 2 * moved * t->b + moved * t->g + fold(*t, ranks);
}

// Phases 1 and 3 on each node's ring (intra-node links), phase 2 on each rail (inter-node).
std::optional<double> hierarchical_ring(Collective, Rank ranks, double n, const CostModel& cost, std::uint32_t segments) {
  const Rank g = cost.ranks_per_node;
  if (g == 0 || ranks % g != 0) return std::nullopt;
  const double m = ranks / g, node_chunk = n / g, rail_chunk = node_chunk / m;
  const LinkCost& in = cost.intra_node;
  const LinkCost& out = cost.inter_node;
  if (segments > 1 && g == 1)  // one rank per node: a flat ring over the rails
    return ring_slots({out.alpha_s, out.beta_s_per_byte, cost.gamma_s_per_byte, n, m}, segments).allreduce();
  if (segments > 1 && m == 1)  // one node: a flat ring inside it
    return ring_slots({in.alpha_s, in.beta_s_per_byte, cost.gamma_s_per_byte, n, double(g)}, segments).allreduce();
  if (segments > 1) {
    const double s = segments, node_slice = node_chunk / s, rail_slice = rail_chunk / s;
    return pipelined_hierarchical_ring({(g - 1) * s, s, in.alpha_s + node_slice * in.beta_s_per_byte, node_slice * cost.gamma_s_per_byte},
                                       {(m - 1) * s, s, out.alpha_s + rail_slice * out.beta_s_per_byte, rail_slice * cost.gamma_s_per_byte});
  }
  const double intra_rs = (g - 1) * (in.alpha_s + node_chunk * (in.beta_s_per_byte + cost.gamma_s_per_byte));
  const double inter_ar = (m - 1) * (2 * out.alpha_s + rail_chunk * (2 * out.beta_s_per_byte + cost.gamma_s_per_byte));
  const double intra_ag = (g - 1) * (in.alpha_s + node_chunk * in.beta_s_per_byte);
  return intra_rs + inter_ar + intra_ag;
}

// One segment (nvls.cpp), in hops of a + N/P b: a GPU's send port carries the P parts it
// reduces into the switch, so the write-backs start after P hops, once the sums are back;
// the P - 1 multicasts a GPU then receives follow one another on its port: 2P hops. The
// last part's own chain (its sum back, its write-back, its multicast after the P hops up)
// takes P + 3, which is longer on 2 GPUs.
std::optional<double> nvls(Collective, Rank ranks, double n, const CostModel& cost, std::uint32_t segments) {
  if (segments > 1) return std::nullopt;
  const LinkCost& link = cost.link(0, ranks - 1);  // inside the node
  const double p = ranks;
  return std::max(2 * p, p + 3) * (link.alpha_s + n / p * link.beta_s_per_byte);
}

// One rank per node: nvls's pipeline with the SHARP switch for the NVSwitch, on the route
// between nodes. One node, one segment: each GPU sends its G parts up back to back, gets its
// own part's sum, writes it back, and receives the G - 1 other parts; with G = 2 the second
// part's write waits for its copy, one hop later than the first's (tested against the
// analytic engine). Otherwise the phases overlap in ways no short form captures: none.
std::optional<double> collnet(Collective, Rank ranks, double n, const CostModel& cost, std::uint32_t segments) {
  const Rank g = std::max<Rank>(cost.ranks_per_node, 1);
  if (ranks % g != 0) return std::nullopt;
  const double s = std::max<std::uint32_t>(segments, 1);
  if (g == 1) {
    const LinkCost& link = cost.inter_node;
    return (s + 1) * (link.alpha_s + n / s * link.beta_s_per_byte);
  }
  if (ranks != g || segments > 1) return std::nullopt;
  const LinkCost& link = cost.intra_node;
  const double hop = link.alpha_s + n / g * link.beta_s_per_byte;
  return std::max(2.0 * g, g + 3.0) * hop;
}

}  // namespace closed_forms

std::optional<double> closed_form_time(std::string_view algorithm, Collective collective, Rank ranks,
                                       std::uint64_t bytes, const CostModel& cost, std::uint32_t segments) {
  const AlgorithmEntry& entry = find_algorithm(algorithm);
  if (!entry.closed_form) return std::nullopt;
  if (ranks <= 1 || bytes == 0) return 0.0;  // nothing to move: no message is sent
  ScheduleRequest request;
  request.collective = collective;
  request.ranks = ranks;
  request.bytes = bytes;
  request.segments = segments;
  request.ranks_per_node = cost.ranks_per_node;
  return entry.closed_form(collective, ranks, double(bytes), cost, segments_for(entry, request));
}

double classic_lower_bound_time(Collective collective, Rank ranks, std::uint64_t bytes, const CostModel& cost) {
  const ResourceBounds b = resource_bounds(collective, ranks, bytes, cost, Ports::one);
  return b.port + b.reducer;
}

double lower_bound_time(Collective collective, Rank ranks, std::uint64_t bytes, const CostModel& cost, Ports ports,
                        bool switches_reduce) {
  const ResourceBounds b = resource_bounds(collective, ranks, bytes, cost, ports, switches_reduce);
  return std::max(b.port, b.reducer);
}

}  // namespace collsim
