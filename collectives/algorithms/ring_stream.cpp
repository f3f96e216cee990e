// collectives/algorithms/ring_stream.cpp — ring collectives as a step rule (the rule of
// ring_phases.hpp) with their dependencies written out instead of inferred:
//   reduce-scatter step s >= 1, position i: after step s-1's transfer into i (the chunk it
//     forwards was reduced there);
//   allgather step a, position i: after the previous step's transfer into i (the chunk it
//     forwards), and, after a reduce-scatter, after reduce-scatter step a's transfer out of
//     i+1, the last read of the chunk it overwrites there.
// tests/collectives/test_transfer_stream.cpp proves this equals the ScheduleBuilder's inference.
#include <fmt/format.h>

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

  void for_each(const std::function<void(TransferId, const StreamedTransfer&)>& visit) const override {
    if (p_ < 2) return;
    const std::uint64_t n = p_, steps = n - 1;
    const std::uint64_t ag_base = reduce_scatter_ ? steps * n : 0;  // id of the first allgather transfer
    TransferId deps[2];
    StreamedTransfer x;
    for (std::uint64_t s = 0; reduce_scatter_ && s < steps; ++s)
      for (std::uint64_t i = 0; i < n; ++i) {
        fill(x, i, (i + n - s + shift_) % n, Op::reduce, std::uint32_t(s));
        std::size_t count = 0;
        if (s > 0) deps[count++] = TransferId((s - 1) * n + (i + n - 1) % n);
        x.deps = {deps, count};
        visit(TransferId(s * n + i), x);
      }
    for (std::uint64_t a = 0; allgather_ && a < steps; ++a)
      for (std::uint64_t i = 0; i < n; ++i) {
        fill(x, i, (i + 1 + n - a + shift_) % n, Op::copy, std::uint32_t((reduce_scatter_ ? steps : 0) + a));
        std::size_t count = 0;
        if (reduce_scatter_) deps[count++] = TransferId(a * n + (i + 1) % n);
        const TransferId raw = TransferId(ag_base + a * n - n + (i + n - 1) % n);
        if ((a > 0 || reduce_scatter_) && (count == 0 || deps[0] != raw)) deps[count++] = raw;  // one on 2 ranks
        x.deps = {deps, count};
        visit(TransferId(ag_base + a * n + i), x);
      }
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
