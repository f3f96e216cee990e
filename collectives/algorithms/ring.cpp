// collectives/algorithms/ring.cpp — ring allreduce, reduce-scatter and allgather
// (Patarasuk & Yuan 2009; seeds 000, 002, 003). Bandwidth-optimal: each rank sends
// 2(P-1)/P N bytes for allreduce, in 2(P-1) steps of N/P bytes, each step's message sent
// as S slices so that slice k+1 travels while slice k is reduced (ring.hpp). Held (the
// generator) or streamed (stream_ring, for rings too large to hold), one step rule.
#include "collectives/algorithms/ring.hpp"

#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/algorithms/channels.hpp"
#include "collectives/algorithms/entries.hpp"
#include "collectives/transfer_stream.hpp"

namespace collsim::algorithms {
namespace {

std::uint32_t ring_steps(const std::vector<RingSpec>& rings) {
  return rings.empty() || rings[0].ranks.size() < 2 ? 0 : std::uint32_t(rings[0].ranks.size() - 1);
}

std::uint32_t slices_of(const std::vector<RingSpec>& rings) {
  return rings.empty() || rings[0].chunks.empty() ? 1 : std::uint32_t(rings[0].chunks[0].size());
}

Schedule ring(const ScheduleRequest& request) {
  const Rank p = request.ranks;
  ChunkTable table;
  RingSpec flat;
  for (Rank r = 0; r < p; ++r) flat.ranks.push_back(r);
  flat.chunks = ring_chunks(table, {0, request.bytes}, p, request.segments);

  ScheduleBuilder builder(info_for(request, "ring"), table.ranges());
  const bool reduce_scatter = request.collective != Collective::allgather;
  const bool allgather = request.collective != Collective::reduce_scatter;
  const std::size_t per_phase = std::size_t(p) * (p - 1) * request.segments;
  // Deps: one per reduce-scatter transfer after the first step, two per allgather transfer.
  builder.reserve(per_phase * (reduce_scatter + allgather), per_phase * (reduce_scatter + 2 * allgather));

  // Allreduce keeps the seeds' chunk convention; standalone collectives use MPI's (rank r owns block r).
  const std::uint32_t shift = request.collective == Collective::allreduce ? 0 : p - 1;
  const std::vector<RingSpec> rings{flat};
  std::uint32_t step = 0;
  if (reduce_scatter) {
    const std::uint32_t next = add_ring_phase(builder, rings, RingPhase::reduce_scatter, shift, step);
    builder.add_phase("reduce-scatter", step, next - step);
    step = next;
  }
  if (allgather) {
    const std::uint32_t next = add_ring_phase(builder, rings, RingPhase::allgather, shift, step);
    builder.add_phase("allgather", step, next - step);
  }
  return std::move(builder).build();
}

// Each of the P chunks is cut into S slices, and each slice is sent once per step.
ScheduleSize ring_size(const ScheduleRequest& r) {
  return one_pass(2.0 * r.ranks * (r.ranks - 1.0) * r.segments, cut(r, double(r.ranks) * r.segments));
}

}  // namespace

RingChunks ring_chunks(ChunkTable& table, ByteRange range, std::size_t n, std::size_t segments) {
  RingChunks chunks(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < segments; ++k) chunks[i].push_back(table.intern(ring_slice(range, n, segments, i, k)));
  return chunks;
}

RingChunks ring_chunks_by_slice(ChunkTable& table, ByteRange range, std::size_t n, std::size_t segments) {
  RingChunks chunks(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < segments; ++k) chunks[i].push_back(table.intern(part_of(part_of(range, segments, k), n, i)));
  return chunks;
}

// Slot by slot, so that each rank issues step s's slices in order.
std::uint32_t add_ring_phase(ScheduleBuilder& builder, const std::vector<RingSpec>& rings, RingPhase phase,
                             std::uint32_t shift, std::uint32_t first_step) {
  const std::uint32_t steps = ring_steps(rings), segments = slices_of(rings);
  for (std::uint32_t s = 0; s < steps; ++s)
    for (std::uint32_t k = 0; k < segments; ++k)
      for (const RingSpec& ring : rings) {
        const std::size_t n = ring.ranks.size();
        for (std::size_t i = 0; i < n; ++i) {
          const RingSend send = ring_send(phase, i, s, n, shift);
          builder.send(ring.ranks[i], ring.ranks[send.to], ring.chunks[send.chunk][k], send.op,
                       first_step + s * segments + k);
        }
      }
  return first_step + steps * segments;
}

// Rings slice each step's message, N/P bytes (hierarchical-ring's rail steps carry N/P too,
// its node steps N/G, cut as many times), into slices of about 1 MiB: the size of a tree's
// segments, a tree edge carrying the whole buffer. Cutting the whole buffer instead would
// send a 64 MiB ring on 64 ranks as 16 KiB slices, paying an alpha per 16 KiB; by the step
// message, a ring stays unsliced while its steps are 1 MiB or less (a 4K allreduce, any
// ring of 16,384 ranks below 16 GiB), where a step's reduction is short anyway.
std::uint32_t ring_segments(const ScheduleRequest& r) { return default_segments(r.bytes / std::max<Rank>(r.ranks, 1)); }

}  // namespace collsim::algorithms

