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
#include "collectives/algorithms/alltoall_blocks.hpp"
#include "collectives/algorithms/entries.hpp"
#include "collectives/closed_forms.hpp"

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

}  // namespace

AlgorithmEntry bruck_entry() {
  return {.name = "bruck",
          .summary = "all-to-all in ceil(lg P) steps: blocks whose index has bit k set go 2^k ahead (small messages)",
          .collectives = {Collective::alltoall},
          .generate = bruck,
          .size_bound = bruck_size,
          .closed_form = bruck_time};
}

}  // namespace collsim::algorithms
