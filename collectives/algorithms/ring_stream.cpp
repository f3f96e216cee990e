// collectives/algorithms/ring_stream.cpp — ring collectives as a step rule (the rule of
// ring_phases.hpp) with their dependencies written out instead of inferred:
//   reduce-scatter step s >= 1, position i: after step s-1's transfer into i (the chunk it
//     forwards was reduced there);
//   allgather step a, position i: after the previous step's transfer into i (the chunk it
//     forwards), and, after a reduce-scatter, after reduce-scatter step a's transfer out of
//     i+1, the last read of the chunk it overwrites there.
// tests/collectives/test_transfer_stream.cpp proves this equals the ScheduleBuilder's inference.
#include <fmt/format.h>

#include "collectives/algorithms/ring_phases.hpp"
#include "collectives/error.hpp"
#include "collectives/transfer_stream.hpp"

namespace collsim {
namespace {

class RingStream final : public TransferStream {
 public:
  explicit RingStream(const ScheduleRequest& r) : p_(r.ranks) {
    info_.collective = r.collective;
    info_.algorithm = "ring";
    info_.ranks = r.ranks;
    info_.bytes = r.bytes;
    reduce_scatter_ = r.collective != Collective::allgather;
    allgather_ = r.collective != Collective::reduce_scatter;
    shift_ = r.collective == Collective::allreduce ? 0 : p_ - 1;
  }

  const ScheduleInfo& info() const override { return info_; }
  std::uint64_t size() const override { return p_ < 2 ? 0 : std::uint64_t(p_) * (p_ - 1) * (reduce_scatter_ + allgather_); }
  std::uint64_t max_dependency_distance() const override { return std::uint64_t(p_) * p_; }

  StreamedTransfer transfer(TransferId id, std::vector<TransferId>& deps) const override {
    const std::uint64_t n = p_, steps = n - 1, rs_size = reduce_scatter_ ? steps * n : 0;
    deps.clear();
    StreamedTransfer x;
    if (id < rs_size) {  // reduce-scatter step s, position i
      const std::uint64_t s = id / n, i = id % n;
      fill(x, i, algorithms::reduce_scatter_chunk(i, s, n, shift_), Op::reduce, std::uint32_t(s));
      if (s > 0) deps.push_back(TransferId((s - 1) * n + (i + n - 1) % n));
    } else {  // allgather step a, position i
      const std::uint64_t a = (id - rs_size) / n, i = (id - rs_size) % n;
      fill(x, i, algorithms::allgather_chunk(i, a, n, shift_), Op::copy, std::uint32_t((reduce_scatter_ ? steps : 0) + a));
      if (reduce_scatter_) deps.push_back(TransferId(a * n + (i + 1) % n));
      const TransferId raw = TransferId(rs_size + a * n - n + (i + n - 1) % n);
      if ((a > 0 || reduce_scatter_) && (deps.empty() || deps[0] != raw)) deps.push_back(raw);  // one on 2 ranks
    }
    x.deps = deps;
    return x;
  }

  // The allgather's dependency on the reduce-scatter step that read the chunk it overwrites
  // is implied: its forwarding chain runs back through that very transfer (tested).
  void deciding_dependencies(TransferId id, std::vector<TransferId>& out) const override {
    transfer(id, out);
    const std::uint64_t rs_size = reduce_scatter_ ? std::uint64_t(p_ - 1) * p_ : 0;
    if (id >= rs_size && allgather_ && reduce_scatter_ && out.size() == 2) out.erase(out.begin());
  }

  // The inverse of deciding_dependencies().
  void successors(TransferId id, std::vector<TransferId>& out) const override {
    const std::uint64_t n = p_, steps = n - 1, rs_size = reduce_scatter_ ? steps * n : 0;
    out.clear();
    if (id < rs_size) {
      const std::uint64_t s = id / n, i = id % n;
      if (s + 1 < steps) out.push_back(TransferId((s + 1) * n + (i + 1) % n));  // forwards what it reduced
      if (s + 1 == steps && allgather_) out.push_back(TransferId(rs_size + (i + 1) % n));  // forwards its result
    } else {
      const std::uint64_t a = (id - rs_size) / n, i = (id - rs_size) % n;
      if (a + 1 < steps) out.push_back(TransferId(rs_size + (a + 1) * n + (i + 1) % n));
    }
  }

  std::vector<TransferId> roots() const override {  // the first step
    std::vector<TransferId> first;
    for (Rank i = 0; p_ >= 2 && i < p_; ++i) first.push_back(i);
    return first;
  }

 private:
  void fill(StreamedTransfer& x, std::uint64_t i, std::uint64_t chunk, Op op, std::uint32_t step) const {
    x.src = Rank(i);
    x.dst = Rank((i + 1) % p_);
    x.bytes = part_of({0, info_.bytes}, p_, chunk).bytes;
    x.op = op;
    x.step = step;
  }

  Rank p_;
  ScheduleInfo info_;
  bool reduce_scatter_ = true, allgather_ = true;
  std::uint64_t shift_ = 0;
};

}  // namespace

std::unique_ptr<TransferStream> stream_ring(const ScheduleRequest& r) {
  if (r.collective != Collective::allreduce && r.collective != Collective::reduce_scatter &&
      r.collective != Collective::allgather)
    throw Error(fmt::format("ring does not implement {}", to_string(r.collective)));
  if (r.ranks >= 2 && r.bytes < r.ranks)
    throw Error(fmt::format("a streamed ring needs at least one byte per chunk ({} bytes on {} ranks)", r.bytes, r.ranks));
  if (std::uint64_t(r.ranks) * r.ranks * 2 > 0xFFFFFFFFull)
    throw Error(fmt::format("a ring on {} ranks has more transfers than ids", r.ranks));
  return std::make_unique<RingStream>(r);
}

}  // namespace collsim
