// collectives/algorithms/rail_alltoall.cpp — the hierarchical, rail-aware all-to-all that NCCL
// and mixture-of-experts libraries use across nodes, on P = M nodes x G ranks (ranks n*G ..
// n*G+G-1 share node n; rank (n, l) is local rank l of node n, on rail l):
//   1. within each node (NVLink): rank (n, i) hands each block for a rank (n', l) of another
//      node to its node's rank on that rail, (n, l), which stages it at slot (n', i); blocks
//      for its own node go straight to their ranks' receive buffers;
//   2. across nodes, rail by rail: rank (n, l) sends its G staged blocks for (n', l), slots
//      (n', 0..G-1), as one message into (n', l)'s receive blocks n*G .. n*G+G-1, which are
//      contiguous: every inter-node byte moves between two NICs of one rail.
// This is NCCL's order (PXN, src/graph/paths.cc and search.cc's ncclTopoGetNetDev, 2.12+:
// a send to a peer of another node leaves through the local GPU on the peer's rail; "only in
// the GPU->NIC direction, to favor receiving locally and sending remotely"), and Tutel's
// two-phase all-to-all; DeepEP's dispatch takes the reverse order (the rail first, then NVLink
// inside the destination node). Sending the node's G blocks for one peer as one message is
// the aggregation PXN aims at (NCCL_P2P_PXN_LEVEL=2: "maximize aggregation").
// For P = 4 (M = 2 nodes of G = 2; a -> b: a's block for b, [x] staged at x):
//   step 0 (NVLink): 0->1 [1: slot (1, 0)] for 3; 0->1 for 1; 0 stages its block for 2;
//                    and likewise on every rank
//   step 1 (rails):  0->2 its slots (1, 0..1): blocks of 0 and 1 for 2; 1->3; 2->0; 3->1
#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/algorithms/alltoall_blocks.hpp"
#include "collectives/algorithms/entries.hpp"

namespace collsim::algorithms {
namespace {

// The staging area of rank (n, l): slot (n', i) holds rank (n, i)'s block for (n', l), so
// the G slots for one destination node are contiguous. M x G slots of one block each.
class RailStaging {
 public:
  RailStaging(AlltoallBlocks& blocks, Rank ranks_per_node) : blocks_(blocks), g_(ranks_per_node) {}
  ChunkId slot(Rank node, Rank local) const {
    return blocks_.table().intern({blocks_.staging_offset() + (node * g_ + local) * blocks_.block_bytes(),
                                   blocks_.block_bytes()});
  }
  // The G slots for `node`, and the G receive blocks from `node`'s ranks, as one chunk each.
  ChunkId slots_for(Rank node) const {
    return blocks_.table().intern({blocks_.staging_offset() + node * g_ * blocks_.block_bytes(), g_ * blocks_.block_bytes()});
  }
  ChunkId received_from(Rank node) const {
    const ByteRange first = alltoall_receive_block(blocks_.info(), 0, node * g_);
    return blocks_.table().intern({first.offset, g_ * blocks_.block_bytes()});
  }

