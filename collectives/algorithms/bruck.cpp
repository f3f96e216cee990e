// collectives/algorithms/bruck.cpp — all-to-all in ceil(lg P) steps (Bruck, Ho, Kipnis, Upfal &
// Weathersby 1997; MPICH's and Open MPI's alltoall for small messages): fewer, larger messages
// than pairwise's P - 1, for a latency-bound exchange.
// Number rank r's blocks by how far they must go: index i is its block for r + i. In step k
// every rank sends the blocks whose index has bit k set, packed into one message, to the rank
// 2^k ahead, which keeps their index; after the steps of its index's bits a block has gone i
// ranks, to its destination. For P = 4, indices 1, 3 move in step 0 (1 ahead), 2, 3 in step 1
// (2 ahead): block 3 travels 1 + 2.
// Where things are: each step k has a pack buffer and a receive buffer in scratch (m_k blocks:
// the indices with bit k set), written once, so no step waits for another's buffer to free.
// Packing and unpacking (into the receive buffer, on a block's last step) are local copies,
// which the engines do not charge. Its own block (index 0) is a local copy.
#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/algorithms/alltoall_blocks.hpp"
#include "collectives/algorithms/entries.hpp"
#include "collectives/closed_forms.hpp"
#include "collectives/transfer_stream.hpp"

namespace collsim::algorithms {
namespace {

// Indices 1..P-1 with bit k set, in increasing order: what step k moves.
std::vector<Rank> moved_in_step(Rank p, unsigned k) {
  std::vector<Rank> out;
  for (Rank i = 1; i < p; ++i)
    if (i >> k & 1) out.push_back(i);
  return out;
}

struct StepBuffers {
  std::vector<Rank> indices;
  ChunkId pack = 0, received = 0;
  std::vector<ChunkId> packed_slot, received_slot;  // by position in `indices`
};

// Lays out each step's pack and receive buffers after the receive buffer.
std::vector<StepBuffers> lay_out_steps(AlltoallBlocks& blocks, Rank p) {
  const std::uint64_t b = blocks.block_bytes();
  std::uint64_t at = blocks.staging_offset();
  std::vector<StepBuffers> steps(ceil_log2(p));
  for (unsigned k = 0; k < steps.size(); ++k) {
    StepBuffers& s = steps[k];
    s.indices = moved_in_step(p, k);
    const std::uint64_t m = s.indices.size();
    s.pack = blocks.table().intern({at, m * b});
    s.received = blocks.table().intern({at + m * b, m * b});
    for (std::uint64_t j = 0; j < m; ++j) {
      s.packed_slot.push_back(blocks.table().intern({at + j * b, b}));
      s.received_slot.push_back(blocks.table().intern({at + (m + j) * b, b}));
    }
    at += 2 * m * b;
  }
  return steps;
}

std::uint64_t staging_bytes(const ScheduleRequest& request) {
  std::uint64_t blocks = 0;
  for (unsigned k = 0; k < ceil_log2(request.ranks); ++k) blocks += 2 * moved_in_step(request.ranks, k).size();
  return blocks * (request.bytes / request.ranks);
}

// Where index i sits at a rank before step k: its data block for rank + i until it first
// moves, then the receive slot of the step of i's highest bit below k.
ChunkId where_before(const AlltoallBlocks& blocks, const std::vector<StepBuffers>& steps, Rank rank, Rank i,
                     unsigned k, Rank p) {
  const Rank below = i & ((Rank(1) << k) - 1);
  if (below == 0) return blocks.send_block((rank + i) % p);
  const StepBuffers& s = steps[floor_log2(below)];
  const auto at = std::find(s.indices.begin(), s.indices.end(), i) - s.indices.begin();
  return s.received_slot[at];
}

Schedule bruck(const ScheduleRequest& request) {
  const Rank p = request.ranks;
  AlltoallBlocks blocks(request, "bruck", BlockSizes::equal, staging_bytes(request));
  const std::vector<StepBuffers> steps = lay_out_steps(blocks, p);
  ScheduleBuilder builder(blocks.info(), blocks.chunks());
  for (Rank r = 0; r < p; ++r) blocks.copy_own_block(builder, r, 0);
  for (unsigned k = 0; k < steps.size(); ++k) {
    const StepBuffers& s = steps[k];
    const Rank distance = Rank(1) << k;
    for (Rank r = 0; r < p; ++r) {
      for (std::size_t j = 0; j < s.indices.size(); ++j)
        builder.add(r, where_before(blocks, steps, r, s.indices[j], k, p), r, s.packed_slot[j], Op::copy, k);
      builder.add(r, s.pack, (r + distance) % p, s.received, Op::copy, k);
    }
    // A block whose highest bit is k has arrived: into the receive buffer, from its origin.
    for (Rank to = 0; to < p; ++to)
      for (std::size_t j = 0; j < s.indices.size(); ++j)
        if (floor_log2(s.indices[j]) == k)
          builder.add(to, s.received_slot[j], to, blocks.receive_block((to + p - s.indices[j]) % p), Op::copy, k);
  }
  builder.add_phase("exchange", 0, std::max<std::uint32_t>(1, std::uint32_t(steps.size())));  // P = 1: the copy
  return std::move(builder).build();
}

// Per rank: a local copy, per step m_k <= P/2 packs of a block and a message of m_k blocks,
// and P - 1 unpacks in all. Elements: the blocks, and the bytes of N beyond the last block.
ScheduleSize bruck_size(const ScheduleRequest& r) {
  const double p = r.ranks, steps = ceil_log2(r.ranks);
  return {p * (1 + steps * (p / 2 + 1) + p), 2 * p + 1 + p * steps, p * (1 + steps * (p + 1) + p)};
}

// Sum over steps k of (a + m_k B b): m_k indices of 1..P-1 with bit k set, B = floor(N / P).
std::optional<double> bruck_time(Collective, Rank ranks, double n, const CostModel& cost, std::uint32_t) {
  const auto t = closed_forms::uniform(cost, ranks, n);
  if (!t) return std::nullopt;
  double time = 0;
  for (unsigned k = 0; k < ceil_log2(ranks); ++k)
    time += t->a + double(moved_in_step(ranks, k).size()) * std::floor(t->n / t->p) * t->b;
  return time;
}

// Bruck told as a stream (transfer_stream.hpp) of its messages alone: transfer k P + r is rank
// r's message of step k, to r + 2^k. The held schedule's local copies (its own block, packing,
// unpacking) cost nothing in every engine and are not told: a message waits for what it packs,
// the blocks rank r received in earlier steps j, each through a free copy, so it depends on
// the messages that brought them, rank r - 2^j's of step j. Step j brought a block that step k
// forwards wherever an index has bits k and j set and none between, the least 2^k + 2^j, so
// where 2^k + 2^j <= P - 1. Same messages, same ready times: the engines time it as the held
// schedule (tests/sim/test_prediction_stream.cpp), with P ceil(lg P) transfers instead of
// about P^2 lg P / 2 (16,384 ranks: 229 K instead of 2.1 G).
class BruckStream final : public TransferStream {
 public:
  explicit BruckStream(const ScheduleRequest& r)
      : p_(r.ranks), steps_(ceil_log2(r.ranks)), block_(r.bytes / r.ranks),
        info_(AlltoallBlocks(r, "bruck", BlockSizes::equal, staging_bytes(r)).info()) {
    for (unsigned k = 0; k < steps_; ++k) moved_.push_back(moved_in_step(p_, k).size());
  }