namespace collsim::closed_forms {

// 2(P-1) a + 2(P-1)/P N b + (P-1)/P N g unsliced (Thakur et al.); sliced, the longest path
// through the pipeline (RingSlots, ring.hpp).
std::optional<double> ring(Collective c, Rank ranks, double n, const CostModel& cost, std::uint32_t segments) {
  const auto t = uniform(cost, ranks, n);
  if (!t) return std::nullopt;
  const algorithms::RingSlots ring = algorithms::ring_slots(*t, segments);
  if (c == Collective::reduce_scatter) return ring.reduce_scatter();
  if (c == Collective::allgather) return ring.allgather();
  return ring.allreduce();
}

double rail_ring_drain(Rank ranks, double n, std::uint32_t channels, double gpu_Bps, double nic_Bps) {
  const double wire = 2.0 * (ranks - 1.0) / ranks * n;
  return std::max(wire / (channels * nic_Bps), wire / gpu_Bps);
}

}  // namespace collsim::closed_forms

// The ring told as a stream (transfer_stream.hpp): the step rule of ring.hpp with the
// dependencies written out instead of inferred, in C channels as the held ring runs them
// (channels.hpp: channel c over its rank order, on part c of the buffer). A lane is a channel's
// position, c n + i of L = C n lanes. Ids run slot by slot, each slot every lane, as the held
// channels merge them: reduce-scatter step s, slice k, lane c n + i is transfer (s S + k) L +
// c n + i; the allgather follows. Each slice depends on the same slice of the step before, in
// its own channel:
//   reduce-scatter step s >= 1, slice k, position i: after step s-1's slice k into i (the
//     slice it forwards was reduced there);
//   allgather step a, slice k, position i: after the previous step's slice k into i (the
//     slice it forwards), and, after a reduce-scatter, after reduce-scatter step a's slice k
//     out of i+1, the last read of the slice it overwrites there.
// tests/collectives/test_transfer_stream.cpp proves this equals the ScheduleBuilder's inference,
// in 1 to 4 channels.
namespace collsim {
namespace {

class RingStream final : public TransferStream {
 public:
  RingStream(const ScheduleRequest& r, std::uint32_t segments)
      : p_(r.ranks), channels_(std::max<std::uint32_t>(r.channels, 1)), segments_(segments) {
    info_.collective = r.collective;
    info_.algorithm = "ring";
    info_.ranks = r.ranks;
    info_.bytes = r.bytes;
    info_.segments = segments;
    info_.ranks_per_node = r.ranks_per_node;
    info_.channels = channels_;
    info_.channel_orders = r.channel_orders;
    reduce_scatter_ = r.collective != Collective::allgather;
    allgather_ = r.collective != Collective::reduce_scatter;
    shift_ = r.collective == Collective::allreduce ? 0 : p_ - 1;
    lanes_ = std::uint64_t(p_) * channels_;
    for (std::uint32_t c = 0; c < channels_ && channels_ > 1; ++c) orders_.push_back(algorithms::channel_order(r, c));
  }

  const ScheduleInfo& info() const override { return info_; }
  std::uint64_t size() const override { return p_ < 2 ? 0 : phase_size() * (reduce_scatter_ + allgather_); }
  // An allgather slice's overwrite waits on the reduce-scatter slice (P-1) S slots back.
  std::uint64_t max_dependency_distance() const override { return std::uint64_t(p_) * lanes_ * segments_; }
  // A deciding dependency is the same slice one step back: S slots and one position away at most.
  std::uint64_t max_deciding_distance() const override { return lanes_ * segments_ + 1; }

  StreamedTransfer transfer(TransferId id, std::vector<TransferId>& deps) const override {
    const std::uint64_t n = p_, step_size = lanes_ * segments_, rs_size = reduce_scatter_ ? phase_size() : 0;
    deps.clear();
    StreamedTransfer x;
    const std::uint64_t i = id % lanes_ % n;
    if (id < rs_size) {  // reduce-scatter step s, slice k, position i
      const std::uint64_t s = id / step_size, k = id / lanes_ % segments_;
      fill(x, id, algorithms::ring_send(algorithms::RingPhase::reduce_scatter, i, s, n, shift_), k);
      if (s > 0) deps.push_back(TransferId(id - step_size - i + (i + n - 1) % n));
    } else {  // allgather step a, slice k, position i
      const std::uint64_t rel = id - rs_size, a = rel / step_size, k = rel / lanes_ % segments_;
      fill(x, id, algorithms::ring_send(algorithms::RingPhase::allgather, i, a, n, shift_), k);
      if (reduce_scatter_) deps.push_back(TransferId(rel - i + (i + 1) % n));
      const TransferId raw = TransferId(id - step_size - i + (i + n - 1) % n);
      if ((a > 0 || reduce_scatter_) && (deps.empty() || deps[0] != raw)) deps.push_back(raw);  // one on 2 ranks
    }
    x.deps = deps;
    return x;
  }

