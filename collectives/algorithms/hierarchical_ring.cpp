// collectives/algorithms/hierarchical_ring.cpp — two-level ring allreduce for P = M nodes x
// G ranks per node (ranks n*G .. n*G+G-1 share node n), as Horovod and NCCL do across nodes:
//   1. reduce-scatter around each node's ring: local rank l owns chunk (l+1) mod G of the
//      node's sum (seed convention, ring.hpp);
//   2. allreduce around each rail (the M ranks with the same local rank l), on the chunk l
//      owns, cut into M pieces;
//   3. allgather around each node's ring.
// Only N/G bytes per rank cross the inter-node network, in 2(M-1) steps; seed 000's advice
// (keep a node's GPUs adjacent in the ring) taken to its conclusion. Every ring step is sent
// in S slices (ring.hpp), and slice k of each phase follows slice k of the phase
// before: the rails cut each node slice into their M pieces rather than the node's chunk.
// Held (the generator) or streamed (stream_hierarchical_ring, below), one step rule.
#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/algorithms/entries.hpp"
#include "collectives/algorithms/ring.hpp"
#include "collectives/transfer_stream.hpp"

namespace collsim::algorithms {
namespace {

Schedule hierarchical_ring(const ScheduleRequest& request) {
  const Rank p = request.ranks, g = request.ranks_per_node;
  if (g == 0) throw Error("hierarchical-ring needs the number of ranks per node (--ranks-per-node)");
  if (p % g != 0) throw Error(fmt::format("hierarchical-ring: {} ranks are not a whole number of nodes of {}", p, g));
  const Rank m = p / g;
  const ByteRange data{0, request.bytes};

  ChunkTable table;
  const std::uint32_t segments = request.segments;
  const RingChunks node_chunks = ring_chunks(table, data, g, segments);
  std::vector<RingSpec> nodes(m), rails(g);
  for (Rank n = 0; n < m; ++n) {
    for (Rank l = 0; l < g; ++l) nodes[n].ranks.push_back(n * g + l);
    nodes[n].chunks = node_chunks;
  }
  // Rail slice k lies in node slice k: it leaves as soon as the node ring has reduced that slice.
  for (Rank l = 0; l < g; ++l) {
    for (Rank n = 0; n < m; ++n) rails[l].ranks.push_back(n * g + l);
    rails[l].chunks = ring_chunks_by_slice(table, part_of(data, g, (l + 1) % g), m, segments);
  }

  ScheduleBuilder builder(info_for(request, "hierarchical-ring"), table.ranges());
  // Reserved up front: growing 8 arrays of 67 M transfers (16,384 ranks) by doubling copied
  // them over and over, a fifth of the generation's time and half again its peak memory.
  // Deps: at most two per transfer (the slice it forwards, the read it overwrites).
  const std::size_t node_phase = std::size_t(m) * g * (g - 1) * segments;
  const std::size_t rail_phase = std::size_t(g) * m * (m - 1) * segments;
  builder.reserve(2 * (node_phase + rail_phase), 4 * (node_phase + rail_phase));
  std::uint32_t step = 0, next = 0;
  next = add_ring_phase(builder, nodes, RingPhase::reduce_scatter, 0, step);
  builder.add_phase("intra-node reduce-scatter", step, next - step);
  step = next;
  next = add_ring_phase(builder, rails, RingPhase::reduce_scatter, 0, step);
  next = add_ring_phase(builder, rails, RingPhase::allgather, 0, next);
  builder.add_phase("inter-node allreduce", step, next - step);
  step = next;
  next = add_ring_phase(builder, nodes, RingPhase::allgather, 0, step);
  builder.add_phase("intra-node allgather", step, next - step);
  return std::move(builder).build();
}

// Each ring sends each of its slices once per step: 2 P (G - 1 + M - 1) S transfers, bounded
// by 2 P (G + M) S; the rails cut the buffer into G chunks x S slices x M pieces, but a rank
// touches only the node's G S slices and its own rail's M S pieces (its pieces, elements.hpp).
ScheduleSize hierarchical_ring_size(const ScheduleRequest& r) {
  const double g = std::max<Rank>(r.ranks_per_node, 1), m = r.ranks / g;
  return one_pass(2.0 * r.ranks * (g + m) * r.segments, cut(r, (g + m + 1) * r.segments));
}

// Pipelined (S >= 2, G >= 2, M >= 2). One rank's port takes, in order, the node ring's
// reduce-scatter (X1 = (G-1) S slots), the rail's reduce-scatter and allgather (X2 = (M-1) S
// slots each) and the node's allgather (X1), and slice k of each phase waits for slice k of
// the phase before. The longest path either keeps to the ports (every slot a hop) or leaves
// them once to ride the reduction unit over a run of reduce slots and jumps on to the slot S
// later; of all runs, only these five can be the longest (the gains below are linear between
// the phases' edges; docs/algorithms.md). A detour adds its reductions and drops the hops it
// skips.
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

// Phases 1 and 3 on each node's ring (intra-node links), phase 2 on each rail (inter-node).
// Unsliced, the three phases one after another: (G-1)(a1 + N/G (b1 + g)), 2(M-1) rail steps
// of N/(G M), (G-1)(a1 + N/G b1).
std::optional<double> hierarchical_ring_time(Collective, Rank ranks, double n, const CostModel& cost,
                                             std::uint32_t segments) {
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

}  // namespace
}  // namespace collsim::algorithms

// Hierarchical-ring told as a stream (transfer_stream.hpp): the generator's schedule as a
// step rule, its dependencies written out instead of inferred. P = M nodes x G ranks; four
// phases, each its rings side by side, slot by slot (ring.cpp):
//
//   phase                  rings      positions   ids (within the phase)
//   node reduce-scatter    M nodes    G local     ((s S + k) M + n) G + i
//   rail reduce-scatter    G rails    M nodes     ((s S + k) G + l) M + n
//   rail allgather         G rails    M nodes     ((a S + k) G + l) M + n
//   node allgather         M nodes    G local     ((a S + k) M + n) G + i
//
// Rail l carries the node chunk (l+1) mod G, which local rank l owns after the node ring,
// cut slice by slice into M pieces (ring_chunks_by_slice). Within a phase each slice waits
// as a flat ring's does (ring.cpp's stream): on the same slice one step back, one position back;
// a rail allgather slice also on the rail reduce-scatter's last read of what it overwrites,
// a node allgather slice on the node reduce-scatter's. Across phases (where ScheduleBuilder
// infers it from the bytes, with k the slice, l the rail, n the node, all positions mod the ring):
//   rail reduce-scatter (s, k, l, n): writes into node n+1's chunk, so waits for the node
//     ring's last write there, node reduce-scatter (G-2, k, n+1, l-1); its first step also
//     reads node n's, (G-2, k, n, l-1);
//   node allgather step 0 (k, n, i): reads its node slice, whose M rail pieces were last
//     written by rail i's transfers from node n-1: its reduce-scatter's last step and every
//     allgather step (M dependencies, none implied by the others); and overwrites, at i+1,
//     what node reduce-scatter (0, k, n, i+1) read.
// Deciding dependencies drop only the overwrites, implied through the forwarding chains.
// tests/collectives/test_transfer_stream.cpp proves all of it equal to the builder's inference.
namespace collsim {
namespace {

enum class Phase : std::uint8_t { node_reduce_scatter, rail_reduce_scatter, rail_allgather, node_allgather };

// A transfer's place: its phase, step within the phase, slice, ring and position on the ring.
struct Place {
  Phase phase;
  std::uint64_t step, slice, ring, position;
};

class HierarchicalRingStream final : public TransferStream {
 public:
  explicit HierarchicalRingStream(const ScheduleRequest& r)
      : g_(r.ranks_per_node), m_(r.ranks / r.ranks_per_node), s_(r.segments),
        info_(algorithms::info_for(r, "hierarchical-ring")) {
    node_phase_ = m_ * g_ * (g_ - 1) * s_;
    rail_phase_ = g_ * m_ * (m_ - 1) * s_;
  }

