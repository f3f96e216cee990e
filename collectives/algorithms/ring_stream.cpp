// collectives/algorithms/ring_stream.cpp — ring collectives as a step rule (the rule of
// ring.hpp) with their dependencies written out instead of inferred. Ids run slot by
// slot: reduce-scatter step s, slice k, position i is transfer (s S + k) P + i; the allgather
// follows. Each slice depends on the same slice of the step before:
//   reduce-scatter step s >= 1, slice k, position i: after step s-1's slice k into i (the
//     slice it forwards was reduced there);
//   allgather step a, slice k, position i: after the previous step's slice k into i (the
//     slice it forwards), and, after a reduce-scatter, after reduce-scatter step a's slice k
//     out of i+1, the last read of the slice it overwrites there.
// tests/collectives/test_transfer_stream.cpp proves this equals the ScheduleBuilder's inference.
#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/algorithms/ring.hpp"
#include "collectives/transfer_stream.hpp"

namespace collsim {
namespace {

class RingStream final : public TransferStream {
 public:
  RingStream(const ScheduleRequest& r, std::uint32_t segments) : p_(r.ranks), segments_(segments) {
    info_.collective = r.collective;
    info_.algorithm = "ring";
    info_.ranks = r.ranks;
    info_.bytes = r.bytes;
    info_.segments = segments;
    reduce_scatter_ = r.collective != Collective::allgather;
    allgather_ = r.collective != Collective::reduce_scatter;
    shift_ = r.collective == Collective::allreduce ? 0 : p_ - 1;
  }

  const ScheduleInfo& info() const override { return info_; }
  std::uint64_t size() const override { return p_ < 2 ? 0 : phase_size() * (reduce_scatter_ + allgather_); }
  // An allgather slice's overwrite waits on the reduce-scatter slice P(P-1)S transfers back.
  std::uint64_t max_dependency_distance() const override { return std::uint64_t(p_) * p_ * segments_; }
  // A deciding dependency is the same slice one step back: one slot (P S transfers) and one
  // position away at most.
  std::uint64_t max_deciding_distance() const override { return std::uint64_t(p_) * segments_ + 1; }

  StreamedTransfer transfer(TransferId id, std::vector<TransferId>& deps) const override {
    const std::uint64_t n = p_, slot_size = n * segments_, rs_size = reduce_scatter_ ? phase_size() : 0;
    deps.clear();
    StreamedTransfer x;
    if (id < rs_size) {  // reduce-scatter step s, slice k, position i
      const std::uint64_t s = id / slot_size, k = id / n % segments_, i = id % n;
      fill(x, i, algorithms::reduce_scatter_chunk(i, s, n, shift_), k, Op::reduce, std::uint32_t(id / n));
      if (s > 0) deps.push_back(TransferId(id - slot_size - i + (i + n - 1) % n));
    } else {  // allgather step a, slice k, position i
      const std::uint64_t rel = id - rs_size, a = rel / slot_size, k = rel / n % segments_, i = rel % n;
      fill(x, i, algorithms::allgather_chunk(i, a, n, shift_), k, Op::copy, std::uint32_t(id / n));
      if (reduce_scatter_) deps.push_back(TransferId(rel - i + (i + 1) % n));
      const TransferId raw = TransferId(id - slot_size - i + (i + n - 1) % n);
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
    const std::uint64_t n = p_, slot_size = n * segments_, i = id % n;
    out.clear();
    const std::uint64_t next = id + slot_size - i + (i + 1) % n;
    if (next < size()) out.push_back(TransferId(next));
  }

  std::vector<TransferId> roots() const override {  // the first step, every slice
    std::vector<TransferId> first;
    for (std::uint64_t id = 0; p_ >= 2 && id < std::uint64_t(p_) * segments_; ++id) first.push_back(TransferId(id));
    return first;
  }

 private:
  std::uint64_t phase_size() const { return std::uint64_t(p_) * (p_ - 1) * segments_; }

  void fill(StreamedTransfer& x, std::uint64_t i, std::uint64_t chunk, std::uint64_t k, Op op, std::uint32_t step) const {
    x.src = Rank(i);
    x.dst = Rank((i + 1) % p_);
    x.bytes = algorithms::ring_slice({0, info_.bytes}, p_, segments_, chunk, k).bytes;
    x.op = op;
    x.step = step;
  }

  Rank p_;
  std::uint64_t segments_ = 1;
  ScheduleInfo info_;
  bool reduce_scatter_ = true, allgather_ = true;
  std::uint64_t shift_ = 0;
};

}  // namespace

std::unique_ptr<TransferStream> stream_ring(const ScheduleRequest& r) {
  if (r.collective != Collective::allreduce && r.collective != Collective::reduce_scatter &&
      r.collective != Collective::allgather)
    throw Error(fmt::format("ring does not implement {}", to_string(r.collective)));
  const std::uint32_t segments = segments_for(find_algorithm("ring"), r);
  if (r.ranks >= 2 && r.bytes < std::uint64_t(r.ranks) * segments)
    throw Error(fmt::format("a streamed ring needs at least one byte per slice ({} bytes on {} ranks in {} segments)",
                            r.bytes, r.ranks, segments));
  if (std::uint64_t(r.ranks) * r.ranks * 2 * segments > 0xFFFFFFFFull)
    throw Error(fmt::format("a ring on {} ranks in {} segments has more transfers than ids", r.ranks, segments));
  return std::make_unique<RingStream>(r, segments);
}

}  // namespace collsim