 private:
  AlltoallBlocks& blocks_;
  Rank g_;
};

void check_node_aligned(const ScheduleRequest& request) {
  const Rank g = request.ranks_per_node;
  if (g == 0)
    throw Error("rail-alltoall needs the number of ranks per node (--ranks-per-node, or a cluster with nodes); "
                "without nodes use pairwise or linear");
  if (request.ranks % g != 0)
    throw Error(fmt::format("rail-alltoall: {} ranks are not a whole number of nodes of {} (its rails pair local "
                            "ranks of whole nodes); use a multiple of {} ranks, or pairwise or linear",
                            request.ranks, g, g));
}

Schedule rail_alltoall(const ScheduleRequest& request) {
  check_node_aligned(request);
  const Rank p = request.ranks, g = request.ranks_per_node, m = p / g;
  AlltoallBlocks blocks(request, "rail-alltoall", BlockSizes::equal, std::uint64_t(p) * (request.bytes / p));
  const RailStaging staging(blocks, g);
  // Every chunk interned before the builder copies the table.
  std::vector<ChunkId> slot(std::size_t(p) * g), slots_for(m), received_from(m);
  for (Rank n = 0; n < m; ++n) {
    slots_for[n] = staging.slots_for(n);
    received_from[n] = staging.received_from(n);
    for (Rank i = 0; i < g; ++i) slot[n * g + i] = staging.slot(n, i);
  }
  ScheduleBuilder builder(blocks.info(), blocks.chunks());

  // Step 0, on each rank: its own block, and its blocks for its own rail's other nodes, staged
  // locally; then round (k, n'), k = 1..G-1: its block for rank (n', i + k) to local rank i + k
  // (one message out of and into every rank per round, so a one-port rank never waits). The M
  // blocks for one local rank go one after another, in order on their one connection.
  for (Rank r = 0; r < p; ++r) {
    blocks.copy_own_block(builder, r, 0);
    for (Rank to_node = 0; to_node < m; ++to_node)
      if (to_node != r / g) builder.add(r, blocks.send_block(to_node * g + r % g), r, slot[to_node * g + r % g], Op::copy, 0);
  }
  for (Rank k = 1; k < g; ++k) {
    std::vector<TransferId> previous(p, kNoTransfer);  // rank r's last block to local rank i + k
    for (Rank to_node = 0; to_node < m; ++to_node)
      for (Rank r = 0; r < p; ++r) {
        const Rank n = r / g, i = r % g, l = (i + k) % g, via = n * g + l, to = to_node * g + l;
        previous[r] = to_node == n ? blocks.send(builder, r, to, 0, previous[r])
                                   : builder.add(r, blocks.send_block(to), via, slot[to_node * g + i], Op::copy, 0,
                                                 previous[r]);
      }
  }
  builder.add_phase("within nodes (NVLink)", 0, 1);

  // Step 1, round k = 1..M-1: rank (n, l) sends its slots for node n + k to (n + k, l).
  for (Rank k = 1; k < m; ++k)
    for (Rank r = 0; r < p; ++r) {
      const Rank n = r / g, to_node = (n + k) % m;
      builder.add(r, slots_for[to_node], to_node * g + r % g, received_from[n], Op::copy, 1);
    }
  builder.add_phase("across nodes, rail by rail", 1, m > 1 ? 1 : 0);
  return std::move(builder).build();
}

// P^2 transfers in step 0 (one per block) and P (M - 1) in step 1, of G blocks each; a rank's
// bytes cut into its P data blocks, P receive blocks and P staging slots, and N mod P bytes.
// Step 1's P (M - 1) messages wait on nothing but their slots: all of them can be in flight.
ScheduleSize rail_alltoall_size(const ScheduleRequest& r) {
  const double p = r.ranks, m = r.ranks / std::max<double>(r.ranks_per_node, 1);
  return {p * p + p * (m - 1), 3 * p + 1, 2 * p * p, 0, p * (m - 1)};
}

// Under one port, with B = floor(N / P): G - 1 rounds of M blocks on the node's links, then
// M - 1 messages of G blocks on the rails, each after every rank has staged them:
//   (G-1) M (a_in + B b_in) + (M-1) (a_out + G B b_out)
// (G = 1: pairwise over the rails; M = 1: pairwise within the node.)
std::optional<double> rail_alltoall_time(Collective, Rank ranks, double n, const CostModel& cost, std::uint32_t) {
  const Rank g = cost.ranks_per_node;
  if (g == 0 || ranks % g != 0) return std::nullopt;
  const double m = ranks / g, block = std::floor(n / ranks);
  const LinkCost& in = cost.intra_node;
  const LinkCost& out = cost.inter_node;
  return (g - 1) * m * in.message_s(std::uint64_t(block)) + (m - 1) * out.message_s(std::uint64_t(g * block));
}

}  // namespace

AlgorithmEntry rail_alltoall_entry() {
  return {.name = "rail-alltoall",
          .summary = "all-to-all in two phases: NVLink to the GPU on the destination's rail, then one message per "
                     "rail peer (NCCL's PXN)",
          .collectives = {Collective::alltoall},
          .generate = rail_alltoall,
          .size_bound = rail_alltoall_size,
          .needs_ranks_per_node = true,
          .closed_form = rail_alltoall_time};
}

}  // namespace collsim::algorithms