  const ScheduleInfo& info() const override { return info_; }
  std::uint64_t size() const override { return 2 * (node_phase_ + rail_phase_); }
  // The farthest: a node allgather slice's overwrite, on the node reduce-scatter's same step
  // (without nodes of several ranks, a rail allgather's, on the rail reduce-scatter's).
  std::uint64_t max_dependency_distance() const override {
    return g_ >= 2 ? base(Phase::node_allgather) + g_ : rail_phase_ + m_;
  }
  // One slot of all rings and one position within a phase; across phases, the rail
  // reduce-scatter's last step waits on the node ring's end, and the node allgather's first
  // step on the rail allgather's first step, each about a rail phase back.
  std::uint64_t max_deciding_distance() const override {
    const std::uint64_t slot = s_ * g_ * m_;
    return g_ >= 2 && m_ >= 2 ? m_ * slot + m_ * g_ : slot + 1;
  }

  StreamedTransfer transfer(TransferId id, std::vector<TransferId>& deps) const override {
    return told(id, deps, false);
  }
  void deciding_dependencies(TransferId id, std::vector<TransferId>& out) const override {
    dependencies(locate(id), out, true);
  }
  StreamedTransfer deciding_transfer(TransferId id, std::vector<TransferId>& deps) const override {
    return told(id, deps, true);
  }