  const ScheduleInfo& info() const override { return info_; }
  // Empty blocks (fewer bytes than ranks) are not sent, held or streamed: nothing moves.
  std::uint64_t size() const override { return block_ == 0 ? 0 : std::uint64_t(p_) * steps_; }
  std::uint64_t max_dependency_distance() const override { return size(); }

  StreamedTransfer transfer(TransferId id, std::vector<TransferId>& deps) const override {
    const unsigned k = unsigned(id / p_);
    const Rank r = Rank(id % p_);
    deps.clear();
    for (unsigned j = 0; j < k; ++j)
      if (forwards(k, j)) deps.push_back(message(j, (r + p_ - distance(j) % p_) % p_));
    return {.src = r, .dst = Rank((r + distance(k)) % p_), .bytes = moved_[k] * block_, .op = Op::copy,
            .step = k, .deps = deps};
  }
  // No message's wait is implied by another's: each brings blocks no other does.
  void deciding_dependencies(TransferId id, std::vector<TransferId>& out) const override { transfer(id, out); }
  void successors(TransferId id, std::vector<TransferId>& out) const override {
    const unsigned j = unsigned(id / p_);
    out.clear();
    for (unsigned k = j + 1; k < steps_; ++k)
      if (forwards(k, j)) out.push_back(message(k, Rank((id % p_ + distance(j)) % p_)));
  }
  std::vector<TransferId> roots() const override {  // step 0, and any step that forwards nothing
    std::vector<TransferId> out;
    for (unsigned k = 0; k < steps_ && size() > 0; ++k)
      if (k == 0 || !forwards(k, 0))
        for (Rank r = 0; r < p_; ++r) out.push_back(message(k, r));
    return out;
  }

 private:
  static std::uint64_t distance(unsigned k) { return std::uint64_t(1) << k; }
  TransferId message(unsigned k, Rank r) const { return TransferId(std::uint64_t(k) * p_ + r); }
  // Whether step k sends on a block that step j < k brought (j = 0 is the likeliest).
  bool forwards(unsigned k, unsigned j) const { return distance(k) + distance(j) <= p_ - 1; }

  Rank p_;
  unsigned steps_;
  std::uint64_t block_;
  ScheduleInfo info_;
  std::vector<std::uint64_t> moved_;  // m_k, the blocks each message of step k carries
};

}  // namespace

}  // namespace collsim::algorithms

namespace collsim {

std::unique_ptr<TransferStream> stream_bruck(const ScheduleRequest& r) {
  if (r.collective != Collective::alltoall) throw Error(fmt::format("bruck does not implement {}", to_string(r.collective)));
  if (std::uint64_t(r.ranks) * ceil_log2(r.ranks) > 0xFFFFFFFFull)
    throw Error(fmt::format("bruck on {} ranks has more messages than ids", r.ranks));
  return std::make_unique<algorithms::BruckStream>(r);
}

}  // namespace collsim

namespace collsim::algorithms {

AlgorithmEntry bruck_entry() {
  return {.name = "bruck",
          .summary = "all-to-all in ceil(lg P) steps: blocks whose index has bit k set go 2^k ahead (small messages)",
          .collectives = {Collective::alltoall},
          .generate = bruck,
          .size_bound = bruck_size,
          .closed_form = bruck_time,
          .stream = stream_bruck};
}

}  // namespace collsim::algorithms