  // The allgather's dependency on the reduce-scatter step that read the chunk it overwrites
  // is implied: its forwarding chain runs back through that very transfer (tested).
  void deciding_dependencies(TransferId id, std::vector<TransferId>& out) const override { deciding_transfer(id, out); }
  StreamedTransfer deciding_transfer(TransferId id, std::vector<TransferId>& deps) const override {
    StreamedTransfer x = transfer(id, deps);
    const std::uint64_t rs_size = reduce_scatter_ ? phase_size() : 0;
    if (id >= rs_size && allgather_ && reduce_scatter_ && deps.size() == 2) deps.erase(deps.begin());
    x.deps = deps;
    return x;
  }

  // The inverse of deciding_dependencies(): the same slice, one step on, one position on
  // (the last reduce-scatter step's slices go on into the allgather's first step).
  void successors(TransferId id, std::vector<TransferId>& out) const override {
    const std::uint64_t n = p_, i = id % lanes_ % n;
    out.clear();
    const std::uint64_t next = id + lanes_ * segments_ - i + (i + 1) % n;
    if (next < size()) out.push_back(TransferId(next));
  }

  std::vector<TransferId> roots() const override {  // the first step, every slice
    std::vector<TransferId> first;
    for (std::uint64_t id = 0; p_ >= 2 && id < lanes_ * segments_; ++id) first.push_back(TransferId(id));
    return first;
  }

 private:
  std::uint64_t phase_size() const { return std::uint64_t(p_ - 1) * lanes_ * segments_; }

  // Transfer id's send in its step (the step rule, at its position i), slice k of it, in its
  // channel: that channel's ranks and part of the buffer.
  void fill(StreamedTransfer& x, std::uint64_t id, const algorithms::RingSend& send, std::uint64_t k) const {
    const std::uint64_t lane = id % lanes_, c = lane / p_, i = lane % p_;
    const std::uint64_t data = algorithms::channel_bytes(info_.collective, info_.bytes, p_, channels_, std::uint32_t(c));
    x.src = orders_.empty() ? Rank(i) : orders_[c][i];
    x.dst = orders_.empty() ? Rank(send.to) : orders_[c][send.to];
    x.bytes = algorithms::ring_slice({0, data}, p_, segments_, send.chunk, k).bytes;
    x.op = send.op;
    x.step = std::uint32_t(id / lanes_);
  }

  Rank p_;
  std::uint32_t channels_ = 1;
  std::uint64_t segments_ = 1, lanes_ = 1;
  std::vector<std::vector<Rank>> orders_;  // with channels: each channel's ranks (channels.hpp)
  ScheduleInfo info_;
  bool reduce_scatter_ = true, allgather_ = true;
  std::uint64_t shift_ = 0;
};

}  // namespace

std::unique_ptr<TransferStream> stream_ring(const ScheduleRequest& r) {
  if (r.collective != Collective::allreduce && r.collective != Collective::reduce_scatter &&
      r.collective != Collective::allgather)
    throw Error(fmt::format("ring does not implement {}", to_string(r.collective)));
  check_channels(find_algorithm("ring"), r);
  const std::uint32_t segments = segments_for(find_algorithm("ring"), r);
  const std::uint32_t channels = std::max<std::uint32_t>(r.channels, 1);
  const std::uint64_t least =
      algorithms::channel_bytes(r.collective, r.bytes, r.ranks, channels, channels - 1);  // the shortest part
  if (r.ranks >= 2 && least < std::uint64_t(r.ranks) * segments)
    throw Error(fmt::format("a streamed ring needs at least one byte per slice ({} bytes on {} ranks in {} channels of "
                            "{} segments)",
                            r.bytes, r.ranks, channels, segments));
  // Its 2 (P-1) P S C transfers are numbered from 0 (16,384 ranks in 8 channels: 4.29 G ids).
  if (2 * (std::uint64_t(r.ranks) - 1) * r.ranks * segments * channels > 0xFFFFFFFFull)
    throw Error(fmt::format("a ring on {} ranks in {} channels of {} segments has more transfers than ids", r.ranks,
                            channels, segments));
  return std::make_unique<RingStream>(r, segments);
}

}  // namespace collsim

namespace collsim::algorithms {

AlgorithmEntry ring_entry() {
  return {.name = "ring",
          .summary = "reduce-scatter then allgather around a ring, 2(P-1) steps, each sent in slices (seeds 000, 002)",
          .collectives = {Collective::allreduce, Collective::reduce_scatter, Collective::allgather},
          .generate = ring,
          .size_bound = ring_size,
          .pipelined = true,
          .segment_rule = ring_segments,
          .sliced_steps = true,
          .takes_channels = true,
          .closed_form = closed_forms::ring,
          .stream = stream_ring};
}

}  // namespace collsim::algorithms