  // The inverse of deciding_dependencies().
  void successors(TransferId id, std::vector<TransferId>& out) const override {
    const Place p = locate(id);
    out.clear();
    const std::uint64_t last = steps(p.phase) - 1;
    switch (p.phase) {
      case Phase::node_reduce_scatter:
        if (p.step < last) out.push_back(at(p.phase, p.step + 1, p.slice, p.ring, p.position + 1));
        else node_ring_done(p, out);
        return;
      case Phase::rail_reduce_scatter:
        out.push_back(p.step < last ? at(p.phase, p.step + 1, p.slice, p.ring, p.position + 1)
                                    : at(Phase::rail_allgather, 0, p.slice, p.ring, p.position + 1));
        if (p.step == last && g_ >= 2) out.push_back(at(Phase::node_allgather, 0, p.slice, p.position + 1, p.ring));
        return;
      case Phase::rail_allgather:
        if (p.step < last) out.push_back(at(p.phase, p.step + 1, p.slice, p.ring, p.position + 1));
        if (g_ >= 2) out.push_back(at(Phase::node_allgather, 0, p.slice, p.position + 1, p.ring));
        return;
      case Phase::node_allgather:
        if (p.step < last) out.push_back(at(p.phase, p.step + 1, p.slice, p.ring, p.position + 1));
        return;
    }
  }

  std::vector<TransferId> roots() const override {  // the first step of the first phase, every slice
    std::vector<TransferId> first;
    for (std::uint64_t id = 0; size() > 0 && id < s_ * g_ * m_; ++id) first.push_back(TransferId(id));
    return first;
  }

 private:
  // Transfer `id` with all its dependencies, or its deciding ones only, in `deps`.
  StreamedTransfer told(TransferId id, std::vector<TransferId>& deps, bool deciding_only) const {
    const Place p = locate(id);
    StreamedTransfer x = describe(p);
    dependencies(p, deps, deciding_only);
    x.deps = deps;
    return x;
  }

  static bool is_node(Phase phase) { return phase == Phase::node_reduce_scatter || phase == Phase::node_allgather; }
  // Rings side by side in a phase, and ranks on each.
  std::uint64_t rings(Phase phase) const { return is_node(phase) ? m_ : g_; }
  std::uint64_t ring_size(Phase phase) const { return is_node(phase) ? g_ : m_; }
  std::uint64_t steps(Phase phase) const { return ring_size(phase) - 1; }
  std::uint64_t base(Phase phase) const {
    switch (phase) {
      case Phase::node_reduce_scatter: return 0;
      case Phase::rail_reduce_scatter: return node_phase_;
      case Phase::rail_allgather: return node_phase_ + rail_phase_;
      case Phase::node_allgather: return node_phase_ + 2 * rail_phase_;
    }
    return 0;
  }

  // The id of a place; `ring` and `position` are taken modulo their counts (callers step
  // forward by adding 1, back by adding count - 1).
  TransferId at(Phase phase, std::uint64_t step, std::uint64_t slice, std::uint64_t ring, std::uint64_t position) const {
    const std::uint64_t n = ring_size(phase);
    return TransferId(base(phase) + ((step * s_ + slice) * rings(phase) + ring % rings(phase)) * n + position % n);
  }
  Place locate(TransferId id) const {
    Phase phase = Phase::node_reduce_scatter;
    for (Phase next : {Phase::rail_reduce_scatter, Phase::rail_allgather, Phase::node_allgather})
      if (id >= base(next)) phase = next;
    const std::uint64_t rel = id - base(phase), n = ring_size(phase), slot = rel / n / rings(phase);
    return {phase, slot / s_, slot % s_, rel / n % rings(phase), rel % n};
  }

  // The place's send by the ring's step rule (ring.hpp), on its node's or rail's ring.
  StreamedTransfer describe(const Place& p) const {
    const bool reduce = p.phase == Phase::node_reduce_scatter || p.phase == Phase::rail_reduce_scatter;
    const algorithms::RingSend send =
        algorithms::ring_send(reduce ? algorithms::RingPhase::reduce_scatter : algorithms::RingPhase::allgather,
                              p.position, p.step, ring_size(p.phase), 0);
    StreamedTransfer x;
    x.src = rank(p.phase, p.ring, p.position);
    x.dst = rank(p.phase, p.ring, send.to);
    x.bytes = is_node(p.phase) ? algorithms::ring_slice(info_.data(), g_, s_, send.chunk, p.slice).bytes
                               : rail_piece(p.ring, p.slice, send.chunk).bytes;
    x.op = send.op;
    x.step = std::uint32_t(slot_before(p.phase) + p.step * s_ + p.slice);
    return x;
  }
  Rank rank(Phase phase, std::uint64_t ring, std::uint64_t position) const {
    return Rank(is_node(phase) ? ring * g_ + position : position * g_ + ring);
  }
  // Piece `piece` of slice k of rail l's range, node chunk (l+1) mod G (ring_chunks_by_slice).
  ByteRange rail_piece(std::uint64_t l, std::uint64_t k, std::uint64_t piece) const {
    return part_of(part_of(part_of(info_.data(), g_, (l + 1) % g_), s_, k), m_, piece);
  }
  // The pipeline slots (schedule steps) of the phases before `phase`.
  std::uint64_t slot_before(Phase phase) const {
    switch (phase) {
      case Phase::node_reduce_scatter: return 0;
      case Phase::rail_reduce_scatter: return (g_ - 1) * s_;
      case Phase::rail_allgather: return (g_ - 1 + m_ - 1) * s_;
      case Phase::node_allgather: return (g_ - 1 + 2 * (m_ - 1)) * s_;
    }
    return 0;
  }

  // The node ring's last write of slice k of local rank l's chunk on node n.
  TransferId node_ring_end(std::uint64_t k, std::uint64_t n, std::uint64_t l) const {
    return at(Phase::node_reduce_scatter, g_ - 2, k, n, l + g_ - 1);
  }

  // Ascending; `deciding`: without the overwrites that a forwarding chain implies.
  void dependencies(const Place& p, std::vector<TransferId>& deps, bool deciding) const {
    deps.clear();
    const std::uint64_t back = ring_size(p.phase) - 1;  // one position back, modulo the ring
    switch (p.phase) {
      case Phase::node_reduce_scatter:
        if (p.step > 0) deps.push_back(at(p.phase, p.step - 1, p.slice, p.ring, p.position + back));
        return;
      case Phase::rail_reduce_scatter:
        rail_reduce_scatter_dependencies(p, deps);
        return;
      case Phase::rail_allgather: {
        const TransferId read = p.step == 0 ? at(Phase::rail_reduce_scatter, m_ - 2, p.slice, p.ring, p.position + back)
                                            : at(p.phase, p.step - 1, p.slice, p.ring, p.position + back);
        const TransferId overwritten = at(Phase::rail_reduce_scatter, p.step, p.slice, p.ring, p.position + 1);
        if (!deciding && overwritten != read) deps.push_back(overwritten);
        deps.push_back(read);
        return;
      }
      case Phase::node_allgather:
        if (!deciding) deps.push_back(at(Phase::node_reduce_scatter, p.step, p.slice, p.ring, p.position + 1));
        node_allgather_reads(p, deps);
        if (!deciding && deps.size() == 2 && deps[0] == deps[1]) deps.pop_back();  // G = 2: one transfer
        return;
    }
  }

  // Without nodes of several ranks, a flat ring's; else also the node ring's end at the
  // destination (and, in the first step, at the source).
  void rail_reduce_scatter_dependencies(const Place& p, std::vector<TransferId>& deps) const {
    const std::uint64_t l = p.ring, n = p.position, k = p.slice;
    if (g_ >= 2) deps.push_back(node_ring_end(k, (n + 1) % m_, l));
    if (p.step > 0) deps.push_back(at(p.phase, p.step - 1, k, l, n + m_ - 1));
    else if (g_ >= 2) deps.push_back(node_ring_end(k, n, l));
    std::sort(deps.begin(), deps.end());
  }

  // What a node allgather slice reads: the previous step's, or in step 0 the slice its rank
  // holds reduced: the node ring's end without rails, else the rail's last writes of its M pieces.
  void node_allgather_reads(const Place& p, std::vector<TransferId>& deps) const {
    const std::uint64_t k = p.slice, n = p.ring, i = p.position;
    if (p.step > 0) {
      deps.push_back(at(p.phase, p.step - 1, k, n, i + g_ - 1));
    } else if (m_ == 1) {
      deps.push_back(node_ring_end(k, n, i));
    } else {
      deps.push_back(at(Phase::rail_reduce_scatter, m_ - 2, k, i, n + m_ - 1));
      for (std::uint64_t a = 0; a + 1 < m_; ++a) deps.push_back(at(Phase::rail_allgather, a, k, i, n + m_ - 1));
    }
  }

  // The successors of the node ring's last write of a slice on node n, position l - 1: the
  // rail reduce-scatter on rail l that reads it (first step, from node n) and that writes
  // into it (every step, from node n-1); without rails, the node allgather's first step.
  void node_ring_done(const Place& p, std::vector<TransferId>& out) const {
    const std::uint64_t k = p.slice, n = p.ring, l = (p.position + 1) % g_;
    if (m_ == 1) {
      out.push_back(at(Phase::node_allgather, 0, k, n, l));
      return;
    }
    out.push_back(at(Phase::rail_reduce_scatter, 0, k, l, n));
    out.push_back(at(Phase::rail_reduce_scatter, 0, k, l, n + m_ - 1));
    std::sort(out.begin(), out.end());
    for (std::uint64_t s = 1; s + 1 < m_; ++s) out.push_back(at(Phase::rail_reduce_scatter, s, k, l, n + m_ - 1));
  }

  std::uint64_t g_, m_, s_;
  std::uint64_t node_phase_ = 0, rail_phase_ = 0;
  ScheduleInfo info_;
};

}  // namespace

std::unique_ptr<TransferStream> stream_hierarchical_ring(const ScheduleRequest& request) {
  const Rank p = request.ranks, g = request.ranks_per_node;
  if (request.collective != Collective::allreduce)
    throw Error(fmt::format("hierarchical-ring does not implement {}", to_string(request.collective)));
  if (g == 0) throw Error("hierarchical-ring needs the number of ranks per node (--ranks-per-node)");
  if (p == 0 || p % g != 0)
    throw Error(fmt::format("hierarchical-ring: {} ranks are not a whole number of nodes of {}", p, g));
  if (request.channels > 1)
    throw Error(fmt::format("hierarchical-ring runs one channel, not {}", request.channels));
  ScheduleRequest r = request;
  r.segments = segments_for(find_algorithm("hierarchical-ring"), request);
  // Every rail piece, the smallest cut, is floor(N / (G S M)) bytes or one more.
  if (p >= 2 && r.bytes < std::uint64_t(p) * r.segments)
    throw Error(fmt::format("a streamed hierarchical ring needs at least one byte per slice ({} bytes on {} ranks in {} "
                            "segments)",
                            r.bytes, p, r.segments));
  const std::uint64_t m = p / g, transfers = 2 * std::uint64_t(p) * ((g - 1) + (m - 1)) * r.segments;
  if (transfers > 0xFFFFFFFFull)
    throw Error(fmt::format("a hierarchical ring on {} ranks in {} segments has more transfers ({}) than ids", p,
                            r.segments, transfers));
  return std::make_unique<HierarchicalRingStream>(r);
}

}  // namespace collsim

namespace collsim::algorithms {

AlgorithmEntry hierarchical_ring_entry() {
  return {.name = "hierarchical-ring",
          .summary = "ring inside each node, ring across nodes, ring inside again, each step sent in slices",
          .collectives = {Collective::allreduce},
          .generate = hierarchical_ring,
          .size_bound = hierarchical_ring_size,
          .pipelined = true,
          .segment_rule = ring_segments,
          .needs_ranks_per_node = true,
          .sliced_steps = true,
          .closed_form = hierarchical_ring_time,
          .stream = stream_hierarchical_ring};
}

}  // namespace collsim::algorithms
